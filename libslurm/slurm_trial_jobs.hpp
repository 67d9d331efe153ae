// SPDX-License-Identifier: GPL-2.0-or-later
// Trial jobs in Slurm, through the public libslurm (no sbatch or squeue
// forks): submit one, look up the study's own jobs (one RPC for all of the
// owner's jobs; the caller rate-limits), cancel. Mechanism only: what to
// submit and what an ended job means are lib/trial_jobs/trial_job_rules's rules.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "trial_jobs/trial_job_rules.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {

struct SlurmError : std::runtime_error {
  explicit SlurmError(const std::string& what, int code = 0, int user_jobs = -1)
      : std::runtime_error(what), code(code), user_jobs(user_jobs) {}
  int code;       // Slurm's error code (slurm_errno.h); 0 when not known
  int user_jobs;  // with a submission refused by an accounting policy: the user's jobs in the queue
};

// What a refusal of a trial job is about, from Slurm's error code.
RefusalCause refusal_cause(int slurm_error);

struct TrialJobRequest {
  TrialJobSpec spec;
  std::string name;     // STUDY.trial
  std::string comment;  // the study's progress record, role=trial
  std::string workdir;
  std::string output;                    // stdout and stderr of the job's own process
  std::string script;                    // the batch script
  std::vector<std::string> environment;  // NAME=value, complete (nothing is inherited)
};

class SlurmTrialJobs {
 public:
  SlurmTrialJobs();
  // The new job's id; throws SlurmError with Slurm's message.
  std::uint32_t submit(const TrialJobRequest& r);
  // What slurmctld knows of these jobs, in one RPC (all jobs of this user);
  // a job it no longer knows is Ended/Vanished. Throws SlurmError when
  // slurmctld does not answer.
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids);
  // scancel: SIGKILL for the whole job. False if Slurm refused (the job may be gone).
  bool cancel(std::uint32_t id);
};

}  // namespace tune
