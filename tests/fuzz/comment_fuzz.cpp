// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target: a job Comment, as any user may write it, through the
// progress-record parser and a whole sched/tune pass and site_factor/tune
// pass. Checks: the parser round-trips what it accepts, the job's priority is
// never above what the same job gets with no Comment, and its SITE term is
// never positive (strategy-proof), with either estimator; the tail
// estimator's chance is a probability and its level in range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "estimators/progress_record.hpp"
#include "estimators/tail_estimate.hpp"
#include "priority/job_summary.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority/site_factor_policy.hpp"

using namespace tune;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string comment(reinterpret_cast<const char*>(data), std::min<std::size_t>(size, 1024));
  if (const auto r = parse_progress(comment)) {
    const auto again = parse_progress(format_progress(*r));
    if (!again || again->study != r->study || again->trials != r->trials || again->minimize != r->minimize ||
        again->top.size() != r->top.size() || again->target.has_value() != r->target.has_value() ||
        again->left != r->left)
      std::abort();
    const TailOptions t;
    if (const auto e = tail_estimate(*r, t, 0.01)) {
      for (double p : {e->p, e->p_improve, e->p_target})
        if (!(p >= 0 && p <= 1)) std::abort();
      const int level = tail_level(e->p, t, 8);
      if (level < 0 || level > 8) std::abort();
    }
  }
  (void)parse_summary(comment);  // tune queue reads SystemComment the same way

  PolicyConfig c;
  c.fairshare.half_life = 600;
  // Both estimators, chosen by the input's length.
  if (size % 2) c.adaptive.use("tail");
  SchedTunePolicy with(c), without(c);
  SiteFactorPolicy site(c);
  JobView mine;
  mine.id = 1, mine.uid = 1000, mine.tenant = "alice", mine.eligible = 0, mine.request = {4, 1000, 1};
  JobView other = mine;
  other.id = 2, other.uid = 1001, other.tenant = "bob", other.eligible = 5;
  JobView running = mine;
  running.id = 3, running.state = JobView::State::Running;
  const Resources cluster{16, 8000, 4};
  for (int pass = 0; pass < 3; ++pass) {
    const double now = 100 + 50 * pass;
    JobView commented = mine, r2 = running;
    commented.comment = comment;
    r2.comment = comment;
    const auto a = with.pass(now, cluster, {commented, other, r2});
    const auto b = without.pass(now, cluster, {mine, other, running});
    if (!a[0].priority || !b[0].priority || *a[0].priority > *b[0].priority || *a[0].priority < 1)
      std::abort();
    if (*a[1].priority != *b[1].priority) std::abort();  // another user's job is untouched
    commented.base_priority = 50000, other.base_priority = 40000;
    const auto s = site.pass(now, {commented, other, r2});
    if (s[0].site && *s[0].site > 0) std::abort();
    if (s[1].site) std::abort();  // no record: no term
    if (const auto t = site.site_for(9, 1000, comment); t && *t > 0) std::abort();
  }
  return 0;
}
