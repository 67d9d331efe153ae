// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/noise_replicates.hpp"

#include <algorithm>
#include <cmath>

namespace tune {

void warp_objective(Eigen::VectorXd& y) {
  const Eigen::Index n = y.size();
  if (n == 0) return;
  std::vector<double> sorted(y.data(), y.data() + n);
  std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.end());
  const double lo = y.minCoeff(), median = sorted[static_cast<std::size_t>(n / 2)];
  const double shift = std::max(median - lo, 1e-9 * std::max(1.0, std::fabs(lo)));
  for (Eigen::Index i = 0; i < n; ++i) y(i) = std::log(y(i) - lo + shift);
}

void NoiseReplicates::note_result(const std::vector<ModelPoint>& earlier, const ModelPoint& p) {
  const auto in_pair = paired(earlier.size());
  for (std::size_t k = 0; k < earlier.size(); ++k)
    if (same_point(earlier[k].u, p.u) && !in_pair[k]) {
      Eigen::VectorXd y(static_cast<Eigen::Index>(earlier.size() + 1));
      for (std::size_t i = 0; i < earlier.size(); ++i) y(static_cast<Eigen::Index>(i)) = earlier[i].y;
      y(y.size() - 1) = p.y;
      warp_objective(y);
      const double var = (y.array() - y.mean()).square().sum() / static_cast<double>(y.size() - 1);
      const double diff = y(static_cast<Eigen::Index>(k)) - y(y.size() - 1);
      // Half the squared difference of two draws estimates the noise's variance.
      pairs_.push_back(
          {k, earlier.size(), var > 0 && earlier[k].y != p.y ? std::min(1.0, diff * diff / 2 / var) : 0.0});
      asked_ = std::max(asked_, pairs_.size());
      return;
    }
}

bool NoiseReplicates::due(std::uint64_t trial, std::uint64_t initial, bool have_points) const {
  if (!have_points || trial < initial || asked_ >= kMax) return false;
  if (asked_ == 0) return true;
  // More only while the replicates differ (noise), and only once every
  // earlier one's result is in, one every `initial` trials.
  if (pairs_.size() < asked_ || !share().value_or(0)) return false;
  return trial >= initial * (1 + asked_);
}

std::optional<std::size_t> NoiseReplicates::ask(const std::vector<ModelPoint>& points) {
  const auto in_pair = paired(points.size());
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!in_pair[i] && (!best || points[i].y < points[*best].y)) best = i;
  if (best) ++asked_;
  return best;
}

std::vector<bool> NoiseReplicates::paired(std::size_t n) const {
  std::vector<bool> out(n, false);
  for (const auto& r : pairs_) out[r.first] = out[r.again] = true;
  return out;
}

std::optional<double> NoiseReplicates::share() const {
  if (pairs_.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& r : pairs_) sum += r.share;
  return sum / static_cast<double>(pairs_.size());
}

}  // namespace tune
