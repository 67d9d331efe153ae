// SPDX-License-Identifier: GPL-2.0-or-later
// The rules of a study whose trials are Slurm jobs of their own (tune run
// --trial-jobs): what a trial job asks for, how many to keep in the queue,
// what becomes of a trial whose job the cluster ended, and the environment a
// trial job starts with. No Slurm here: trial_jobs/ translates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "history/trial.hpp"
#include "study/outcome.hpp"

namespace tune {

// One trial job's request, as the user gave it (--cpus-per-trial, ...).
struct TrialJobSpec {
  int cpus_per_task = 1;
  long mem_mb = 1024;  // per node
  int gpus_per_node = 0;
  int nodes = 1;
  int tasks = 1;            // tasks of the trial's program (srun across its nodes when > 1)
  double time_limit_s = 0;  // 0: the partition's default
  std::string partition, account, qos, constraint, reservation;
  int nice = 0;  // sbatch --nice: lowers the jobs' priority (>= 0 for users)
};

// Trial jobs to submit now so that at most `parallel` exist (pending and
// running) and none is submitted that no trial would be left for: `unclaimed`
// counts the trials the live jobs may still ask for (each job runs up to
// --trials-per-job), `remaining` the trials the study still hands out
// (nothing: no limit).
int trial_jobs_to_submit(int parallel, int live_jobs, std::uint64_t unclaimed,
                         std::optional<std::uint64_t> remaining, int trials_per_job);

// How Slurm ended a trial job, as far as the AppCore needs to know.
enum class JobEnd {
  Completed,
  Failed,
  Cancelled,
  Timeout,
  NodeFail,
  Preempted,
  OutOfMemory,
  BootFail,
  Deadline,
  Vanished
};
std::string_view job_end_name(JobEnd e);

// What slurmctld says of a trial job.
struct TrialJobInfo {
  enum class State { Pending, Running, Ended } state = State::Pending;
  JobEnd end = JobEnd::Vanished;  // when Ended
  std::string reason;             // Slurm's pending reason, or why it ended
  std::string nodes;
  // Ended, but still in the queue (squeue's CG): Slurm is cleaning up after it.
  bool completing = false;
};

// A trial whose job ended before its result arrived: re-run it (the trial was
// not at fault: cancelled, node failure, preemption, boot failure, a job that
// vanished) or record it as its outcome (the job's time limit is the
// trial's; out of memory is the trial's). The message names Slurm's state
// and reason.
struct LostTrial {
  TrialState state;  // Interrupted: run again
  std::string message;
};
LostTrial lost_trial(JobEnd end, std::uint64_t job_id, const std::string& reason);

// A result a trial job saved in its trial directory (result.json) while no
// AppCore listened counts for trial `t`, left running in the history, when
// it is that trial's and of its latest attempt: it started no earlier than
// the attempt was handed out (a second of slack for the two hosts' clocks).
// An older attempt's file is not this attempt's result.
bool saved_result_counts(const TrialRun& run, const Trial& t);

// A trial job that cannot reach its AppCore asks slurmctld about the
// AppCore's job (the channel file names it). While that job may still run an
// AppCore (pending or requeued, running, completing: Slurm requeues at the
// end of completing; or slurmctld does not answer: nothing) the trial job
// waits for it, up to --appcore-wait. Once it has ended for good, no AppCore
// comes back without a --resume, and the trial job does not wait:
// - Stopped (cancelled, timed out, preempted, past its deadline): Slurm was
//   ending the study, whose AppCore ends its trial jobs as it goes; one
//   killed before it could (its cancels stuck behind a slow slurmctld past
//   KillWait) leaves that to them: the running trial ends now.
// - Crashed (failed, node failure, out of memory, boot failure, completed
//   without a word, gone from slurmctld): the running trial finishes, and its
//   result waits in the trial directory for a --resume.
// Either way the job then leaves, and cancels the study's trial jobs still
// pending: they hold no trial, and a resumed AppCore submits its own.
enum class AppCoreFate { MayReturn, Stopped, Crashed };
AppCoreFate appcore_fate(const std::optional<TrialJobInfo>& appcore_job);

// The environment of a trial job: the AppCore's own (`NAME=value` strings)
// without anything that belongs to the AppCore's job or MPI launch (SLURM_*,
// SBATCH_*, SRUN_*, SALLOC_*, PMI*, PMIX_*, OMPI_*, the job's GPUs, ...; a
// nested srun reads them as its own) but SLURM_CONF, plus `extra`.
std::vector<std::string> trial_job_environment(const std::vector<std::string>& env,
                                               const std::vector<std::pair<std::string, std::string>>& extra);

// Median and 95th percentile (nearest rank) of a set of durations; {0, 0}
// for none. For the AppCore's account of what each trial job cost.
struct Spread {
  double median = 0, p95 = 0;
  std::size_t n = 0;
};
Spread spread_of(std::vector<double> values);

}  // namespace tune
