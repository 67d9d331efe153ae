// SPDX-License-Identifier: GPL-2.0-or-later
// What a trial job does (`tune trial-job`, the batch script the AppCore
// submits): connects to its study's AppCore, asks for a trial when it starts
// (late binding), runs it with the same TrialProcess as an MPI runner rank,
// streams its reports and returns its result; up to --trials-per-job trials.
// If the AppCore goes away, the running trial finishes, its result waits in
// the trial directory (result.json) and the job tries to reach a resumed
// AppCore for --appcore-wait seconds before it exits; unless Slurm says the
// AppCore's job has ended for good (lib/study's appcore_fate): then it does
// not wait, ends the running trial if Slurm stopped that job, and cancels the
// study's trial jobs still pending.
#pragma once

#include <string>

namespace tune {

struct TrialJobOptions {
  std::string channel_file;
  int trials = 1;             // trials this job runs back to back at most
  double appcore_wait = 300;  // seconds to wait for an AppCore to come back (--appcore-wait, a duration)
};

// The process's exit code: 0 also when the AppCore had no trial for it.
int run_trial_job(const TrialJobOptions& o);

}  // namespace tune
