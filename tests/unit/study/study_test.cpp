// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/study.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <future>
#include <map>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "tests/unit/study_fixture.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;

using StudyTest = testing_support::OneParameterStudy;
using testing_support::GatedSampler;

TEST(Classify, NamesEachOutcome) {
  TrialRun r;
  r.exited = true;
  r.exit_code = 0;
  r.objective = 0.5;
  EXPECT_EQ(classify(r).state, TrialState::Ok);
  r.objective = std::nan("");
  EXPECT_EQ(classify(r).state, TrialState::Invalid);
  EXPECT_EQ(classify(r).message, "objective is nan");
  r.objective.reset();
  r.bad_report_lines = 2;
  r.first_report_error = "report line 1: 'hello' is not key=value";
  EXPECT_EQ(
      classify(r).message,
      "exited 0 but reported no objective; 2 malformed report line(s), first: report line 1: 'hello' is not "
      "key=value");
  r.exit_code = 3;
  EXPECT_EQ(classify(r).state, TrialState::Failed);
  r.exited = false;
  r.signal = SIGKILL;
  EXPECT_EQ(classify(r).message.substr(0, 17), "killed by SIGKILL");
  r.timed_out = true;
  r.time_limit = 2.5;
  EXPECT_EQ(classify(r).state, TrialState::Timeout);
  EXPECT_EQ(classify(r).message, "exceeded the trial time limit of 2.5 s");
  r.interrupted = true;
  EXPECT_EQ(classify(r).state, TrialState::Interrupted);
}

TEST(AttributeToStop, OnlyUncleanEndsDuringAStopAreInterruptions) {
  TrialRun killed;
  killed.exited = false;
  killed.signal = SIGTERM;
  TrialRun clean;
  clean.exited = true;
  clean.exit_code = 0;
  clean.objective = 1.0;
  TrialRun a = killed, b = killed, c = clean;
  attribute_to_stop(a, false);
  attribute_to_stop(b, true);
  attribute_to_stop(c, true);
  EXPECT_FALSE(a.interrupted);  // no stop: the program's own failure
  EXPECT_TRUE(b.interrupted);
  EXPECT_FALSE(c.interrupted);  // finished cleanly before the stop reached it: keep its result
  EXPECT_EQ(classify(b).state, TrialState::Interrupted);
  EXPECT_EQ(classify(c).state, TrialState::Ok);
}

TEST(AttributeToStop, DeathsThatMayBeAStopNotYetReceived) {
  TrialRun r;
  r.exited = false;
  for (int s : {SIGTERM, SIGKILL, SIGINT}) {
    r.signal = s;
    EXPECT_TRUE(may_have_died_of_the_stop(r)) << s;
  }
  r.signal = SIGSEGV;
  EXPECT_FALSE(may_have_died_of_the_stop(r)) << "a crash is the program's own";
  r.exited = true;
  r.exit_code = 128 + SIGTERM;
  EXPECT_TRUE(may_have_died_of_the_stop(r)) << "a shell that exited after SIGTERM";
  r.exit_code = 1;
  EXPECT_FALSE(may_have_died_of_the_stop(r));
  r.exit_code = 0;
  EXPECT_FALSE(may_have_died_of_the_stop(r));
  // Ended by its own runner: the runner knows why, nothing to wait for.
  for (auto flag : {&TrialRun::interrupted, &TrialRun::pruned, &TrialRun::timed_out}) {
    TrialRun k;
    k.exited = false;
    k.signal = SIGTERM;
    k.*flag = true;
    EXPECT_FALSE(may_have_died_of_the_stop(k));
  }
}

TEST(AttributeToStop, ADeathBySigusr1MayBeTheDrain) {
  TrialRun r;
  r.exited = false;
  r.signal = SIGUSR1;
  EXPECT_TRUE(may_have_died_of_the_drain(r));
  EXPECT_FALSE(may_have_died_of_the_stop(r));
  r.exited = true;
  r.exit_code = 128 + SIGUSR1;
  EXPECT_TRUE(may_have_died_of_the_drain(r)) << "a shell that exited after SIGUSR1";
  r.exit_code = 128 + SIGTERM;
  EXPECT_FALSE(may_have_died_of_the_drain(r));
  r.exited = false;
  r.signal = SIGUSR1;
  r.interrupted = true;  // its runner ended it: nothing to wait for
  EXPECT_FALSE(may_have_died_of_the_drain(r));
}

