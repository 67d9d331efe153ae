// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/convergence.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tune {

void check_convergence_rule(const ConvergenceRule& rule) {
  char v[40];
  if (!(rule.margin > 0) || !std::isfinite(rule.margin)) {
    std::snprintf(v, sizeof v, "%g", rule.margin);
    throw std::invalid_argument(std::string("--converged: ") + v +
                                " is not a number above 0 (an improvement, in the objective's units)");
  }
  if (!(rule.chance > 0 && rule.chance < 1)) {
    std::snprintf(v, sizeof v, "%g", rule.chance);
    throw std::invalid_argument(std::string("--converged-chance: ") + v + " is not a chance between 0 and 1");
  }
}

std::optional<ConvergenceCheck> convergence_check(const ProgressRecord& r, const ConvergenceRule& rule,
                                                  const TailOptions& o) {
  if (!r.left || !tail_can_judge(r, o) || target_met(r)) return std::nullopt;
  const double left = static_cast<double>(*r.left);
  const TailEstimate e = tail_chances(r, o, rule.margin, left, left);
  return ConvergenceCheck{e.p_improve, e.p_target, e.p, *r.left};
}

bool converged(const ConvergenceCheck& c, const ConvergenceRule& rule) {
  return c.p < rule.chance;
}

std::string convergence_line(const ProgressRecord& r, const ConvergenceCheck& c,
                             const ConvergenceRule& rule) {
  char line[320];
  std::snprintf(line, sizeof line,
                "converged: the %lld trials left have a %.2g%% chance of beating the best (%.6g) by %g "
                "(--converged)",
                static_cast<long long>(c.left), 100 * c.p_improve, r.top.empty() ? NAN : r.top[0],
                rule.margin);
  std::string out = line;
  if (r.target) {
    std::snprintf(line, sizeof line, " and a %.2g%% chance of reaching the target %g", 100 * c.p_target,
                  *r.target);
    out += line;
  }
  std::snprintf(line, sizeof line, ", below %g%% (--converged-chance)", 100 * rule.chance);
  return out + line;
}

}  // namespace tune
