// SPDX-License-Identifier: GPL-2.0-or-later
// A study's progress record built from its trials (lib/estimators/study_progress).
#include "estimators/study_progress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/tail_estimate.hpp"
#include "estimators/yield_level.hpp"
#include "priority/job_summary.hpp"
#include "priority/policy_config.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority/study_tracker.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

using testing_support::fast;

const Resources kCluster{16, 8000, 0};

TEST(StudyProgress, RecordHoldsFinishedResultsBestFirstAndAParsableKey) {
  std::vector<Trial> trials;
  auto add = [&](TrialState st, std::optional<double> v) {
    Trial t;
    t.id = trials.size(), t.state = st, t.objective = v;
    trials.push_back(t);
  };
  for (double v : {0.5, 0.2, 0.9, 0.1}) add(TrialState::Ok, v);
  add(TrialState::Failed, std::nullopt);
  add(TrialState::Running, std::nullopt);
  add(TrialState::Ok, std::nan(""));
  const auto key = study_key("my study/1", "/data/runs/s.h5");
  EXPECT_EQ(key.rfind("my_study_1-", 0), 0u) << key;
  EXPECT_EQ(key, study_key("my study/1", "/data/runs/./s.h5")) << "same file, same key";
  EXPECT_NE(key, study_key("my study/1", "/data/runs/t.h5"));
  const auto r = progress_of(key, trials, true, {}, 3);
  EXPECT_EQ(r.trials, 4);
  EXPECT_EQ(r.top, (std::vector<double>{0.1, 0.2, 0.5}));
  const auto back = parse_progress(format_progress(r));
  ASSERT_TRUE(back) << format_progress(r);
  EXPECT_EQ(back->study, key);
  EXPECT_EQ(progress_of(key, trials, false, {}, 2).top, (std::vector<double>{0.9, 0.5}));
}

TEST(StudyProgress, RecordCarriesTheTargetAndTheTrialsTheBudgetHasLeft) {
  std::vector<Trial> trials;
  for (TrialState st : {TrialState::Ok, TrialState::Failed, TrialState::Ok, TrialState::Running,
                        TrialState::Interrupted, TrialState::Pruned}) {
    Trial t;
    t.id = trials.size(), t.state = st;
    if (st == TrialState::Ok) t.objective = 0.5 + 0.1 * static_cast<double>(t.id);
    trials.push_back(t);
  }
  const auto r = progress_of("k", trials, false, {0.93, 30});
  EXPECT_EQ(r.target, 0.93);
  EXPECT_EQ(r.left, 26)
      << "ok, failed and pruned trials used the budget; running and interrupted ones not yet";
  EXPECT_EQ(progress_of("k", trials, false, {std::nullopt, 3}).left, 0) << "never below 0";
  EXPECT_FALSE(progress_of("k", trials, false).left);
  EXPECT_EQ(parse_progress(format_progress(r)), r);
}

}  // namespace
}  // namespace tune
