// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/appcore_watch.hpp"

#include <vector>

namespace tune {

bool AppCoreWatch::due(double now) const {
  return fate_ == AppCoreFate::MayReturn &&
         (!asked_ || now - *asked_ >= (silent_ ? kAskEveryWhenSilent : kAskEvery));
}

AppCoreFate AppCoreWatch::ask(double now, std::uint32_t appcore, std::uint32_t self,
                              const std::optional<JobsFile>& jobs, JobQuery& slurm,
                              const std::function<void(const std::string&)>& say) {
  asked_ = now;
  if (appcore == 0 || fate_ != AppCoreFate::MayReturn) return fate_;
  std::vector<std::uint32_t> ids = {appcore};
  if (jobs)
    for (const auto& j : jobs->jobs)
      if (j.pending && j.id != self && j.id != appcore) ids.push_back(j.id);
  try {
    const auto info = slurm.look_up(ids);
    silent_ = false;
    const auto core = info.find(appcore);
    if (core == info.end()) return fate_;  // not answered for: ask again
    fate_ = appcore_fate(core->second);
    if (fate_ == AppCoreFate::MayReturn) return fate_;
    std::string cancelled;
    for (std::size_t i = 1; i < ids.size(); ++i) {
      const auto it = info.find(ids[i]);
      if (it != info.end() && it->second.state == TrialJobInfo::State::Pending && slurm.cancel(ids[i]))
        cancelled += (cancelled.empty() ? "" : ", ") + std::to_string(ids[i]);
    }
    say("the AppCore's Slurm job " + std::to_string(appcore) + " has ended " +
        std::string(job_end_name(core->second.end)) +
        ", so no AppCore comes back until the study is resumed" +
        (cancelled.empty() ? "" : "; cancelled its pending trial jobs " + cancelled));
  } catch (const JobQueueError&) {
    silent_ = true;  // the AppCore may still come back
  }
  return fate_;
}

}  // namespace tune
