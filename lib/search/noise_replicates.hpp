// SPDX-License-Identifier: GPL-2.0-or-later
// Noise measured, not guessed (BayesSampler's replicates): the first
// proposal after the initial design runs the best design trial again. The
// two results' difference, against the spread of all results (both warped as
// the model sees them), is the noise's share of the variance: 0 for a
// program that gives the same result twice. A program whose two results
// differ gets up to kMax such pairs, one every initial-design length of
// trials (the best trial not yet replicated), and their shares are pooled:
// one pair's share is a chi-squared draw with one degree of freedom, three
// pairs' much less often far off.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <optional>
#include <vector>

namespace tune {

// A finished trial as BayesSampler's model sees it.
struct ModelPoint {
  Eigen::VectorXd u;  // unit-cube coordinates of the trial's values
  double y;           // objective, negated when maximising: smaller is better
  bool imputed;       // a pruned trial, given the worst value seen
  // How many results (earlier points) there were when its trial was
  // proposed (Observation::known): its own index when not said.
  std::size_t known = 0;
};

// Two trials at one point (unit-cube coordinates equal but for rounding).
inline bool same_point(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() < 1e-9;
}

// The objective as the model sees it: log(y - min + (median - min)), in place.
void warp_objective(Eigen::VectorXd& y);

class NoiseReplicates {
 public:
  static constexpr std::size_t kMax = 3;
  struct Pair {
    std::size_t first, again;  // indices of the two results
    double share;              // half the squared (warped) difference, over the results' variance then
  };

  // A new result `p` after `earlier`: the first result at a point measured
  // once before is a replicate (asked for, or found among a resumed study's
  // results).
  void note_result(const std::vector<ModelPoint>& earlier, const ModelPoint& p);
  // A running trial repeats a measured point: a replicate in flight (a
  // sampler rebuilt for every proposal cannot remember asking for it).
  void note_in_flight() { asked_ = std::max(asked_, pairs_.size() + 1); }
  // Whether proposal `trial` is a replicate: after the initial design, and
  // then every `initial` trials while the replicates differ, up to kMax.
  bool due(std::uint64_t trial, std::uint64_t initial, bool have_points) const;
  // The result to run again (the best not yet replicated), counted as asked.
  std::optional<std::size_t> ask(const std::vector<ModelPoint>& points);
  // Which of `n` results belong to a pair (either result).
  std::vector<bool> paired(std::size_t n) const;
  // The pooled share, once the first pair's result is in.
  std::optional<double> share() const;
  const std::vector<Pair>& pairs() const { return pairs_; }

 private:
  std::vector<Pair> pairs_;
  std::size_t asked_ = 0;  // handed out (or found among the results)
};

}  // namespace tune
