// SPDX-License-Identifier: GPL-2.0-or-later
// Bayesian optimisation (--algo bayes): a Gaussian process over the finished
// trials, expected improvement maximised by multi-start local search.
//
// Parameters become kernel features honestly: an interval is its unit-cube
// coordinate (log-scaled when the parameter is), an integer or a listed number
// is rounded to its nearest value before the kernel sees it, and a choice is
// one-hot (no false order between its strings). The objective is warped
// (log(y - min + (median - min)): the tail of bad trials compressed) before
// the model sees it, and expected improvement is measured from the model's
// lowest mean at the finished trials, not from a lucky noisy draw. The first
// trials come from a scrambled Halton design. Trials proposed while others
// still run see those others as "kriging believer" points whose believed value
// is never better than the best observed, and no proposal lands within 0.002
// (in the unit cube) of a running trial, so parallel proposals spread out
// instead of piling up.
// Trial k depends only on the seed and the trials finished before it was
// proposed, so a study with one runner is reproducible.
//
// Noise is measured, not guessed, by running trials twice
// (search/noise_replicates.hpp). When the replicates' share, or from
// kNoisyMinTrials results the fitted noise, holds over kNoisyShare of the
// results' variance (on severely noisy problems the model then chases lucky
// draws), proposals come from the companion (below) fed the same trials,
// until both are under half that share; note() says so, and the driver
// prints it when it changes. The fit alone is not enough: in 10 dimensions
// and more it explains noise with short length scales and puts almost none
// in its noise term (on the severe-noise 10-d problems of
// bench/search_compare.sh, where the replicates see most of the variance as
// noise). Before kNoisyMinTrials
// results only the replicates decide (a fit on a handful of trials cannot
// tell noise from a wiggle; before the first replicate's result such a fit
// continues the initial design instead).
//
// A portfolio: after the initial design, some proposals come from the
// companion, fed the same trials, whatever the noise. The trust region
// closes on one basin of a multimodal problem; the companion proposes from
// the whole picture of good trials, and when it finds a better trial the
// region moves there. Below kCmaesFrom dimensions the companion is tpe and
// proposes one trial in kTpeEvery (trial numbers 3, 7, 11, ... from 0).
// From kCmaesFrom dimensions on the companion is cmaes and proposes one
// trial in kCmaesEvery (1, 3, 5, ...): it follows rotated valleys and ranks
// noisy results without chasing them. Both choices were measured A/B on
// bench/search_compare.sh's sets (docs/results/search-quality.md; the runs
// in git history, bench/results/search/ at bca34c1).
//
// Cost is capped: the model holds at most kModelCap trials (the best half and
// an even spread of the rest) and hyperparameters are fitted on at most
// kFitCap of them (refitted whenever the data grew by a tenth), so a
// proposal after 1,000 trials costs what one after kModelCap does.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <utility>

