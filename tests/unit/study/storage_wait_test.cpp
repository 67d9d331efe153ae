// SPDX-License-Identifier: GPL-2.0-or-later
// A full, over-quota, read-only or failing storage (lib/study/storage_wait):
// named with its path and fix, never charged to the program, waited out with
// a growing pause, and the study stopped once the wait passes its bound.
#include "study/storage_wait.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/run_control.hpp"
#include "study/study.hpp"
#include "tests/unit/study_fixture.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

using StorageStudy = testing_support::OneParameterStudy;

TEST(StorageFault, EachErrorIsNamedWithThePathWhatWasWrittenAndTheFix) {
  for (int e : {ENOSPC, EDQUOT, EROFS, EIO}) EXPECT_TRUE(is_storage_error(e)) << e;
  for (int e : {EACCES, ENOENT, EINVAL, 0}) EXPECT_FALSE(is_storage_error(e)) << e;
  const StorageFault full{ENOSPC, "/scratch/s.trials/7", "the trial's files"};
  const std::string m = describe(full);
  EXPECT_NE(m.find("/scratch/s.trials/7"), std::string::npos) << m;
  EXPECT_NE(m.find("is full"), std::string::npos) << m;
  EXPECT_NE(m.find("the trial's files"), std::string::npos) << m;
  EXPECT_NE(m.find("--trial-dir"), std::string::npos) << m;
  EXPECT_NE(describe({EDQUOT, "/home/u", "x"}).find("quota"), std::string::npos);
  EXPECT_NE(describe({EROFS, "/home/u", "x"}).find("read-only"), std::string::npos);
  EXPECT_NE(describe({EIO, "/home/u", "x"}).find("admins"), std::string::npos);
}

TEST(StorageWait, ProbesWithAGrowingPauseAndGivesUpAfterItsBound) {
  StorageWait w(100);
  EXPECT_FALSE(w.waiting());
  EXPECT_FALSE(w.probe_due(0));
  const StorageFault f{ENOSPC, "/d", "x"};
  EXPECT_TRUE(w.fault(f, 10)) << "a wait starts";
  EXPECT_FALSE(w.fault(f, 10.5)) << "and goes on";
  EXPECT_FALSE(w.probe_due(10.5));
  EXPECT_TRUE(w.probe_due(11));
  double at = 11, pause = 1;
  for (int i = 0; i < 10; ++i) {  // 2, 4, ... then 60 s at most
    w.probe_failed(f, at);
    pause = std::min(60.0, pause * 2);
    EXPECT_FALSE(w.probe_due(at + pause - 0.01)) << i;
    EXPECT_TRUE(w.probe_due(at + pause)) << i;
    at += pause;
    if (at - 10 > 100) break;
  }
  EXPECT_TRUE(w.expired(111));
  EXPECT_FALSE(w.expired(109));
  EXPECT_DOUBLE_EQ(w.probe_ok(50), 40);
  EXPECT_FALSE(w.waiting());
  EXPECT_FALSE(w.expired(1000)) << "over: nothing to expire";
  EXPECT_EQ(w.last(), f);
}

TEST(StorageFault, ATrialTheStorageKeptFromRunningIsInterruptedNotFailed) {
  TrialRun r;
  r.trial = 3;
  r.storage_fault = StorageFault{ENOSPC, "/d/3", "the trial's files"};
  const Outcome o = classify(r);
  EXPECT_EQ(o.state, TrialState::Interrupted);
  EXPECT_NE(o.message.find("/d/3 is full"), std::string::npos) << o.message;
  // The runner's result carries it to the AppCore (both modes).
  const TrialRun back = wire::run_from_json(wire::to_json(r));
  ASSERT_TRUE(back.storage_fault);
  EXPECT_EQ(*back.storage_fault, *r.storage_fault);
  EXPECT_FALSE(wire::run_from_json(wire::to_json(TrialRun{})).storage_fault);
  // Output it could not keep: the outcome stands (here ok), the fault travels too.
  TrialRun logged;
  logged.exited = true, logged.exit_code = 0, logged.objective = 0.5;
  logged.output_fault = StorageFault{ENOSPC, "/d/4/stdout", "the trial's output"};
  EXPECT_EQ(classify(logged).state, TrialState::Ok);
  EXPECT_EQ(wire::run_from_json(wire::to_json(logged)).output_fault, logged.output_fault);
}

