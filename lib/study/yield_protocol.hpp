// SPDX-License-Identifier: GPL-2.0-or-later
// The yield protocol's rules, in one place (docs/yield-protocol.md tells it
// end to end). A study asked to stop for now (SIGUSR1: a yield sched/tune or
// site_factor/tune asks, a warning before the time limit; SIGTERM) exits
// kExitInterrupted; the batch job around it, run by `tune wrap`, requeues
// itself on that code unless the job itself was being ended (SIGTERM:
// scancel, preemption), and the requeued job resumes the study.
#pragma once

#include <optional>
#include <string>

namespace tune {

// tune run's exit code when it stopped to be resumed with --resume
// (EX_TEMPFAIL); slurm.conf's RequeueExit=75 names the same code.
constexpr int kExitInterrupted = 75;

// What `tune wrap` does once the study's command has ended.
struct WrapEnd {
  bool requeue = false;  // ask Slurm to requeue this job (it resumes the study)
  int exit_code = 0;     // the wrapper's own exit code: the command's
  std::string message;   // one line for the job's output, or empty
};

// exit_code: the command's exit code (128 + N for a signal N, as a shell
// says it); terminated: the wrapper received SIGTERM while it ran (scancel,
// preemption: the study stops and is not requeued); job_id: the Slurm job
// the wrapper runs in (SLURM_JOB_ID), or none outside one.
WrapEnd wrap_end(int exit_code, bool terminated, const std::optional<std::string>& job_id);

}  // namespace tune
