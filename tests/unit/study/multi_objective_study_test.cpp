// SPDX-License-Identifier: GPL-2.0-or-later
// A study of several objectives (lib/study): the history's values, the
// study's front and its targets.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <numeric>
#include <random>

#include "command/objective_flags.hpp"
#include "history/history.hpp"
#include "search/pareto.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "search/scalarised_sampler.hpp"
#include "study/front.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

class MultiObjectiveStudy : public testing_support::TempDirTest {
 protected:
  StudyInfo info() const {
    StudyInfo s;
    s.name = "mo";
    s.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
    s.objectives = {{"loss", true}, {"acc", false}};
    s.minimize = true;
    s.created = "2026-11-24T00:00:00Z";
    s.tune_version = "test";
    return s;
  }
  static TrialRun ended(const Trial& t) {
    TrialRun r;
    r.trial = t.id;
    r.exited = true;
    r.exit_code = 0;
    r.start_time = t.start_time;
    r.end_time = t.start_time + 1;
    return r;
  }
};

TEST_F(MultiObjectiveStudy, ValuesComeFromNamedReportsAndTheAnswerIsTheFront) {
  auto h = History::create(file("mo.h5"), info());
  auto sampler = make_sampler("random", h.study().space, {.seed = 1});
  Study study(h, *sampler, {.trials = 5}, 0);
  const std::vector<std::pair<double, double>> results = {{0.5, 0.8}, {0.3, 0.6}, {0.6, 0.7}, {0.2, 0.9}};
  for (const auto& [loss, acc] : results) {
    const auto t = study.next_trial(1, "n1", 0);
    ASSERT_TRUE(t);
    study.on_report(t->id, {.step = 1, .metrics = {{"loss", 9.0}, {"acc", 0.0}}, .objective = {}}, 0);
    study.on_report(t->id, {.step = {}, .metrics = {{"loss", loss}, {"acc", acc}}, .objective = {}},
                    0);  // the last counts
    EXPECT_EQ(study.on_result(ended(*t), 1, "n1").state, TrialState::Ok);
  }
  // A trial that reports only one of the two is invalid and says which is missing.
  const auto t = study.next_trial(1, "n1", 0);
  study.on_report(t->id, {.step = {}, .metrics = {{"loss", 0.1}}, .objective = {}}, 0);
  const Trial& bad = study.on_result(ended(*t), 1, "n1");
  EXPECT_EQ(bad.state, TrialState::Invalid);
  EXPECT_EQ(bad.message, "exited 0 but reported no acc (the study's objectives: report each as name=value)");
  EXPECT_FALSE(study.best());
  std::vector<std::uint64_t> front;
  for (const auto& f : study.front()) front.push_back(f.id);
  // (0.5, 0.8) and (0.3, 0.6) are beaten by (0.2, 0.9); (0.6, 0.7) too.
  EXPECT_EQ(front, (std::vector<std::uint64_t>{3}));
  h.close();
  const auto snap = read_history(file("mo.h5"));
  ASSERT_EQ(snap.study.objectives.size(), 2u);
  EXPECT_FALSE(snap.study.objectives[1].minimize);
  EXPECT_EQ(snap.trials[3].values, (std::vector<double>{0.2, 0.9}));
  EXPECT_TRUE(snap.trials[4].values.empty());
  EXPECT_EQ(pareto_trials(snap.study, snap.trials).size(), 1u);
}

TEST_F(MultiObjectiveStudy, TheFrontKeptAsResultsComeIsTheFrontOfAllTrials) {
  // 300 results on a coarse grid (ties and equal points), one objective
  // maximised; the study's front, kept per result, against the front of all
  // trials computed afresh, after every result and again on resume.
  auto h = History::create(file("f.h5"), info());
  auto sampler = make_sampler("random", h.study().space, {.seed = 1});
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> grid(0, 12);
  auto ids = [](const std::vector<Trial>& trials) {
    std::vector<std::uint64_t> out;
    for (const auto& t : trials) out.push_back(t.id);
    return out;
  };
  {
    Study study(h, *sampler, {.trials = 300}, 0);
    for (int k = 0; k < 300; ++k) {
      const auto t = study.next_trial(1, "n1", 0);
      ASSERT_TRUE(t);
      const int a = grid(rng);  // a trade-off: a lower loss comes with a lower accuracy, give or take
      if (k % 7 != 3)           // some trials report nothing: invalid, never on the front
        study.on_report(t->id,
                        {.step = {},
                         .metrics = {{"loss", a / 12.0}, {"acc", (a + grid(rng) % 3) / 14.0}},
                         .objective = {}},
                        0);
      study.on_result(ended(*t), 1, "n1");
      ASSERT_EQ(ids(study.front()), ids(pareto_trials(h.study(), h.trials()))) << "after trial " << t->id;
    }
    EXPECT_GE(study.front().size(), 5u);
  }
  Study resumed(h, *sampler, {.trials = 300}, 0);
  EXPECT_EQ(ids(resumed.front()), ids(pareto_trials(h.study(), h.trials())));
}

TEST_F(MultiObjectiveStudy, WarmStartsNeedTheSameObjectives) {
  HistorySnapshot old;
  old.study = info();
  EXPECT_NO_THROW(import_trials(old, "old.h5", old.study.space, true, old.study.objectives));
  try {
    import_trials(old, "old.h5", old.study.space, true, {{"loss", true}, {"acc", true}});
    FAIL();
  } catch (const WarmStartError& e) {
    EXPECT_STREQ(e.what(),
                 "--warm-start old.h5: that study's objectives (loss,acc, min,max) differ from this one's "
                 "(loss,acc, min,min); its results would mislead the search");
  }
  EXPECT_THROW(import_trials(old, "old.h5", old.study.space, true), WarmStartError);  // one objective= now
}

TEST_F(MultiObjectiveStudy, TargetsAreMetWhenOneTrialMeetsThemAll) {
  auto h = History::create(file("t.h5"), info());
  auto sampler = make_sampler("random", h.study().space, {.seed = 1});
  Study study(h, *sampler, {.trials = 10, .target = {}, .targets = {0.3, 0.8}}, 0);
  for (const auto& [loss, acc] :
       std::vector<std::pair<double, double>>{{0.2, 0.7}, {0.4, 0.9}, {0.3, 0.85}}) {
    EXPECT_FALSE(study.stopping());
    const auto t = study.next_trial(1, "n1", 0);
    study.on_report(t->id, {.step = {}, .metrics = {{"loss", loss}, {"acc", acc}}, .objective = {}}, 0);
    study.on_result(ended(*t), 1, "n1");
  }
  EXPECT_EQ(study.stop_reason(), StopReason::TargetReached);
}

}  // namespace
}  // namespace tune