#include "search/cmaes_sampler.hpp"
#include "search/gaussian_process.hpp"
#include "search/halton.hpp"
#include "search/noise_replicates.hpp"
#include "search/sampler.hpp"
#include "search/tpe_sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class BayesSampler final : public Sampler {
 public:
  static constexpr std::size_t kModelCap = 300;
  static constexpr std::size_t kFitCap = 100;
  // Above this share of the (warped, standardised) results' variance in the
  // fitted noise, proposals come from TPE instead of the model; not before
  // kNoisyMinTrials results (a fit on a handful of trials cannot tell noise
  // from a wiggle).
  static constexpr double kNoisyShare = 0.2;
  static constexpr std::size_t kNoisyMinTrials = 20;
  // Replicated trials (pairs of results at one point) at most, when the first
  // pair differs; a program that gives the same result twice gets one.
  static constexpr std::size_t kReplicates = NoiseReplicates::kMax;
  // From this many dimensions on the companion is cmaes, below it tpe.
  static constexpr std::size_t kCmaesFrom = 10;
  // One proposal in this many after the initial design comes from the
  // companion (a portfolio): tpe's, and cmaes's.
  static constexpr std::uint64_t kTpeEvery = 4, kCmaesEvery = 2;
  std::uint64_t portfolio_every() const {
    return space_.dimensions() >= kCmaesFrom ? kCmaesEvery : kTpeEvery;
  }

  BayesSampler(const SearchSpace& space, std::uint64_t seed, bool minimize);
  ~BayesSampler() override;
  std::string_view name() const override { return "bayes"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  void observe(const Observation& done) override;
  std::string note() const override;
  // Once the initial design is done (or as many results are known, as in a
  // warm-started study): every proposal fits and searches the model.
  bool costly(std::uint64_t trial) const override {
    return (trial >= initial_ || points_.size() >= initial_) && points_.size() >= 2;
  }
  // The companion itself stands in while the model proposes on a worker, so
  // that no second model-free sampler keeps its own copy of the trials.
  // Once lent, the companions learn each result from the stand-in, as soon
  // as the study has it, not again when the held results reach this
  // sampler; a lock keeps the worker's companion proposals and the
  // stand-in's apart (a companion's proposal takes milliseconds; the model's
  // fit is outside the lock).
  Sampler* own_stand_in() override;

  // How many initial-design trials precede the model.
  std::uint64_t initial_trials() const { return initial_; }
  // Kernel features of a unit-cube point (exposed for the tests).
  Eigen::VectorXd features(const Eigen::VectorXd& u) const;
  // Side of the trust region (unit cube) the finished trials have earned:
  // proposals stay within half of it of the best trial, in each interval
  // parameter (1.6 or more: anywhere). A result whose trial was proposed
  // before the best result was known (a sibling, with several runners)
  // neither stalls the region nor breaks a run of improvements.
  double trust_length() const;
  // Share of the results' (warped, standardised) variance the last fit put
  // in its noise term.
  double noise_share() const { return noise_share_; }
  // The same share as the replicates measured it (pooled), once the first one's result is in.
  std::optional<double> replicate_share() const { return replicates_.share(); }
  // Pairs of results at one point so far.
  std::size_t replicates() const { return replicates_.pairs().size(); }

 private:
  using Point = ModelPoint;
  struct Model;

  Eigen::VectorXd encode(const Assignment& a) const;
  Assignment decode(const Eigen::VectorXd& u) const;
  std::vector<Point> model_points(std::mt19937_64& rng) const;
  Eigen::VectorXd model_proposal(std::uint64_t trial, std::span<const Assignment> pending,
                                 std::mt19937_64& rng);
  Eigen::VectorXd maximise_ei(const Model& model, const std::vector<Point>& data, std::mt19937_64& rng) const;
  double local_search(const Model& model, Eigen::VectorXd& u) const;

  const SearchSpace& space_;
  std::uint64_t seed_;
  bool minimize_;
  std::uint64_t initial_;
  ScrambledHalton design_;
  int feature_dims_ = 0;
  std::vector<Point> points_;            // trials with an objective
  std::vector<Eigen::VectorXd> pruned_;  // pruned trials, imputed when the model is built
  std::optional<GpHyper> hyper_;         // warm start for the next fit
  std::size_t fitted_on_ = 0;            // data size at the last fit
  // The companion: a model-free sampler fed the same trials, which proposes
  // while the results are too noisy for the model and in the portfolio.
  Sampler& companion() { return space_.dimensions() >= kCmaesFrom ? static_cast<Sampler&>(cmaes_) : tpe_; }
  std::string_view companion_name() const { return space_.dimensions() >= kCmaesFrom ? "cmaes" : "tpe"; }
  // The companion's proposal, under the lock the stand-in shares.
  Assignment companion_proposal(std::uint64_t trial, std::span<const Assignment> pending);
  TpeSampler tpe_;
  CmaesSampler cmaes_;
  // The companion as the study's stand-in, once lent.
  class CompanionStandIn;
  std::unique_ptr<CompanionStandIn> stand_in_;
  std::mutex companion_lock_;  // companion proposals and what the stand-in feeds them
  double noise_share_ = 0;     // of the last fit
  bool by_companion_ = false;  // the last proposal came from companion(): noisy results
  bool ever_by_companion_ = false;
  bool by_replicates_ = false;  // ... because the replicates measured the noise
  NoiseReplicates replicates_;
};

}  // namespace tune
