// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What sched/tune or site_factor/tune decided about one job, as it publishes
// it in the job's SystemComment for `tune queue`:
//   tune:tenant=T;ds=0.31;fs=0.81;study=KEY;level=2;prio=80612   (sched/tune)
//   tune:tenant=T;study=KEY;level=2;site=-40306                   (site_factor/tune)
// (study and level only for study jobs, prio and site only for pending ones;
// ds and fs only where tune computes the fair share).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tune {

struct JobSummary {
  std::string tenant;
  std::optional<double> dominant_share;
  std::optional<double> factor;
  std::optional<std::string> study;
  int level = 0;
  std::optional<std::uint32_t> priority;
  std::optional<std::int64_t> site;  // the SITE term given to priority/multifactor (<= 0)
};

std::string format_summary(const JobSummary& s);
// The summary inside a SystemComment (after any admin text); nullopt if none.
std::optional<JobSummary> parse_summary(std::string_view system_comment);

}  // namespace tune
