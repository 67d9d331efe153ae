// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/yield_level.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tune {

int relaxed_estimate(int estimate, double quiet, const AdaptiveOptions& o) {
  const int periods = static_cast<int>(std::floor(quiet / o.relax_time));
  return std::max(0, estimate - std::max(0, periods));
}

bool YieldLevel::observe(const ProgressRecord& r, const AdaptiveOptions& o) {
  if (r.trials <= s_.last_n) return false;
  s_.last_n = r.trials;
  const int before = s_.level;
  const Judgement j = o.rule().judge(r, o, s_);
  if (j.judged) last_p_ = j.chance;
  return s_.level > before;
}

bool YieldLevel::relax(double quiet, double steady, const AdaptiveOptions& o) {
  return o.rule().relax(s_, quiet, steady, o);
}

bool YieldLevel::judgement_stands(const AdaptiveOptions& o) const {
  return o.rule().judgement_stands(s_);
}

double YieldLevel::multiplier(const AdaptiveOptions& o) const {
  return std::pow(o.yield_factor, s_.level);
}

nlohmann::json YieldLevel::save(const AdaptiveOptions& o) const {
  nlohmann::json out = {{"level", s_.level}, {"last_n", s_.last_n}, {"judged_n", s_.judged_n}};
  o.rule().save(s_, out);
  return out;
}

YieldLevel YieldLevel::restore(const nlohmann::json& saved, const AdaptiveOptions& o) {
  if (!saved.is_object() || !saved.contains("level") || !saved.contains("last_n"))
    throw std::runtime_error("a study without its level or results count");
  YieldLevel y;
  y.s_.level = std::clamp(saved_or(saved, "level", 0), 0, o.max_level);
  y.s_.last_n = std::max<std::int64_t>(-1, saved_or(saved, "last_n", std::int64_t{-1}));
  // Absent from state saved before judgements were counted: judge the next record.
  y.s_.judged_n = std::clamp<std::int64_t>(saved_or(saved, "judged_n", std::int64_t{-1}), -1, y.s_.last_n);
  o.rule().restore(saved, o, y.s_);
  return y;
}

}  // namespace tune