TEST(AttributeToStop, WhileDrainingOnlyADeathBySigusr1IsTheStudys) {
  TrialRun usr1;
  usr1.exited = false;
  usr1.signal = SIGUSR1;
  TrialRun segv = usr1;
  segv.signal = SIGSEGV;
  TrialRun a = usr1, b = usr1, c = segv;
  attribute_to_stop(a, false, false);
  attribute_to_stop(b, false, true);
  attribute_to_stop(c, false, true);
  EXPECT_FALSE(a.interrupted) << "no drain: SIGUSR1 came from elsewhere, the program's failure";
  EXPECT_TRUE(b.interrupted);
  EXPECT_FALSE(c.interrupted) << "a crash while draining is the program's own";
  EXPECT_EQ(classify(b).state, TrialState::Interrupted);
}

TEST_F(StudyTest, RunsExactlyTheRequestedTrialsAndTracksTheBest) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 5}, 0);
  std::vector<Trial> out;
  while (auto t = study.next_trial(1, "n1", 0)) out.push_back(*t);
  EXPECT_EQ(out.size(), 5u);  // handed out at once to parallel runners
  EXPECT_FALSE(study.finished());
  for (const auto& t : out) study.on_result(ok(t, std::get<double>(t.params[0])), 1, "n1");
  EXPECT_TRUE(study.finished());
  EXPECT_EQ(study.stop_reason(), StopReason::TrialsDone);
  double lowest = 1;
  for (const auto& t : out) lowest = std::min(lowest, std::get<double>(t.params[0]));
  EXPECT_DOUBLE_EQ(*study.best()->objective, lowest);
  EXPECT_EQ(study.count(TrialState::Ok), 5u);
}

// A sampler whose note changes at trials 2 and 4: the study hands each
// change on once, so the driver prints it once.
class NotingSampler final : public Sampler {
 public:
  std::string_view name() const override { return "noting"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment>) override {
    last_ = trial;
    return Assignment{0.5};
  }
  std::string note() const override { return last_ < 2 ? "" : last_ < 4 ? "switched" : "back"; }

 private:
  std::uint64_t last_ = 0;
};

TEST_F(StudyTest, HandsOnEachChangeOfTheSamplersNoteOnce) {
  auto h = History::create(path(), info_);
  NotingSampler sampler;
  Study study(h, sampler, {.trials = 6}, 0);
  std::vector<std::optional<std::string>> news;
  while (study.next_trial(1, "n1", 0)) news.push_back(study.take_sampler_news());
  ASSERT_EQ(news.size(), 6u);
  EXPECT_FALSE(news[0]) << "an empty note at the start is no news";
  EXPECT_FALSE(news[1]);
  EXPECT_EQ(news[2], "switched");
  EXPECT_FALSE(news[3]);
  EXPECT_EQ(news[4], "back");
  EXPECT_FALSE(news[5]);
}

// Lets the model's proposal finish and takes it.
std::optional<Study::Collected> finish_proposal(GatedSampler& model, Study& study) {
  model.release();
  study.await_proposal(60);
  return study.collect(0);
}

