// SPDX-License-Identifier: GPL-2.0-or-later
// What a trial job that has lost its AppCore does about it (the rule is
// appcore_fate, trial_job_rules.hpp): it asks slurmctld about the AppCore's
// job every 10 s, every 60 s once slurmctld did not answer (each try can
// take its MessageTimeout, and a running trial's reports wait meanwhile).
// Once that job has ended for good, the fate is sealed: the job cancels the
// study's trial jobs still pending (they hold no trial, and a resumed
// AppCore submits its own) and leaves. The trial job (trial_jobs/) reads
// the channel and jobs files and talks to Slurm; the decisions are here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "trial_jobs/jobs_file.hpp"
#include "trial_jobs/trial_job_rules.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {

class AppCoreWatch {
 public:
  static constexpr double kAskEvery = 10, kAskEveryWhenSilent = 60;

  // Whether to ask slurmctld at `now` (seconds of any steady clock): the
  // fate is still open and the interval since the last ask has passed.
  bool due(double now) const;

  // Asks about `appcore` (the AppCore's Slurm job; 0: an AppCore outside
  // Slurm, nothing to ask) and, in the same look-up, the pending trial jobs
  // of `jobs` other than `self`; sets the fate, and once it is sealed
  // cancels those still pending and tells `say` what it did. slurmctld not
  // answering (JobQueueError) leaves the fate open.
  AppCoreFate ask(double now, std::uint32_t appcore, std::uint32_t self, const std::optional<JobsFile>& jobs,
                  JobQuery& slurm, const std::function<void(const std::string&)>& say);

  AppCoreFate fate() const { return fate_; }

 private:
  std::optional<double> asked_;
  bool silent_ = false;  // slurmctld did not answer the last look-up
  AppCoreFate fate_ = AppCoreFate::MayReturn;
};

}  // namespace tune
