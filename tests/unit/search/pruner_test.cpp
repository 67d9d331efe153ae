// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/pruner.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "search/asha_pruner.hpp"
#include "search/median_pruner.hpp"
#include "search/sampler_registry.hpp"
#include "study/study.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

PrunerOptions asha(bool minimize = true) {
  PrunerOptions o;
  o.rule = "asha";
  o.metric = "loss";
  o.settings = Settings({{"min_resource", 1}, {"reduction_factor", 3}});
  o.minimize = minimize;
  return o;
}

// The worked table (eta = 3, rungs at steps 1, 3, 9). Reports arrive
// interleaved, as from asynchronous runners; each row: trial, step, value,
// whether it is stopped, and why (rung contents after the report).
struct Row {
  std::uint64_t trial;
  std::int64_t step;
  double value;
  bool stop;
};
const Row kTable[] = {
    {0, 1, 5, false},    // rung 0: [5]            keep 1 -> cut 5
    {1, 1, 7, true},     // rung 0: [5 7]          keep 1 -> cut 5
    {0, 2, 4.5, false},  // no rung at step 2
    {2, 1, 3, false},    // rung 0: [5 7 3]        keep 1 -> cut 3
    {0, 3, 4, false},    // rung 1: [4]
    {3, 1, 4, true},     // rung 0: [.. 4]         keep 1 -> cut 3
    {4, 1, 2, false},    // rung 0: 5 values       keep 1 -> cut 2
    {5, 1, 6, true},     // rung 0: 6 values       keep 2 -> cut 3
    {6, 1, 3, false},    // rung 0: 7 values       keep 2 -> cut 3 (ties go on)
    {2, 3, 2.5, false},  // rung 1: [4 2.5]      keep 1 -> cut 2.5
    {4, 2, 2.8, false},  // no rung at step 2
    {4, 3, 3, true},     // rung 1: [4 2.5 3]      keep 1 -> cut 2.5
    {6, 9, 1, false},    // skipped to step 9: rung 1 [4 2.5 3 1] then rung 2 [1]
};

TEST(Asha, WorkedTable) {
  AshaPruner p(asha());
  EXPECT_EQ(p.rung_step(0), 1);
  EXPECT_EQ(p.rung_step(1), 3);
  EXPECT_EQ(p.rung_step(2), 9);
  for (const Row& r : kTable) {
    const auto why = p.report(r.trial, r.step, r.value);
    EXPECT_EQ(why.has_value(), r.stop)
        << "trial " << r.trial << " step " << r.step << (why ? ": " + *why : "");
  }
  EXPECT_EQ(p.rung(0), (std::vector<double>{5, 7, 3, 4, 2, 6, 3}));
  EXPECT_EQ(p.rung(1), (std::vector<double>{4, 2.5, 3, 1}));
  EXPECT_EQ(p.rung(2), (std::vector<double>{1}));
}

TEST(Asha, MaximisingMirrorsMinimising) {
  AshaPruner p(asha(false));
  for (const Row& r : kTable)
    EXPECT_EQ(p.report(r.trial, r.step, -r.value).has_value(), r.stop) << "trial " << r.trial;
}

TEST(Asha, ReasonNamesTheRungAndTheCut) {
  AshaPruner p(asha());
  p.report(0, 1, 5);
  const auto why = p.report(1, 1, 7);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("asha at step 1"), std::string::npos) << *why;
  EXPECT_NE(why->find("loss=7"), std::string::npos) << *why;
  EXPECT_NE(why->find("cut 5"), std::string::npos) << *why;
}

TEST(Asha, ADivergedTrialStopsAtItsNextRung) {
  AshaPruner p(asha());
  EXPECT_TRUE(p.report(0, 1, NAN).has_value());
  EXPECT_TRUE(p.report(1, 1, INFINITY).has_value());
}

TEST(Asha, EachTrialCountsOncePerRung) {
  AshaPruner p(asha());
  p.report(0, 1, 5);
  p.report(0, 1, 9);  // a repeated step-1 report adds nothing
  p.report(0, 2, 9);
  EXPECT_EQ(p.rung(0).size(), 1u);
}

PrunerOptions median(int min_trials) {
  PrunerOptions o;
  o.rule = "median";
  o.metric = "loss";
  o.settings = Settings({{"min_resource", 2}, {"min_trials", min_trials}});
  return o;
}