TEST_F(StudyTest, ARunnerNeverWaitsBehindAnotherRunnersCostlyProposal) {
  auto h = History::create(path(), info_);
  GatedSampler model;
  auto stand_in = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, model, {.trials = 3}, 0, stand_in.get());
  const auto first = study.offer_trial(1, "n1", 0);  // trial 0: cheap, at once
  ASSERT_TRUE(first.trial);
  EXPECT_EQ(first.trial->params, Assignment{0.25});
  const auto costly = study.offer_trial(2, "n1", 0);
  EXPECT_TRUE(costly.wait) << "rank 2 waits for the model's proposal";
  EXPECT_FALSE(costly.trial);
  EXPECT_TRUE(study.proposing());
  EXPECT_FALSE(study.collect(0));
  // Rank 3 asks while the model works for rank 2: the stand-in answers now.
  const auto quick = study.offer_trial(3, "n2", 0);
  ASSERT_TRUE(quick.trial);
  EXPECT_NE(quick.trial->params, Assignment{0.25});
  EXPECT_EQ(study.stand_in_trials(), 1u);
  // A result while the model works reaches it only once it has proposed.
  study.on_result(ok(*first.trial, 1.0), 1, "n1");
  EXPECT_EQ(model.observed, 0);
  // One slot is left and the model's proposal holds it: nothing for rank 1.
  const auto none = study.offer_trial(1, "n1", 0);
  EXPECT_FALSE(none.trial);
  EXPECT_FALSE(none.wait);
  const auto done = finish_proposal(model, study);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->rank, 2);
  ASSERT_TRUE(done->trial);
  EXPECT_EQ(done->trial->params, Assignment{0.25});
  EXPECT_EQ(done->trial->host, "n1");
  EXPECT_EQ(model.observed, 1);
  EXPECT_FALSE(study.proposing());
  // Three trials in all, ids in the order they were handed out.
  EXPECT_EQ(first.trial->id, 0u);
  EXPECT_EQ(quick.trial->id, 1u);
  EXPECT_EQ(done->trial->id, 2u);
  EXPECT_EQ(study.running(), 2u);
  EXPECT_EQ(h.trials().size(), 3u);
}

// What each trial's proposal knew reaches the model with its result: the
// results given to the samplers when it was proposed, a result held back
// while the model worked among them once the stand-in has seen it.
TEST_F(StudyTest, EachResultSaysWhatItsProposalKnew) {
  auto h = History::create(path(), info_);
  GatedSampler model;
  auto stand_in = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, model, {.trials = 4}, 0, stand_in.get());
  const auto t0 = *study.offer_trial(1, "n1", 0).trial;  // cheap: knew nothing
  ASSERT_TRUE(study.offer_trial(2, "n1", 0).wait);       // the model starts from 0 results
  const auto t1 = *study.offer_trial(3, "n2", 0).trial;  // the stand-in, 0 results
  study.on_result(ok(t0, 1.0), 1, "n1");                 // held from the model
  const auto t2 = *study.offer_trial(1, "n1", 0).trial;  // the stand-in, 1 result
  const auto done = finish_proposal(model, study);
  ASSERT_TRUE(done && done->trial);
  const auto t3 = *done->trial;
  EXPECT_EQ(std::vector<std::uint64_t>({t0.id, t1.id, t2.id, t3.id}),
            std::vector<std::uint64_t>({0, 1, 2, 3}));
  study.on_result(ok(t3, 2.0), 2, "n1");
  study.on_result(crashed(t1), 3, "n2");
  study.on_result(ok(t2, 3.0), 1, "n1");
  using Known = std::vector<std::pair<std::uint64_t, std::optional<std::size_t>>>;
  EXPECT_EQ(model.known, (Known{{0, 0}, {3, 0}, {1, 0}, {2, 1}}))
      << "trial 3 was proposed from no result although trial 0's came before it was handed out; a failed "
         "trial "
         "is no result";
}

// A resumed study gives its sampler the finished trials in the order they
// finished, each saying what its proposal knew (the results finished when
// it started), as the study before the stop did.
TEST_F(StudyTest, ResumeReplaysResultsInTheOrderTheyCameWithWhatEachKnew) {
  class Recording final : public Sampler {
   public:
    std::string_view name() const override { return "recording"; }
    std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment>) override {
      return Assignment{0.1 * static_cast<double>(trial)};
    }
    void observe(const Observation& o) override { seen.emplace_back(o.trial, o.known); }
    std::vector<std::pair<std::uint64_t, std::optional<std::size_t>>> seen;
  };
  const auto result = [](const Trial& t, double y, double end) {
    TrialRun r = ok(t, y);
    r.end_time = end;
    return r;
  };
  Recording live;
  {
    auto h = History::create(path(), info_);
    Study study(h, live, {.trials = 5}, 0);
    const auto a = *study.next_trial(1, "n", 1), b = *study.next_trial(2, "n", 1),
               c = *study.next_trial(3, "n", 1);
    study.on_result(result(b, 0.5, 2), 2, "n");
    const auto d = *study.next_trial(2, "n", 2.5);
    study.on_result(result(c, 0.4, 3), 3, "n");
    const auto e = *study.next_trial(3, "n", 3.5);
    study.on_result(result(d, 0.3, 4), 2, "n");
    study.on_result(result(a, 0.2, 5), 1, "n");
    (void)e;  // still running when the driver dies
  }
  using Seen = std::vector<std::pair<std::uint64_t, std::optional<std::size_t>>>;
  ASSERT_EQ(live.seen, (Seen{{1, 0}, {2, 0}, {3, 1}, {0, 0}}));
  auto h = History::resume(path());
  Recording resumed;
  Study study(h, resumed, {.trials = 5}, 100);
  EXPECT_EQ(resumed.seen, live.seen);
  const auto e = *study.next_trial(1, "n", 100);  // run again
  ASSERT_EQ(e.id, 4u);
  study.on_result(ok(e, 0.1), 1, "n");
  EXPECT_EQ(resumed.seen.back(), (std::pair<std::uint64_t, std::optional<std::size_t>>{4, 2}))
      << "proposed when trials 1 and 2 had finished";
}

