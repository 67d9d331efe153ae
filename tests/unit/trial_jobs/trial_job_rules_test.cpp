// SPDX-License-Identifier: GPL-2.0-or-later
// The rules of trial jobs (lib/trial_jobs/trial_job_rules): how many to submit, what
// becomes of a trial whose job the cluster ended, what a trial job does when
// its AppCore's job has ended, the environment of a job.
#include "trial_jobs/trial_job_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "trial_jobs/appcore_watch.hpp"

namespace tune {
namespace {

TEST(TrialJobsToSubmit, KeepsAtMostParallelAndNoneWithoutATrial) {
  EXPECT_EQ(trial_jobs_to_submit(4, 0, 0, 100, 1), 4);
  EXPECT_EQ(trial_jobs_to_submit(4, 3, 3, 100, 1), 1);
  EXPECT_EQ(trial_jobs_to_submit(4, 4, 4, 100, 1), 0) << "pending and running count alike";
  EXPECT_EQ(trial_jobs_to_submit(4, 5, 5, 100, 1), 0);
  EXPECT_EQ(trial_jobs_to_submit(4, 0, 0, 2, 1), 2) << "only as many as trials remain";
  EXPECT_EQ(trial_jobs_to_submit(4, 2, 2, 2, 1), 0) << "the live jobs will ask for those two";
  EXPECT_EQ(trial_jobs_to_submit(4, 0, 0, 0, 1), 0);
  EXPECT_EQ(trial_jobs_to_submit(4, 0, 0, std::nullopt, 1), 4) << "no trial limit";
  EXPECT_EQ(trial_jobs_to_submit(8, 0, 0, 10, 4), 3) << "ceil(10 / 4) jobs of 4 trials";
  EXPECT_EQ(trial_jobs_to_submit(8, 1, 4, 10, 4), 2);
}

TEST(LostTrial, RerunUnlessTheTrialWasAtFault) {
  for (JobEnd e : {JobEnd::Cancelled, JobEnd::NodeFail, JobEnd::Preempted, JobEnd::BootFail, JobEnd::Vanished,
                   JobEnd::Failed, JobEnd::Completed, JobEnd::Deadline}) {
    const LostTrial l = lost_trial(e, 42, "");
    EXPECT_EQ(l.state, TrialState::Interrupted) << job_end_name(e);
    EXPECT_NE(l.message.find("trial job 42 ended " + std::string(job_end_name(e))), std::string::npos)
        << l.message;
  }
  EXPECT_EQ(lost_trial(JobEnd::Timeout, 1, "TimeLimit").state, TrialState::Timeout);
  EXPECT_EQ(lost_trial(JobEnd::OutOfMemory, 1, "").state, TrialState::Failed);
  EXPECT_NE(lost_trial(JobEnd::NodeFail, 3, "NodeDown: node4").message.find("(NodeDown: node4)"),
            std::string::npos);
  EXPECT_EQ(lost_trial(JobEnd::Cancelled, 3, "None").message.find("None"), std::string::npos);
}

TEST(AppCoreFate, WaitsWhileTheAppCoresJobMayRunOneAgain) {
  using S = TrialJobInfo::State;
  EXPECT_EQ(appcore_fate(std::nullopt), AppCoreFate::MayReturn);  // slurmctld did not answer
  EXPECT_EQ(appcore_fate(TrialJobInfo{S::Pending, JobEnd::Vanished, "BeginTime", ""}),
            AppCoreFate::MayReturn);
  EXPECT_EQ(appcore_fate(TrialJobInfo{S::Running, JobEnd::Vanished, "", "node1"}), AppCoreFate::MayReturn);
  // Ended but completing: Slurm decides on a requeue (RequeueExit) only then.
  TrialJobInfo completing{S::Ended, JobEnd::Failed, "", "node1"};
  completing.completing = true;
  EXPECT_EQ(appcore_fate(completing), AppCoreFate::MayReturn);
}

TEST(AppCoreFate, AStoppedAppCoresTrialsEndAndACrashedOnesFinish) {
  for (JobEnd e : {JobEnd::Cancelled, JobEnd::Timeout, JobEnd::Preempted, JobEnd::Deadline})
    EXPECT_EQ(appcore_fate(TrialJobInfo{TrialJobInfo::State::Ended, e, "", ""}), AppCoreFate::Stopped)
        << job_end_name(e);
  for (JobEnd e : {JobEnd::Failed, JobEnd::NodeFail, JobEnd::OutOfMemory, JobEnd::BootFail, JobEnd::Completed,
                   JobEnd::Vanished})
    EXPECT_EQ(appcore_fate(TrialJobInfo{TrialJobInfo::State::Ended, e, "", ""}), AppCoreFate::Crashed)
        << job_end_name(e);
}

TEST(SavedResult, CountsOnlyForTheRunningTrialsLatestAttempt) {
  Trial t;
  t.id = 4, t.state = TrialState::Running, t.start_time = 1000;
  TrialRun run;
  run.trial = 4, run.start_time = 1000.2;
  EXPECT_TRUE(saved_result_counts(run, t));
  run.start_time = 999.5;
  EXPECT_TRUE(saved_result_counts(run, t)) << "a second of slack between the hosts' clocks";
  run.start_time = 950;
  EXPECT_FALSE(saved_result_counts(run, t)) << "an earlier attempt's file";
  run.start_time = 1001, run.trial = 5;
  EXPECT_FALSE(saved_result_counts(run, t)) << "another trial's";
  run.trial = 4, t.state = TrialState::Ok;
  EXPECT_FALSE(saved_result_counts(run, t)) << "already recorded";
}

TEST(TrialJobEnvironment, DropsTheAppCoresJobAndMpiButKeepsTheCluster) {
  const std::vector<std::string> env = {"PATH=/usr/bin",
                                        "HOME=/home/a",
                                        "SLURM_JOB_ID=7",
                                        "SLURM_MEM_PER_CPU=500",
                                        "SLURM_CPUS_PER_TASK=2",
                                        "SLURM_CONF=/etc/slurm/slurm.conf",
                                        "SBATCH_PARTITION=x",
                                        "SRUN_DEBUG=3",
                                        "OMPI_COMM_WORLD_SIZE=4",
                                        "PMIX_RANK=0",
                                        "CUDA_VISIBLE_DEVICES=0",
                                        "SLURMD_NODENAME=node1",
                                        "PYTHONPATH=/x",
                                        "noequals",
                                        "=empty"};
  const auto out = trial_job_environment(env, {{"TUNE_X", "1"}});
  const std::vector<std::string> want = {"PATH=/usr/bin", "HOME=/home/a", "SLURM_CONF=/etc/slurm/slurm.conf",
                                         "PYTHONPATH=/x", "TUNE_X=1"};
  EXPECT_EQ(out, want);
}

TEST(Spread, MedianAndNearestRankP95) {
  EXPECT_EQ(spread_of({}).n, 0u);
  const Spread one = spread_of({2.5});
  EXPECT_DOUBLE_EQ(one.median, 2.5);
  EXPECT_DOUBLE_EQ(one.p95, 2.5);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Spread s = spread_of(v);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.p95, 95);
  EXPECT_EQ(s.n, 100u);
}

}  // namespace
}  // namespace tune
