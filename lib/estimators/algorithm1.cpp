// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/algorithm1.hpp"

#include <algorithm>
#include <cmath>

#include "estimators/estimators.hpp"

namespace tune {

Algorithm1::Algorithm1()
    : EstimatorOf(
          {{"k", &Algorithm1Options::k, 1, 1000,
            "A study is first judged once it has more than k*m results, then once per m new results."},
           {"m", &Algorithm1Options::m, 2, ProgressRecord::kMaxTop,
            "The top m values whose smallest gap g is judged."},
           {"tolerance", &Algorithm1Options::tolerance, 0, 1,
            "g counts as unchanged when within this fraction of the mean of earlier g."}}) {}

double smallest_top_gap(const ProgressRecord& r, const Algorithm1Options& o) {
  const auto m = static_cast<std::size_t>(o.m);
  if (m < 2 || r.top.size() < m || r.trials <= static_cast<std::int64_t>(o.k) * o.m) return -1;
  double g = INFINITY;
  for (std::size_t i = 1; i < m; ++i) g = std::min(g, std::fabs(r.top[i] - r.top[i - 1]));
  return g / std::max(std::fabs(r.top[0]), 1e-12);
}

Judgement Algorithm1::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  const Algorithm1Options& a = options();
  if (s.judged_n >= 0 && r.trials < s.judged_n + a.m) return {};
  const double g = smallest_top_gap(r, a);
  if (g < 0) return {};
  Algorithm1Memory& mem = memory(s);
  s.judged_n = r.trials;
  const double G =
      o.thresholds.empty() ? 0 : o.thresholds[std::min<std::size_t>(mem.j, o.thresholds.size() - 1)];
  const double mean = mem.gaps ? mem.gap_sum / mem.gaps : -1;
  const bool near_mean = mem.gaps > 0 && std::fabs(g - mean) <= a.tolerance * mean;
  mem.gap_sum += g;
  ++mem.gaps;
  if (!(g < G || near_mean)) return {true, -1};
  if (s.level < o.max_level) ++s.level;
  if (mem.j + 1 < static_cast<int>(o.thresholds.size())) ++mem.j;
  return {true, -1};
}

bool Algorithm1::relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const {
  if (s.level == 0 || std::min(quiet, steady) < o.relax_time) return false;
  --s.level;
  return true;
}

void Algorithm1Memory::save(nlohmann::json& into) const {
  into["j"] = j;
  into["gap_sum"] = gap_sum;
  into["gaps"] = gaps;
}

void Algorithm1Memory::restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState&) {
  j = std::clamp(saved_or(from, "j", 0), 0, std::max(0, static_cast<int>(o.thresholds.size()) - 1));
  const double sum = saved_or(from, "gap_sum", 0.0);
  const auto n = saved_or(from, "gaps", std::int64_t{0});
  gap_sum = sum > 0 ? sum : 0;
  gaps = gap_sum > 0 || n > 0 ? std::max<std::int64_t>(0, n) : 0;
  if (gaps == 0) gap_sum = 0;
}

}  // namespace tune