TEST_F(StudyTest, AStopWhileTheModelProposesTellsTheWaitingRunnerToStop) {
  auto h = History::create(path(), info_);
  GatedSampler model;
  auto stand_in = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, model, {.trials = 10}, 0, stand_in.get());
  ASSERT_TRUE(study.offer_trial(1, "n1", 0).trial);
  ASSERT_TRUE(study.offer_trial(2, "n1", 0).wait);
  study.stop(StopReason::Signal);
  EXPECT_FALSE(study.finished()) << "a runner still waits for its answer";
  const auto done = finish_proposal(model, study);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->rank, 2);
  EXPECT_FALSE(done->trial);
  EXPECT_EQ(h.trials().size(), 1u) << "nothing recorded for the proposal nobody runs";
}

// With one runner the model proposes every trial, whichever stand-in waits
// beside it: the registry's (a second tpe) or bayes's own companion.
TEST_F(StudyTest, OneRunnerAlwaysGetsTheModelsProposal) {
  for (const bool own : {false, true}) {
    SCOPED_TRACE(own ? "bayes's own companion" : "the registry's stand-in");
    auto h = History::create(file(own ? "own.h5" : "h.h5"), info_);
    auto model = make_sampler("bayes", info_.space, {.seed = 5});
    std::unique_ptr<Sampler> made;
    Sampler* stand_in =
        own ? model->own_stand_in() : (made = make_stand_in("bayes", info_.space, {.seed = 5})).get();
    ASSERT_TRUE(stand_in);
    EXPECT_EQ(stand_in->name(), "tpe");
    Study study(h, *model, {.trials = 12}, 0, stand_in);
    // The same study with next_trial(): the same trials, one runner being reproducible.
    auto h2 = History::create(file(own ? "own2.h5" : "h2.h5"), info_);
    auto model2 = make_sampler("bayes", info_.space, {.seed = 5});
    Study sync(h2, *model2, {.trials = 12}, 0);
    for (int i = 0; i < 12; ++i) {
      auto offer = study.offer_trial(1, "n1", 0);
      if (offer.wait) {
        study.await_proposal(60);
        auto done = study.collect(0);
        ASSERT_TRUE(done && done->trial);
        offer.trial = done->trial;
      }
      ASSERT_TRUE(offer.trial);
      const auto expected = sync.next_trial(1, "n1", 0);
      ASSERT_TRUE(expected);
      EXPECT_EQ(offer.trial->params, expected->params) << "trial " << i;
      const double x = std::get<double>(offer.trial->params[0]);
      study.on_result(ok(*offer.trial, (x - 0.3) * (x - 0.3)), 1, "n1");
      sync.on_result(ok(*expected, (x - 0.3) * (x - 0.3)), 1, "n1");
    }
    EXPECT_EQ(study.stand_in_trials(), 0u);
    EXPECT_TRUE(study.finished());
  }
  EXPECT_FALSE(make_stand_in("random", info_.space, {})) << "random's proposals are never costly";
  std::unique_ptr<Sampler> made;
  auto random = make_sampler("random", info_.space, {});
  EXPECT_FALSE(stand_in_for(*random, "random", info_.space, {}, made));
  auto bayes = make_sampler("bayes", info_.space, {.seed = 5});
  EXPECT_EQ(stand_in_for(*bayes, "bayes", info_.space, {}, made), bayes->own_stand_in());
  EXPECT_FALSE(made) << "no second tpe beside bayes";
}

