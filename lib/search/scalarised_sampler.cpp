// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/scalarised_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "search/draws.hpp"
#include "search/pareto.hpp"

namespace tune {

ScalarisedSampler::ScalarisedSampler(Factory make, std::vector<bool> minimize, std::uint64_t seed,
                                     Method method)
    : make_(std::move(make)),
      minimize_(std::move(minimize)),
      seed_(seed),
      method_(method),
      probe_(make_()),
      lo_(minimize_.size(), std::numeric_limits<double>::infinity()),
      hi_(minimize_.size(), -std::numeric_limits<double>::infinity()) {}

void ScalarisedSampler::observe(const Observation& done) {
  done_.push_back(done);
  Observation first = done;
  if (done.values.size() == minimize_.size()) {
    for (std::size_t i = 0; i < minimize_.size(); ++i) {
      const double v = minimize_[i] ? done.values[i] : -done.values[i];
      lo_[i] = std::min(lo_[i], v), hi_[i] = std::max(hi_[i], v);
    }
    first.objective = minimize_[0] ? done.values[0] : -done.values[0];
  }
  probe_->observe(first);
}

std::vector<double> ScalarisedSampler::weights(std::uint64_t trial) const {
  auto rng = trial_rng(seed_, trial, 0x9a7e60u);
  // Uniform on the simplex: normalised exponential draws.
  std::vector<double> w(minimize_.size());
  double total = 0;
  for (auto& x : w) {
    const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53;
    total += (x = -std::log(u));
  }
  for (auto& x : w) x /= total;
  return w;
}

double ScalarisedSampler::scalarise(const std::vector<double>& values, const std::vector<double>& w) const {
  double worst = -std::numeric_limits<double>::infinity(), sum = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double v = minimize_[i] ? values[i] : -values[i];
    const double range = hi_[i] - lo_[i];
    const double f = range > 0 ? (v - lo_[i]) / range : 0.0;
    worst = std::max(worst, w[i] * f);
    sum += w[i] * f;
  }
  return worst + 0.05 * sum;
}

std::optional<Assignment> ScalarisedSampler::propose(std::uint64_t trial,
                                                     std::span<const Assignment> pending) {
  const auto w = weights(trial);
  std::vector<double> rank(done_.size(), 0);
  if (method_ == Method::ParetoRank) {
    // Each ok result's rank: the front it is on.
    std::vector<std::size_t> ok;
    std::vector<ObjectivePoint> pts;
    for (std::size_t i = 0; i < done_.size(); ++i)
      if (done_[i].values.size() == minimize_.size()) {
        ok.push_back(i);
        pts.emplace_back();
        for (std::size_t k = 0; k < minimize_.size(); ++k)
          pts.back().push_back(minimize_[k] ? done_[i].values[k] : -done_[i].values[k]);
      }
    const auto ranks = pareto_ranks(pts);
    for (std::size_t k = 0; k < ok.size(); ++k) rank[ok[k]] = static_cast<double>(ranks[k]);
  }
  auto inner = make_();
  for (std::size_t i = 0; i < done_.size(); ++i) {
    const auto& d = done_[i];
    Observation o = d;
    const bool ok = d.values.size() == minimize_.size();
    o.objective =
        !ok ? std::nullopt
            : std::optional<double>(method_ == Method::ParetoRank ? rank[i] : scalarise(d.values, w));
    o.values.clear();
    inner->observe(o);
  }
  return inner->propose(trial, pending);
}

}  // namespace tune