TEST(StorageFault, StatusCountsTheTrialsTheStorageKeptFromRunningAndNamesTheNewest) {
  std::vector<Trial> trials(4);
  for (std::uint64_t i = 0; i < trials.size(); ++i)
    trials[i].id = i, trials[i].end_time = static_cast<double>(i);
  trials[0].state = TrialState::Ok;
  trials[1].state = TrialState::Interrupted, trials[1].message = "interrupted: the study was stopping";
  TrialRun r;
  r.storage_fault = StorageFault{EROFS, "/a", "the trial's files"};
  trials[2].state = TrialState::Interrupted, trials[2].message = classify(r).message;
  r.storage_fault = StorageFault{ENOSPC, "/b", "the trial's files"};
  trials[3].state = TrialState::Interrupted, trials[3].message = classify(r).message;
  const StorageKept kept = storage_kept(trials);
  EXPECT_EQ(kept.trials, 2u);
  EXPECT_EQ(kept.message, describe({ENOSPC, "/b", "the trial's files"}));
  trials[3].state = TrialState::Ok;  // it ran since
  EXPECT_EQ(storage_kept(trials).trials, 1u);
}

TEST_F(StorageStudy, AFullDiskHoldsTheRunnersChargesNothingAndRunsTheTrialAgainFirst) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 6, .max_failures = 2, .storage_wait = 100}, 0);
  study.on_result(ok(*study.next_trial(1, "n", 0), 0.5), 1, "n");
  // Three trials in a row the storage keeps from starting: never a broken program.
  std::uint64_t first_kept = 0;
  for (int i = 0; i < 3; ++i) {
    const Trial t = i == 0 ? *study.next_trial(1, "n", 1) : *study.next_trial(1, "n", 1);
    if (i == 0) first_kept = t.id;
    TrialRun r = ok(t, 0);
    r.objective.reset();
    r.storage_fault = StorageFault{ENOSPC, file("h.trials"), "the trial's files"};
    study.on_result(r, 1, "n");
    EXPECT_FALSE(study.stopping()) << i;
    EXPECT_TRUE(study.storage_waiting());
    // While it waits, no trial is handed out and a runner is held.
    EXPECT_FALSE(study.next_trial(1, "n", 2));
    const auto offer = study.offer_trial(2, "n", 2);
    EXPECT_TRUE(offer.held);
    EXPECT_FALSE(offer.trial);
    // Room again (a probe wrote): the kept trial runs first.
    ASSERT_TRUE(study.storage_probed(std::nullopt, 3 + i));
  }
  EXPECT_EQ(study.count(TrialState::Failed), 0u);
  EXPECT_EQ(study.count(TrialState::Interrupted), 1u) << "one trial, kept three times";
  const Trial again = *study.next_trial(1, "n", 5);
  EXPECT_EQ(again.id, first_kept);
  study.on_result(ok(again, 0.4), 1, "n");
  EXPECT_EQ(h.trials()[first_kept].state, TrialState::Ok);
}

TEST_F(StorageStudy, AStorageThatStaysFullStopsTheStudyNamingItWithItsOwnExitCode) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 6, .storage_wait = 30}, 0);
  TrialRun r = ok(*study.next_trial(1, "n", 0), 0);
  r.objective.reset();
  r.storage_fault = StorageFault{EDQUOT, file("h.trials"), "the trial's files"};
  r.end_time = 1;
  study.on_result(r, 1, "n");
  const StorageFault still{EDQUOT, file("h.trials"), "a probe of its room"};
  EXPECT_FALSE(study.storage_probed(still, 20));
  EXPECT_FALSE(study.stopping());
  EXPECT_FALSE(study.storage_probed(still, 40));
  ASSERT_TRUE(study.stopping());
  EXPECT_EQ(study.stop_reason(), StopReason::Storage);
  EXPECT_NE(study.stop_message().find("quota"), std::string::npos) << study.stop_message();
  EXPECT_NE(study.stop_message().find("--storage-wait"), std::string::npos);
  EXPECT_TRUE(study.finished());
  EXPECT_FALSE(ended_for_good(StopReason::Storage)) << "--resume runs the kept trials";
  EXPECT_EQ(run_end(StopReason::Storage).exit_code, kExitStorage);
  EXPECT_EQ(study.count(TrialState::Failed), 0u);
  // A held runner is told to stop once the study stops.
  EXPECT_FALSE(study.offer_trial(2, "n", 41).held);
}

}  // namespace
}  // namespace tune