// Bayes lends its companion while its model proposes on the worker: the
// stand-in proposes and learns on the loop's thread meanwhile, and every
// trial is recorded once.
TEST_F(StudyTest, BayesOwnStandInProposesWhileTheModelWorks) {
  auto h = History::create(path(), info_);
  auto model = make_sampler("bayes", info_.space, {.seed = 7});
  Study study(h, *model, {.trials = 40}, 0, model->own_stand_in());
  std::map<int, Trial> running;
  int waiting = 0;  // the rank the model proposes for
  int recorded = 0;
  while (!study.finished()) {
    for (int rank = 1; rank <= 3; ++rank) {
      if (running.count(rank) || rank == waiting) continue;
      const auto offer = study.offer_trial(rank, "n1", 0);
      if (offer.trial) running[rank] = *offer.trial;
      if (offer.wait) waiting = rank;
    }
    if (auto done = study.collect(0)) {
      EXPECT_EQ(done->rank, waiting);
      waiting = 0;
      if (done->trial) running[done->rank] = *done->trial;
    }
    // One result per turn, while the model may still be proposing.
    if (!running.empty()) {
      const auto it = running.begin();
      const double x = std::get<double>(it->second.params[0]);
      study.on_result(ok(it->second, (x - 0.3) * (x - 0.3)), it->first, "n1");
      running.erase(it);
      ++recorded;
    } else {
      study.await_proposal(60);
    }
  }
  EXPECT_EQ(recorded, 40);
  EXPECT_EQ(study.count(TrialState::Ok), 40u);
  for (const auto& t : h.trials()) {
    const double x = std::get<double>(t.params[0]);
    EXPECT_TRUE(x >= 0 && x <= 1) << "trial " << t.id;
  }
}

TEST_F(StudyTest, StopsAtTheTargetInTheStudysDirection) {
  info_.minimize = false;
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 100, .target = 0.95}, 0);
  const auto a = *study.next_trial(1, "n", 0);
  study.on_result(ok(a, 0.9), 1, "n");
  EXPECT_FALSE(study.stopping());
  const auto b = *study.next_trial(1, "n", 0);
  study.on_result(ok(b, 0.96), 1, "n");
  EXPECT_EQ(study.stop_reason(), StopReason::TargetReached);
  EXPECT_FALSE(study.next_trial(1, "n", 0));
}

TEST_F(StudyTest, ReachingTheTargetWhileDrainingEndsTheStudyForGood) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 100, .target = 0.1}, 0);
  const auto a = *study.next_trial(1, "n", 0);
  const auto b = *study.next_trial(2, "n", 0);
  study.stop(StopReason::Signal);  // a yield: running trials may finish
  study.on_result(ok(a, 0.5), 1, "n");
  EXPECT_EQ(study.stop_reason(), StopReason::Signal) << "not there yet: come back later";
  study.on_result(ok(b, 0.05), 2, "n");
  EXPECT_EQ(study.stop_reason(), StopReason::TargetReached) << "done: no requeue needed";
  EXPECT_TRUE(study.finished());
}

// Results that climb, then tie at a ceiling (accuracy on a few hundred examples).
double plateau(std::uint64_t i) {
  static const double climb[] = {0.5, 0.7, 0.8, 0.85};
  return i < 4 ? climb[i] : 0.9;
}

