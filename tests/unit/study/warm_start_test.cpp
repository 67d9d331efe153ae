// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/warm_start.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "search/sampler_registry.hpp"
#include "study/study.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

const char* kSpace = R"({"parameters": [
  {"name": "lr", "type": "bound", "value": [0.0001, 1], "log": true},
  {"name": "depth", "type": "int", "value": [1, 8]},
  {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})";

std::string error_of(const std::string& text) {
  try {
    parse_enqueued(text, SearchSpace::parse(kSpace), "q.json");
  } catch (const WarmStartError& e) {
    return e.what();
  }
  return "";
}

TEST(Enqueue, ReadsEveryParameterInTheSpacesOrder) {
  const auto space = SearchSpace::parse(kSpace);
  const auto sets = parse_enqueued(
      R"([{"opt": "adam", "lr": 0.01, "depth": 3}, {"lr": 1, "depth": 8.0, "opt": "sgd"}])", space, "q.json");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0], (Assignment{0.01, std::int64_t{3}, std::string("adam")}));
  EXPECT_EQ(sets[1], (Assignment{1.0, std::int64_t{8}, std::string("sgd")}));
  // Round trip through the history's attribute.
  EXPECT_EQ(enqueued_from_json(enqueued_to_json(sets, space), space), sets);
}

TEST(Enqueue, NamesTheFileTheEntryAndTheParameterOfEachMistake) {
  EXPECT_NE(error_of("[{").find("q.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"lr": 0.1})").find("expected a JSON list"), std::string::npos);
  EXPECT_NE(error_of(R"([3])").find("entry 1 is not an object"), std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": 0.1, "depth": 2}])").find("entry 1 has no value for 'opt'"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": 0.1, "depth": 2, "opt": "sgd"}, {"lr": 5, "depth": 2, "opt": "sgd"}])")
                .find("entry 2: parameter 'lr'"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": 0.1, "depth": 2.5, "opt": "sgd"}])").find("'depth' must be a whole number"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": "0.1", "depth": 2, "opt": "sgd"}])").find("'lr' must be a number"),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": 0.1, "depth": 2, "opt": "rmsprop"}])").find("'opt'"), std::string::npos);
  EXPECT_NE(error_of(R"([{"lr": 0.1, "depth": 2, "opt": "sgd", "momentum": 0.9}])")
                .find("'momentum', which is not a parameter"),
            std::string::npos);
  EXPECT_TRUE(parse_enqueued("[]", SearchSpace::parse(kSpace), "q.json").empty());
}

Trial finished(std::uint64_t id, Assignment a, TrialState state, std::optional<double> objective) {
  Trial t;
  t.id = id;
  t.params = std::move(a);
  t.state = state;
  t.objective = objective;
  return t;
}

TEST(WarmStart, ImportsFinishedTrialsThatFitTheNewSpaceByName) {
  HistorySnapshot old;
  old.study.space = SearchSpace::parse(R"({"parameters": [
    {"name": "opt", "type": "choice", "value": ["sgd", "adam", "rmsprop"]},
    {"name": "depth", "type": "int", "value": [1, 20]},
    {"name": "lr", "type": "bound", "value": [0.00001, 10], "log": true},
    {"name": "extra", "type": "bound", "value": [0, 1]}]})");
  old.study.minimize = true;
  old.trials = {
      finished(0, {std::string("adam"), std::int64_t{3}, 0.01, 0.5}, TrialState::Ok, 0.2),
      finished(1, {std::string("rmsprop"), std::int64_t{3}, 0.01, 0.5}, TrialState::Ok, 0.1),
      finished(2, {std::string("sgd"), std::int64_t{2}, 0.1, 0.5}, TrialState::Failed, std::nullopt),
      finished(3, {std::string("sgd"), std::int64_t{12}, 0.1, 0.5}, TrialState::Ok, 0.3),
      finished(4, {std::string("sgd"), std::int64_t{2}, 0.1, 0.5}, TrialState::Pruned, std::nullopt),
      finished(5, {std::string("sgd"), std::int64_t{2}, 0.1, 0.5}, TrialState::Running, std::nullopt)};
  const auto got = import_trials(old, "old.h5", SearchSpace::parse(kSpace), true);
  ASSERT_EQ(got.trials.size(), 2u);  // 0 (ok) and 4 (pruned); 1 and 3 are outside, 2 failed, 5 never finished
  EXPECT_EQ(got.trials[0].id, 0u);
  EXPECT_EQ(got.trials[0].params, (Assignment{0.01, std::int64_t{3}, std::string("adam")}));
  EXPECT_EQ(*got.trials[0].objective, 0.2);
  EXPECT_EQ(got.trials[0].message, "imported from old.h5 trial 0");
  EXPECT_EQ(got.trials[1].id, 1u);
  EXPECT_EQ(got.trials[1].state, TrialState::Pruned);
  EXPECT_EQ(got.skipped, 2u);
  EXPECT_NE(got.why_skipped.find("trial 1:"), std::string::npos);

  EXPECT_THROW(import_trials(old, "old.h5", SearchSpace::parse(kSpace), false),
               WarmStartError);  // maximising now
  HistorySnapshot narrow = old;
  narrow.study.space =
      SearchSpace::parse(R"({"parameters": [{"name": "lr", "type": "bound", "value": [0.001, 1]}]})");
  for (auto& t : narrow.trials) t.params = {0.01};
  try {
    import_trials(narrow, "old.h5", SearchSpace::parse(kSpace), true);
    ADD_FAILURE() << "a space without 'depth' was accepted";
  } catch (const WarmStartError& e) {
    EXPECT_NE(std::string(e.what()).find("no parameter 'depth'"), std::string::npos) << e.what();
  }
}

