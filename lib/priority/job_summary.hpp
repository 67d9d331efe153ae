#pragma once
// What sched/tune decided about one job, as it publishes it in the job's
// SystemComment for `tune queue`:
//   tune:tenant=T;ds=0.31;fs=0.81;study=KEY;level=2;prio=80612
// (study and level only for study jobs, prio only for pending ones).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tune {

struct JobSummary {
  std::string tenant;
  double dominant_share = 0;
  double factor = 1;
  std::optional<std::string> study;
  int level = 0;
  std::optional<std::uint32_t> priority;
};

std::string format_summary(const JobSummary& s);
// The summary inside a SystemComment (after any admin text); nullopt if none.
std::optional<JobSummary> parse_summary(std::string_view system_comment);

}  // namespace tune
