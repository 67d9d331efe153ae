// SPDX-License-Identifier: GPL-2.0-or-later
// The AppCore's loop when every trial is its own Slurm job (tune run
// --trial-jobs): keeps at most --parallel trial jobs in Slurm, hands each a
// trial when it asks (late binding), records what comes back, re-runs the
// trials of jobs the cluster ended, adopts the jobs of an earlier AppCore on
// --resume, and leaves no job behind when the study ends.
#pragma once

#include <string>

namespace tune {

class AppCore;
struct RunOptions;

// The process's exit code (as run_study's).
int run_trial_jobs(AppCore& core, const RunOptions& o);

}  // namespace tune
