// SPDX-License-Identifier: GPL-2.0-or-later
#include "command/submit_notes.hpp"

#include <cstdio>

namespace tune {

std::string minutes_text(long m) {
  char buf[48];
  if (m >= 1440)
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:00", m / 1440, (m % 1440) / 60, m % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:00", m / 60, m % 60);
  return buf;
}

std::vector<std::string> time_notes(const SubmitOptions& o, const std::optional<PartitionTimes>& p) {
  std::vector<std::string> out;
  if (o.time.empty()) {
    std::string what;
    if (!p)
      what = "the job gets its partition's default time limit (Slurm did not say which)";
    else if (p->default_minutes)
      what = "the job gets partition " + p->name + "'s default time limit, " +
             minutes_text(*p->default_minutes) +
             (p->max_minutes ? " (at most " + minutes_text(*p->max_minutes) + ")"
                             : std::string(" (no maximum)"));
    else if (p->max_minutes)
      what = "the job gets partition " + p->name + "'s maximum time limit, " + minutes_text(*p->max_minutes);
    else
      what = "partition " + p->name + " has no time limit: the job runs until the study ends";
    const bool limited = !p || p->default_minutes || p->max_minutes;
    out.push_back(
        "no --time: " + what +
        (limited ? "; the study drains and requeues itself 2 minutes before it, so give --time to choose "
                   "when (e.g. --time 4:00:00)"
                 : ""));
  }
  if (o.trial_time_limit.empty())
    out.push_back(
        "no --trial-time-limit: a trial that hangs holds its " +
        std::string(o.trial_jobs ? "trial job until that job's limit" : "runner until the study's job ends") +
        "; give one a little above a normal trial's time (e.g. --trial-time-limit 30m)");
  return out;
}

}  // namespace tune