TEST_F(StudyTest, ConvergedEndsAStudyAtItsCeilingForGoodAndSaysWhy) {
  info_.minimize = false;
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 100, .converged = ConvergenceRule{0.01}}, 0);
  std::uint64_t ran = 0;
  while (const auto t = study.next_trial(1, "n", 0)) study.on_result(ok(*t, plateau(ran++)), 1, "n");
  EXPECT_EQ(study.stop_reason(), StopReason::Converged);
  EXPECT_TRUE(ended_for_good(StopReason::Converged));
  EXPECT_LT(ran, 20u) << "a study tied at its ceiling ends well before its 100 trials";
  EXPECT_GE(ran, 5u) << "not before the tail estimator judges";
  EXPECT_TRUE(
      study.stop_message().starts_with("converged: the " + std::to_string(100 - ran) + " trials left"))
      << study.stop_message();
  EXPECT_EQ(study.remaining(), 0u);
  EXPECT_EQ(*study.best()->objective, 0.9);
  // Its history says how it ended; a resume that does not continue it keeps that.
  EXPECT_FALSE(h.close_ended(study.stop_message()));
  EXPECT_EQ(read_history(path()).study.ended, study.stop_message());
  auto again = History::resume(path());
  EXPECT_EQ(again.study().ended, study.stop_message());
  auto sampler2 = make_sampler("random", info_.space, {.seed = 1});
  Study resumed(again, *sampler2, {.trials = 100, .converged = ConvergenceRule{0.01}}, 0);
  EXPECT_EQ(resumed.stop_reason(), StopReason::Converged) << "the same budget: nothing to run";
  again.close();
  // A run that continues it (every check passed: here a larger budget) drops it.
  const auto claim = WriterClaim::take(path());
  auto on = History::resume(path(), 200, claim, true);
  EXPECT_EQ(on.study().ended, "");
  on.close();
  EXPECT_EQ(read_history(path()).study.ended, "");
}

TEST_F(StudyTest, ConvergedLeavesAStudyThatStillImprovesAndOneWithout) {
  info_.minimize = false;
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study improving(h, *sampler, {.trials = 100, .converged = ConvergenceRule{0.01}}, 0);
  for (int i = 0; i < 30; ++i)
    improving.on_result(ok(*improving.next_trial(1, "n", 0), 0.5 + 0.01 * i), 1, "n");
  EXPECT_FALSE(improving.stopping()) << improving.stop_message();
  h.close();
  fs::remove(path());
  auto h2 = History::create(path(), info_);
  auto sampler2 = make_sampler("random", info_.space, {.seed = 1});
  Study without(h2, *sampler2, {.trials = 100}, 0);
  for (std::uint64_t i = 0; i < 30; ++i)
    without.on_result(ok(*without.next_trial(1, "n", 0), plateau(i)), 1, "n");
  EXPECT_FALSE(without.stopping()) << "no --converged: the budget runs";
}

TEST_F(StudyTest, AFailingTrialIsAnOutcomeButABrokenProgramStopsTheStudy) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 100, .max_failures = 3}, 0);
  study.on_result(crashed(*study.next_trial(1, "n", 0)), 1, "n");
  study.on_result(crashed(*study.next_trial(1, "n", 0)), 1, "n");
  study.on_result(ok(*study.next_trial(1, "n", 0), 1.0), 1, "n");  // resets the count
  for (int i = 0; i < 3; ++i) study.on_result(crashed(*study.next_trial(1, "n", 0)), 1, "n");
  EXPECT_EQ(study.stop_reason(), StopReason::TooManyFailures);
  EXPECT_NE(study.stop_message().find("the last 3 trials all failed"), std::string::npos);
  EXPECT_EQ(study.count(TrialState::Failed), 5u);
  EXPECT_EQ(h.trials()[0].message, "killed by SIGSEGV");
}

TEST_F(StudyTest, ResumeKeepsDoneTrialsAndRerunsInterruptedOnes) {
  Assignment interrupted_params;
  {
    auto h = History::create(path(), info_);
    auto sampler = make_sampler("random", info_.space, {.seed = 3});
    Study study(h, *sampler, {.trials = 4}, 0);
    const auto a = *study.next_trial(1, "n", 0);
    const auto b = *study.next_trial(2, "n", 0);
    const auto c = *study.next_trial(3, "n", 0);
    study.on_result(ok(a, 0.3), 1, "n");
    study.stop(StopReason::Signal);
    TrialRun r = ok(b, 0);
    r.interrupted = true;
    study.on_result(r, 2, "n");
    interrupted_params = b.params;
    (void)c;  // c stays "running": the driver died before it ended
    EXPECT_TRUE(study.finished() == false);
  }
  auto h = History::resume(path());
  auto sampler = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, *sampler, {.trials = 4}, 100);
  const auto first = *study.next_trial(1, "n", 100);
  EXPECT_EQ(first.id, 1u);
  EXPECT_EQ(first.params, interrupted_params);
  EXPECT_EQ(study.next_trial(1, "n", 100)->id, 2u);
  EXPECT_EQ(study.next_trial(1, "n", 100)->id, 3u);  // a new trial, from where the sampler left off
  EXPECT_FALSE(study.next_trial(1, "n", 100));
  EXPECT_EQ(h.trials()[0].state, TrialState::Ok);  // kept, not run again
}

