// SPDX-License-Identifier: GPL-2.0-or-later
// Tree-structured Parzen estimator (--algo tpe; Bergstra et al. 2011, with
// the defaults of Optuna's TPESampler): after 10 random trials, the finished
// trials are split into the best gamma(n) = min(ceil(n/10), 25) and the rest
// (pruned trials rank last); each parameter gets two Parzen estimators
// (truncated Gaussians on its unit-cube coordinate, log-scaled when the
// parameter is; weighted category counts for a choice), l from the best and
// g from the rest, each with a broad prior component; of 24 draws from l the
// one with the largest l(x)/g(x) is proposed (scored as log_score says).
// Parameters are modelled independently: no model to fit, so a proposal
// stays cheap at any trial count or dimension, and a noisy result moves one
// trial across the split rather than bending a fitted surface.
// Running trials count as results worse than any (a constant liar, as
// Optuna's TPESampler(constant_liar=True)), so parallel runners spread out.
// Trial k depends only on the seed and the trials finished (and, with
// several runners, running) when it is proposed.
#pragma once

#include <random>

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class TpeSampler final : public Sampler {
 public:
  static constexpr std::uint64_t kStartup = 10;  // random trials before the densities
  static constexpr int kCandidates = 24;         // draws from l scored by l/g

  // `startup`: random proposals until that many results are known (BOHB
  // decides that itself, and asks for none).
  TpeSampler(const SearchSpace& space, std::uint64_t seed, bool minimize, std::uint64_t startup = kStartup);
  std::string_view name() const override { return "tpe"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  void observe(const Observation& done) override;

  // How many of n finished trials form the good set.
  static std::size_t good_count(std::size_t n);

  // A one-dimensional Parzen estimator on [0, 1] (exposed for the tests):
  // one truncated Gaussian per observation plus a prior (centre 0.5, width 1),
  // widths from the distances to the neighbouring observations, clipped to
  // [1/min(100, n+2), 1]; older observations weigh less once there are over 25.
  struct Parzen {
    std::vector<double> mu, sigma, weight;  // the prior last; weights sum to 1
    explicit Parzen(const std::vector<double>& observations);
    // The log of the mixture of the kernels' heights: each truncated Gaussian
    // taken without its 1/sigma factor, so a narrow kernel around one lucky
    // trial does not outweigh the broad ones. This is what Optuna 3.1-3.4's
    // TPE computed (optuna#5109, fixed in 3.5); on bench/search_compare.sh's
    // problems it searched better than the normalised density.
    double log_score(double x) const;
    double sample(std::mt19937_64& rng) const;
  };

 private:
  std::vector<double> coordinates(const Assignment& a) const;
  struct Point {
    std::vector<double> u;  // unit-cube coordinates
    double y;               // smaller is better; pruned trials rank last
    bool pruned;
  };
  const SearchSpace& space_;
  std::uint64_t seed_;
  bool minimize_;
  std::uint64_t startup_;
  std::vector<Point> points_;
};

}  // namespace tune