TEST(Median, StopsWorseThanTheMedianOfFinishedTrials) {
  MedianPruner p(median(2));
  const double a[] = {10, 8, 6, 5}, b[] = {9, 7, 5, 4};
  for (int s = 0; s < 4; ++s) {
    p.report(0, s + 1, a[s]);
    p.report(1, s + 1, b[s]);
  }
  // Only one finished trial so far: not enough to judge.
  p.finished(0, true);
  EXPECT_FALSE(p.report(2, 2, 50));
  p.finished(1, true);
  EXPECT_FALSE(p.report(3, 1, 20)) << "step 1 is before --min-resource";
  EXPECT_TRUE(p.report(3, 2, 9)) << "best 9 by step 2, median of 8 and 7 is 7.5";
  EXPECT_FALSE(p.report(4, 2, 7.5)) << "equal to the median goes on";
  // A pruned trial is not a reference: the median stays 7.5.
  p.finished(3, false);
  EXPECT_FALSE(p.report(4, 3, 5.5)) << "by step 3 the median of 6 and 5 is 5.5";
}

TEST(PrunerOptions, ValidateNamesTheFlag) {
  PrunerOptions o;
  o.rule = "asha";
  try {
    o.validate();
    FAIL() << "no metric accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--prune-metric"), std::string::npos) << e.what();
  }
  o.metric = "loss";
  o.settings.set("reduction_factor", 1);
  EXPECT_THROW(o.validate(), std::invalid_argument);
  o.settings.set("reduction_factor", 3);
  EXPECT_EQ(PrunerOptions::from_json(o.to_json()).to_json(), o.to_json());
  o.rule = "lottery";
  EXPECT_THROW(make_pruner(o), std::invalid_argument);
}

// The study drives the pruner, records pruned trials with the reason, and a
// resumed study rebuilds the pruner from the reports in the history.
class StudyPruning : public testing_support::TempDirTest {};

TEST_F(StudyPruning, PrunedTrialIsRecordedAndResumeRebuildsTheRungs) {
  StudyInfo info;
  info.name = "p";
  info.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  info.pruner = asha();
  const std::string path = file("p.h5");
  auto report = [](std::int64_t step, double loss) {
    Report r;
    r.step = step;
    r.metrics = {{"loss", loss}, {"other", 100}};
    return r;
  };
  auto finish = [](const Trial& t, bool pruned_by_runner) {
    TrialRun r;
    r.trial = t.id;
    r.start_time = t.start_time;
    r.end_time = t.start_time + 1;
    if (pruned_by_runner) {
      r.interrupted = true;  // what TrialProcess marks when it ended the trial on request
      r.exited = false;
      r.signal = 15;
    } else {
      r.exited = true;
      r.exit_code = 0;
      r.objective = 1;
    }
    attribute_to_prune(r, pruned_by_runner);
    return r;
  };
  {
    History h = History::create(path, info);
    auto sampler = make_sampler("random", info.space, {.seed = 1});
    Study study(h, *sampler, {.trials = 10}, 0);
    const auto t0 = *study.next_trial(1, "n", 0);
    EXPECT_FALSE(study.on_report(t0.id, report(1, 5), 0));
    study.on_result(finish(t0, false), 1, "n");
    const auto t1 = *study.next_trial(1, "n", 0);
    EXPECT_TRUE(study.on_report(t1.id, report(1, 7), 0));
    const Trial& rec = study.on_result(finish(t1, true), 1, "n");
    EXPECT_EQ(rec.state, TrialState::Pruned);
    EXPECT_NE(rec.message.find("pruned by asha at step 1"), std::string::npos) << rec.message;
    EXPECT_EQ(study.count(TrialState::Pruned), 1u);
    // A report without the metric or without a step is recorded but not judged.
    const auto t2 = *study.next_trial(1, "n", 0);
    Report no_metric;
    no_metric.step = 1;
    no_metric.metrics = {{"other", 1}};
    EXPECT_FALSE(study.on_report(t2.id, no_metric, 0));
    h.close();  // t2 was running when this run ended
  }
  History h = History::resume(path);
  EXPECT_EQ(h.study().pruner.to_json(), asha().to_json());
  auto sampler = make_sampler("random", info.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 10}, 0);
  const auto again = *study.next_trial(1, "n", 0);
  EXPECT_EQ(again.id, 2u);  // the interrupted trial runs again
  // Rung 0 still holds 5 and 7 from before: 6 is not the best, so it stops.
  EXPECT_TRUE(study.on_report(again.id, report(1, 6), 0));
}

}  // namespace
}  // namespace tune