TEST_F(StudyTest, ALostTrialRunsAgainFirstUnlessItWasItsOwnFault) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, *sampler, {.trials = 4, .max_failures = 0}, 0);
  EXPECT_EQ(study.remaining(), 4u);
  const auto a = *study.next_trial(0, "n1", 0);
  const auto b = *study.next_trial(0, "n2", 0);
  EXPECT_EQ(study.remaining(), 2u);
  study.on_lost(a.id, TrialState::Interrupted, "trial job 7 ended NODE_FAIL; run again", 5);
  EXPECT_EQ(h.trials()[a.id].state, TrialState::Interrupted);
  EXPECT_EQ(h.trials()[a.id].message, "trial job 7 ended NODE_FAIL; run again");
  EXPECT_EQ(study.remaining(), 3u);
  const auto again = *study.next_trial(0, "n3", 6);
  EXPECT_EQ(again.id, a.id) << "re-run first, with the same parameters";
  EXPECT_EQ(again.params, a.params);
  study.on_lost(b.id, TrialState::Timeout, "trial job 8 ended TIMEOUT", 7);
  EXPECT_EQ(h.trials()[b.id].state, TrialState::Timeout);
  EXPECT_EQ(study.remaining(), 2u) << "a timeout is the trial's outcome: not run again";
  study.on_lost(99, TrialState::Interrupted, "not running", 8);  // unknown: ignored
  EXPECT_EQ(study.running(), 1u);
}

TEST_F(StudyTest, AdoptingATrialLeftRunningKeepsItFromRunningTwice) {
  {
    auto h = History::create(path(), info_);
    auto sampler = make_sampler("random", info_.space, {.seed = 3});
    Study study(h, *sampler, {.trials = 3}, 0);
    (void)study.next_trial(0, "n", 0);
    (void)study.next_trial(0, "n", 0);  // both left running: the AppCore was killed
  }
  auto h = History::resume(path());
  auto sampler = make_sampler("random", info_.space, {.seed = 3});
  Study study(h, *sampler, {.trials = 3}, 10);
  EXPECT_EQ(study.remaining(), 3u);
  EXPECT_TRUE(study.adopt(1)) << "its trial job still runs it";
  EXPECT_FALSE(study.adopt(1));
  EXPECT_FALSE(study.adopt(2)) << "never handed out";
  EXPECT_EQ(study.remaining(), 2u);
  EXPECT_EQ(study.next_trial(0, "n", 10)->id, 0u) << "the other one runs again";
  EXPECT_EQ(study.next_trial(0, "n", 10)->id, 2u);
  EXPECT_FALSE(study.next_trial(0, "n", 10));
  study.on_result(ok(h.trials()[1], 0.5), 0, "n");
  EXPECT_EQ(h.trials()[1].state, TrialState::Ok);
  EXPECT_EQ(study.running_ids(), (std::vector<std::uint64_t>{0, 2}));
}

TEST_F(StudyTest, GridEndsWhenExhausted) {
  info_.space =
      SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "number", "value": [1, 2, 3]}]})");
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("grid", info_.space, {});
  Study study(h, *sampler, {}, 0);
  int n = 0;
  while (auto t = study.next_trial(1, "n", 0)) {
    study.on_result(ok(*t, 1.0), 1, "n");
    ++n;
  }
  EXPECT_EQ(n, 3);
  EXPECT_EQ(study.stop_reason(), StopReason::SpaceExhausted);
  EXPECT_TRUE(study.finished());
}

TEST_F(StudyTest, TimeLimitStopsDispatching) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("random", info_.space, {});
  Study study(h, *sampler, {.time_limit = 10}, 1000);
  EXPECT_TRUE(study.next_trial(1, "n", 1005));
  EXPECT_FALSE(study.next_trial(1, "n", 1011));
  EXPECT_EQ(study.stop_reason(), StopReason::TimeLimit);
}

}  // namespace
}  // namespace tune
