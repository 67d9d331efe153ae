// SPDX-License-Identifier: GPL-2.0-or-later
// Covariance matrix adaptation evolution strategy (--algo cmaes; Hansen,
// "The CMA Evolution Strategy: A Tutorial", 2016, with its default
// parameters and negative weights, as the cmaes package behind Optuna's
// CmaEsSampler): a multivariate normal over the unit cube of every
// parameter (log-scaled when the parameter is), starting at the centre with
// a standard deviation of 1/6, moved after every lambda = 4 + floor(3 ln d)
// results towards the best half of them, its shape learnt from their steps.
// It ranks results and never fits a model, so a proposal costs microseconds
// at any trial count, a noisy result moves it by one rank, and in 10 and
// more dimensions it follows a rotated valley that independent densities
// (tpe) cannot see. Draws outside the cube are drawn again (up to 100
// times), then clipped.
//
// A generation is the next lambda results in the order they arrive, whatever
// distribution proposed them: each step is measured from the current mean
// and its length in the current metric capped at sqrt(d) + 2d/(d+2) (as
// Hansen's "injecting external solutions", 2011), so results of trials
// proposed by an older generation, or by another method (bayes feeds it its
// own trials), steer it without throwing its step size off. With one runner
// that is the plain algorithm. Pruned trials rank last; failed ones are left
// out. Integers, listed numbers and choices are searched on their unit-cube
// coordinate and rounded to a value that exists.
// Trial k depends only on the seed and the trials finished when it is
// proposed, in the order they finished.
#pragma once

#include <Eigen/Dense>
#include <random>

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class CmaesSampler final : public Sampler {
 public:
  CmaesSampler(const SearchSpace& space, std::uint64_t seed, bool minimize);
  std::string_view name() const override { return "cmaes"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  void observe(const Observation& done) override;

  // Results per generation (lambda).
  std::size_t population() const { return lambda_; }
  // Generations completed (updates made).
  std::size_t generation() const { return generation_; }
  // The distribution, in unit-cube coordinates (exposed for the tests).
  const Eigen::VectorXd& mean() const { return mean_; }
  double step_size() const { return sigma_; }
  const Eigen::MatrixXd& covariance() const { return cov_; }

 private:
  struct Result {
    Eigen::VectorXd x;  // unit-cube coordinates
    double y;           // smaller is better
    bool pruned;
  };
  Eigen::VectorXd encode(const Assignment& a) const;
  void update();     // one generation, from buffer_
  void decompose();  // cov_ = B D^2 B^T

  const SearchSpace& space_;
  std::uint64_t seed_;
  bool minimize_;
  std::size_t dims_, lambda_, mu_;
  Eigen::VectorXd weights_;  // lambda weights, the positive ones first (sum 1), then the negative ones
  double mu_eff_, c_sigma_, d_sigma_, c_c_, c_1_, c_mu_, chi_n_;
  Eigen::VectorXd mean_, p_sigma_, p_c_;
  double sigma_;
  Eigen::MatrixXd cov_, basis_;  // C, and B
  Eigen::VectorXd scale_;        // D: square roots of C's eigenvalues
  std::size_t generation_ = 0;
  std::vector<Result> buffer_;  // results of the generation under way
};

}  // namespace tune
