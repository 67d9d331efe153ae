// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/yield_level.hpp"

#include <algorithm>
#include <cmath>

namespace tune {

namespace {

const YieldEstimator& rule_of(const AdaptiveOptions& o) {
  return *estimators().at(o.estimator).rule;
}

}  // namespace

bool YieldLevel::observe(const ProgressRecord& r, const AdaptiveOptions& o) {
  if (r.trials <= s_.last_n) return false;
  s_.last_n = r.trials;
  const int before = s_.level;
  const Judgement j = rule_of(o).judge(r, o, s_);
  if (j.judged) last_p_ = j.chance;
  return s_.level > before;
}

bool YieldLevel::relax(double quiet, double steady, const AdaptiveOptions& o) {
  return rule_of(o).relax(s_, quiet, steady, o);
}

bool YieldLevel::judgement_stands(const AdaptiveOptions& o) const {
  return rule_of(o).judgement_stands(s_);
}

double YieldLevel::multiplier(const AdaptiveOptions& o) const {
  return std::pow(o.yield_factor, s_.level);
}

YieldLevel YieldLevel::restore(const Saved& s, const AdaptiveOptions& o) {
  YieldLevel y;
  y.s_.level = std::clamp(s.level, 0, o.max_level);
  y.s_.j = std::clamp(s.j, 0, std::max(0, static_cast<int>(o.thresholds.size()) - 1));
  y.s_.last_n = std::max<std::int64_t>(-1, s.last_n);
  y.s_.judged_n = std::clamp<std::int64_t>(s.judged_n, -1, y.s_.last_n);
  y.s_.estimate = std::clamp(s.estimate, 0, o.max_level);
  y.s_.gap_sum = std::isfinite(s.gap_sum) && s.gap_sum >= 0 ? s.gap_sum : 0;
  y.s_.gaps = y.s_.gap_sum > 0 || s.gaps > 0 ? std::max<std::int64_t>(0, s.gaps) : 0;
  if (y.s_.gaps == 0) y.s_.gap_sum = 0;
  y.s_.best_n = std::isfinite(s.best) ? std::clamp<std::int64_t>(s.best_n, -1, y.s_.last_n) : -1;
  y.s_.best = y.s_.best_n >= 0 ? s.best : NAN;
  return y;
}

}  // namespace tune
