// SPDX-License-Identifier: GPL-2.0-or-later
// The seams a multi-fidelity or population search stands on, through a real
// Study and its history: the sampler reads every intermediate report (live,
// and replayed on resume), names the trial whose checkpoint a new trial
// starts from (kept in the history as its lineage), and keeps a finished
// trial's checkpoint for as long as it may still start one from it.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/study.hpp"
#include "tests/unit/study_fixture.hpp"

namespace tune {
namespace {

using LineageStudy = testing_support::OneParameterStudy;

// Each trial after the first starts from the one before; only the newest
// finished trial's checkpoint is needed.
class ChainSampler final : public Sampler {
 public:
  std::string_view name() const override { return "chain"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment>) override {
    return Assignment{0.1 * static_cast<double>(trial % 10)};
  }
  void observe(const Observation& o) override { newest = o.trial; }
  void observe_progress(const Progress& p) override { seen.push_back(p); }
  Lineage lineage(std::uint64_t trial) override {
    if (trial == 0) return {};
    return {trial == 7 ? trial + 1 : trial - 1, 0,
            static_cast<std::int64_t>(trial) + 2};  // 7 names a later trial: refused
  }
  void proposed(std::uint64_t id, const Assignment&, const Lineage& l) override { lineages[id] = l; }
  bool needs_checkpoint(std::uint64_t trial) const override { return newest && trial == *newest; }
  std::optional<std::uint64_t> newest;
  std::vector<Progress> seen;
  std::map<std::uint64_t, Lineage> lineages;
};

Report at(std::int64_t step, double objective) {
  return {.step = step, .metrics = {}, .objective = objective};
}

TEST_F(LineageStudy, TheSamplerReadsEveryReportLiveAndTheSameOnResume) {
  {
    auto h = History::create(path(), info_);
    ChainSampler sampler;
    Study study(h, sampler, {.trials = 3}, 0);
    for (int k = 0; k < 3; ++k) {
      const auto t = study.next_trial(1, "n1", 0);
      ASSERT_TRUE(t);
      for (std::int64_t step = 1; step <= 2; ++step)
        study.on_report(t->id, at(step, 1.0 / static_cast<double>(step) + t->id), 0);
      study.on_report(t->id, {.step = {}, .metrics = {}, .objective = 5.0}, 0);  // no step: no progress
      study.on_result(ok(*t, 0.5), 1, "n1");
    }
    ASSERT_EQ(sampler.seen.size(), 6u);
    EXPECT_EQ(sampler.seen[3].trial, 1u);
    EXPECT_EQ(sampler.seen[3].step, 2);
    EXPECT_DOUBLE_EQ(sampler.seen[3].value, 1.5);
    EXPECT_EQ(sampler.seen[3].params, (Assignment{0.1}));
  }
  auto h = History::resume(path());
  ChainSampler again;
  Study resumed(h, again, {.trials = 3}, 0);
  ASSERT_EQ(again.seen.size(), 6u);
  EXPECT_EQ(again.seen[5].trial, 2u);
  EXPECT_DOUBLE_EQ(again.seen[5].value, 2.5);
  EXPECT_EQ(again.seen[5].params, (Assignment{0.2}));
}

TEST_F(LineageStudy, ATrialStartsFromTheCheckpointItsSamplerNamesAndTheHistoryKeepsIt) {
  {
    auto h = History::create(path(), info_);
    ChainSampler sampler;
    Study study(h, sampler, {.trials = 9}, 0);
    for (int k = 0; k < 9; ++k) {
      const auto t = study.next_trial(1, "n1", 0);
      ASSERT_TRUE(t);
      if (k == 0) EXPECT_FALSE(t->from);
      if (k == 7) EXPECT_FALSE(t->from) << "a later trial is no lineage";
      if (k != 0 && k != 7) EXPECT_EQ(t->from, std::optional<std::uint64_t>(k - 1));
      study.on_result(ok(*t, 0.5), 1, "n1");
    }
  }
  auto h = History::resume(path());
  EXPECT_FALSE(h.trials()[0].from);
  EXPECT_EQ(h.trials()[3].from, std::optional<std::uint64_t>(2));
  EXPECT_EQ(h.trials()[8].from, std::optional<std::uint64_t>(7));
}

TEST_F(LineageStudy, ACheckpointIsKeptWhileTheSamplerNeedsItAndReleasedOnce) {
  auto h = History::create(path(), info_);
  ChainSampler sampler;
  Study study(h, sampler, {.trials = 3}, 0);
  const auto a = study.next_trial(1, "n1", 0);
  study.on_result(ok(*a, 0.5), 1, "n1");
  EXPECT_TRUE(study.checkpoint_needed(a->id));
  EXPECT_TRUE(study.take_released_checkpoints().empty());
  const auto b = study.next_trial(1, "n1", 0);
  study.on_result(ok(*b, 0.4), 1, "n1");
  EXPECT_TRUE(study.checkpoint_needed(b->id));
  EXPECT_EQ(study.take_released_checkpoints(), (std::vector<std::uint64_t>{a->id}));
  EXPECT_TRUE(study.take_released_checkpoints().empty()) << "released once";
  EXPECT_EQ(study.kept_checkpoints(), (std::vector<std::uint64_t>{b->id}));
}

TEST_F(LineageStudy, MemberAndStepLimitAreKeptAndReplayedToTheSamplerOnResume) {
  {
    auto h = History::create(path(), info_);
    ChainSampler sampler;
    Study study(h, sampler, {.trials = 4}, 0);
    for (int k = 0; k < 3; ++k) {
      const auto t = study.next_trial(1, "n1", 0);
      ASSERT_TRUE(t);
      if (k > 0) {
        EXPECT_EQ(t->member, std::optional<std::uint32_t>(0));
        EXPECT_EQ(t->step_limit, std::optional<std::int64_t>(k + 2));
        EXPECT_EQ(sampler.lineages.at(t->id).step_limit, std::optional<std::int64_t>(k + 2));
      }
      if (k < 2) study.on_result(ok(*t, 0.5), 1, "n1");  // the third is left running
    }
  }
  auto h = History::resume(path());
  EXPECT_EQ(h.trials()[2].step_limit, std::optional<std::int64_t>(4));
  EXPECT_FALSE(h.trials()[0].member);
  ChainSampler again;
  Study resumed(h, again, {.trials = 4}, 0);
  ASSERT_EQ(again.lineages.size(), 3u) << "every trial it proposed, the running one too";
  EXPECT_EQ(again.lineages.at(2), (Lineage{1, 0, 4}));
  EXPECT_EQ(again.lineages.at(0), Lineage{});
}

TEST_F(LineageStudy, AReportBeyondTheStepLimitEndsTheTrialAsItsSegmentsEnd) {
  auto h = History::create(path(), info_);
  ChainSampler sampler;
  Study study(h, sampler, {.trials = 3}, 0);
  const auto a = study.next_trial(1, "n1", 0);
  EXPECT_FALSE(study.on_report(a->id, at(50, 1.0), 0)) << "no limit: it runs to its end";
  study.on_result(ok(*a, 0.5), 1, "n1");
  const auto b = study.next_trial(1, "n1", 0);  // limit 3
  EXPECT_FALSE(study.on_report(b->id, at(3, 0.7), 0));
  EXPECT_TRUE(study.on_report(b->id, at(4, 0.6), 0));
  TrialRun run = ok(*b, 0.6);
  run.pruned = true;
  const Trial& t = study.on_result(run, 1, "n1");
  EXPECT_EQ(t.state, TrialState::Pruned);
  EXPECT_NE(t.message.find("trained to step 3"), std::string::npos) << t.message;
}

// A population whose members all train has nothing to propose: the runner
// that asks is held, not told the study is over, and served once a result came.
class WaitingSampler final : public Sampler {
 public:
  std::string_view name() const override { return "waiting"; }
  std::optional<Assignment> propose(std::uint64_t, std::span<const Assignment>) override {
    ++running;
    return Assignment{0.5};
  }
  void observe(const Observation&) override { --running; }
  bool waiting() const override { return running >= 2; }
  int running = 0;
};

TEST_F(LineageStudy, ARunnerIsHeldWhileTheSamplerWaitsAndServedAfterAResult) {
  auto h = History::create(path(), info_);
  WaitingSampler sampler;
  Study study(h, sampler, {.trials = 4}, 0);
  const auto a = study.offer_trial(1, "n1", 0), b = study.offer_trial(2, "n1", 0);
  ASSERT_TRUE(a.trial && b.trial);
  const auto c = study.offer_trial(3, "n1", 0);
  EXPECT_FALSE(c.trial);
  EXPECT_TRUE(c.held);
  EXPECT_TRUE(study.holding());
  EXPECT_FALSE(study.finished());
  study.on_result(ok(*a.trial, 0.5), 1, "n1");
  EXPECT_FALSE(study.holding());
  const auto d = study.offer_trial(3, "n1", 0);
  EXPECT_TRUE(d.trial);
  EXPECT_FALSE(d.held);
}

TEST_F(LineageStudy, ASamplerWithoutLineageKeepsNoCheckpoint) {
  auto h = History::create(path(), info_);
  auto sampler = make_sampler("tpe", info_.space, {.seed = 1});
  Study study(h, *sampler, {.trials = 2}, 0);
  const auto t = study.next_trial(1, "n1", 0);
  EXPECT_FALSE(t->from);
  study.on_result(ok(*t, 0.5), 1, "n1");
  EXPECT_FALSE(study.checkpoint_needed(t->id));
  EXPECT_TRUE(study.kept_checkpoints().empty());
}

}  // namespace
}  // namespace tune
