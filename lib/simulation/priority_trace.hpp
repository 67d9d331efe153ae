// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// tune simulate --sprio: what sprio would have shown at each decision. At
// every pass of the main scheduler or backfill that starts a job, one row per
// job pending when the pass began, in the order the pass looked at them:
//   TIME PASS JOBID ACCOUNT STUDY LEVEL AGE FAIRSHARE SITE PRIORITY STARTED
// AGE and FAIRSHARE are priority/multifactor's weighted terms ("-" under
// priority/basic's orderings), SITE site_factor/tune's term, PRIORITY what
// the pass sorted by, LEVEL the study's yield level ("-": no study), STARTED
// 1 for the jobs the pass started. No Slurm here.
#include <cstdint>
#include <ostream>
#include <string>

#include "simulation/ordering.hpp"

namespace tune::sim {

struct TraceRow {
  double time = 0;
  const char* pass = "main";
  std::uint32_t job = 0;
  std::string account, study;  // study empty: none
  int level = 0;
  PriorityTerms terms;
  double priority = 0;
  bool started = false;
};

void write_trace_header(std::ostream& out);
void write_trace_row(std::ostream& out, const TraceRow& r);

}  // namespace tune::sim