// A warm-started study knows results before its samplers' first proposal:
// bayes fits its model and tpe uses its densities at once (no initial design
// or random start-up over again), proposing near the known best.
TEST(WarmStart, LearningSamplersSkipTheirStartWhenResultsAreKnown) {
  const auto space =
      SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  for (const char* algo : {"bayes", "tpe"}) {
    auto sampler = make_sampler(algo, space, {.seed = 3});
    for (std::uint64_t i = 0; i < 30; ++i) {
      const double x = static_cast<double>(i) / 29;
      sampler->observe({i, {x}, (x - 0.3) * (x - 0.3)});
    }
    if (std::string(algo) == "bayes") {
      EXPECT_TRUE(sampler->costly(0));
    }
    std::vector<double> distance;
    for (std::uint64_t k = 0; k < 9; ++k)
      distance.push_back(std::fabs(std::get<double>((*sampler->propose(k, {}))[0]) - 0.3));
    std::nth_element(distance.begin(), distance.begin() + 4, distance.end());
    EXPECT_LT(distance[4], 0.1) << algo << ": its first proposals ignore the 30 known results";
  }
}

// A sampler that records the proposal numbers it is asked for.
class CountingSampler final : public Sampler {
 public:
  std::string_view name() const override { return "counting"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment>) override {
    asked.push_back(trial);
    return Assignment{0.5};
  }
  void observe(const Observation& o) override { seen.push_back(o.trial); }
  std::vector<std::uint64_t> asked, seen;
};

class WarmStudyTest : public testing_support::TempDirTest {};

TEST_F(WarmStudyTest, ImportedTrialsTeachTheSamplerEnqueuedSetsRunFirstAndTheSamplerCountsFromZero) {
  StudyInfo info;
  info.name = "s";
  info.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  info.imported = 2;
  info.imported_from = "/old.h5";
  info.enqueued = enqueued_to_json({{0.1}, {0.2}}, info.space);
  {
    auto h = History::create(file("h.h5"), info);
    h.put(finished(0, {0.7}, TrialState::Ok, 0.7));
    h.put(finished(1, {0.9}, TrialState::Pruned, std::nullopt));
  }
  auto h = History::resume(file("h.h5"));
  EXPECT_EQ(h.study().imported, 2u);
  EXPECT_EQ(h.study().imported_from, "/old.h5");
  CountingSampler sampler;
  Study study(h, sampler, {.trials = 3}, 0);  // 3 trials run here, after the 2 imported
  EXPECT_EQ(sampler.seen, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(study.best()->id, 0u);
  std::vector<Trial> out;
  while (auto t = study.next_trial(1, "n1", 0)) out.push_back(*t);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].id, 2u);
  EXPECT_EQ(out[0].params, Assignment{0.1});
  EXPECT_EQ(out[1].params, Assignment{0.2});
  EXPECT_EQ(out[2].id, 4u);
  EXPECT_EQ(sampler.asked, (std::vector<std::uint64_t>{0}));  // the sampler's first proposal, numbered 0
}

TEST(EnqueueFile, ReadsTheFileAndKeepsWithinTrials) {
  const auto space =
      SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  const std::string path = ::testing::TempDir() + "enqueue_file_test.json";
  { std::ofstream(path) << R"([{"x": 0.1}, {"x": 0.2}])"; }
  EXPECT_EQ(read_enqueued(path, space, 2).size(), 2u);
  try {
    read_enqueued(path, space, 1);
    ADD_FAILURE() << "two sets accepted under --trials 1";
  } catch (const WarmStartError& e) {
    EXPECT_NE(std::string(e.what()).find("lists 2 parameter sets but --trials is 1"), std::string::npos)
        << e.what();
  }
  std::remove(path.c_str());
  EXPECT_THROW(read_enqueued(path, space), WarmStartError);  // gone: cannot read the file
}

TEST(StopReasons, OnlyTheEndsNoResumeUndoAreForGood) {
  EXPECT_TRUE(ended_for_good(StopReason::TargetReached));
  EXPECT_TRUE(ended_for_good(StopReason::TrialsDone));
  EXPECT_TRUE(ended_for_good(StopReason::SpaceExhausted));
  EXPECT_FALSE(ended_for_good(StopReason::Signal));
  EXPECT_FALSE(ended_for_good(StopReason::TimeLimit));
  EXPECT_FALSE(ended_for_good(StopReason::TooManyFailures));
}

}  // namespace
}  // namespace tune
