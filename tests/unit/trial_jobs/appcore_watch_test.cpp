// SPDX-License-Identifier: GPL-2.0-or-later
// What a trial job that lost its AppCore does (lib/trial_jobs/appcore_watch).
#include "trial_jobs/appcore_watch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "trial_jobs/trial_job_rules.hpp"

namespace tune {
namespace {

// slurmctld as a trial job's AppCore watch sees it: answers from a table,
// or silence; cancels recorded.
struct FakeLookup : JobQuery {
  std::map<std::uint32_t, TrialJobInfo> jobs;
  bool silent = false;
  std::vector<std::vector<std::uint32_t>> asked;
  std::vector<std::uint32_t> cancelled;
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override {
    asked.push_back(ids);
    if (silent) throw JobQueueError("Socket timed out on send/recv operation");
    std::map<std::uint32_t, TrialJobInfo> out;
    for (auto id : ids) out[id] = jobs.count(id) ? jobs[id] : TrialJobInfo{TrialJobInfo::State::Ended};
    return out;
  }
  bool cancel(std::uint32_t id) override {
    cancelled.push_back(id);
    return true;
  }
};

TEST(AppCoreWatch, AsksEveryTenSecondsOrSixtyWhenSlurmIsSilentAndCancelsThePendingOnceTheAppCoreIsGone) {
  using S = TrialJobInfo::State;
  FakeLookup slurm;
  slurm.jobs = {{100, {S::Running}}, {201, {S::Pending}}, {202, {S::Running}}};
  JobsFile file;
  file.jobs = {{200, true}, {201, true}, {202, false}, {100, true}};  // 200: this job
  std::vector<std::string> said;
  auto say = [&](const std::string& l) { said.push_back(l); };
  AppCoreWatch w;
  EXPECT_TRUE(w.due(0));
  EXPECT_EQ(w.ask(0, 100, 200, file, slurm, say), AppCoreFate::MayReturn);
  EXPECT_EQ(slurm.asked.back(), (std::vector<std::uint32_t>{100, 201}))
      << "the AppCore, then the others' pending";
  EXPECT_FALSE(w.due(9.9));
  EXPECT_TRUE(w.due(10));
  slurm.silent = true;
  EXPECT_EQ(w.ask(10, 100, 200, file, slurm, say), AppCoreFate::MayReturn) << "silence leaves it open";
  EXPECT_FALSE(w.due(69.9)) << "slurmctld is slow: ask less often";
  EXPECT_TRUE(w.due(70));
  slurm.silent = false;
  slurm.jobs[100] = {S::Ended, JobEnd::Cancelled};
  EXPECT_EQ(w.ask(70, 100, 200, file, slurm, say), AppCoreFate::Stopped);
  EXPECT_EQ(slurm.cancelled, (std::vector<std::uint32_t>{201}));
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("cancelled its pending trial jobs 201"), std::string::npos) << said[0];
  EXPECT_FALSE(w.due(1000)) << "the fate is sealed";
  AppCoreWatch outside;
  EXPECT_EQ(outside.ask(0, 0, 200, file, slurm, say), AppCoreFate::MayReturn)
      << "no Slurm job: nothing to ask";
  EXPECT_FALSE(outside.due(5));
}

}  // namespace
}  // namespace tune
