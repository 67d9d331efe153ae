// SPDX-License-Identifier: GPL-2.0-or-later
// Conditional parameters ("when"): the space, every sampler, the history,
// warm starts and the importance over spaces whose parameters exist only in
// some trials.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "history/history.hpp"
#include "report/importance.hpp"
#include "search/bayes_sampler.hpp"
#include "search/grid_sampler.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/warm_start.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

// optimizer -> momentum, nesterov -> dampening (nested); optimizer -> beta2;
// layers -> width2.
constexpr const char* kSpace = R"({"parameters": [
  {"name": "optimizer", "type": "choice", "value": ["sgd", "adam"]},
  {"name": "lr", "type": "bound", "value": [0.0001, 1], "log": true},
  {"name": "momentum", "type": "bound", "value": [0, 0.99], "when": {"optimizer": ["sgd"]}},
  {"name": "nesterov", "type": "choice", "value": ["yes", "no"], "when": {"optimizer": "sgd"}},
  {"name": "dampening", "type": "bound", "value": [0, 0.5], "when": {"nesterov": ["no"]}},
  {"name": "beta2", "type": "number", "value": [0.99, 0.999], "when": {"optimizer": ["adam"]}},
  {"name": "layers", "type": "int", "value": [1, 4]},
  {"name": "width2", "type": "int", "value": [16, 64], "when": {"layers": [2, 3, 4]}}]})";

SearchSpace space() {
  return SearchSpace::parse(kSpace, "space.json");
}

std::string parse_error(const std::string& params) {
  try {
    SearchSpace::parse("{\"parameters\": [" + params + "]}", "s.json");
  } catch (const SpaceError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ConditionalSpace, ParsesNestedConditionsAndWritesThemBack) {
  const auto s = space();
  EXPECT_TRUE(s.conditional());
  EXPECT_FALSE(SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})")
                   .conditional());
  const auto& damp = s.at("dampening");
  ASSERT_EQ(damp.when.size(), 1u);
  EXPECT_EQ(damp.when[0].parent, 3u);
  EXPECT_EQ(s.at("width2").when[0].values,
            (std::vector<ParamValue>{std::int64_t{2}, std::int64_t{3}, std::int64_t{4}}));
  EXPECT_EQ(SearchSpace::from_json(s.to_json()).to_json(), s.to_json());
  EXPECT_EQ(s.to_json()["parameters"][3]["when"], nlohmann::json::parse(R"({"optimizer": ["sgd"]})"));
  EXPECT_EQ(s.condition_text(7), "exists only when layers is 2, 3 or 4");
}

TEST(ConditionalSpace, NamesWhatIsWrongWithACondition) {
  const std::string opt = R"({"name": "opt", "type": "choice", "value": ["sgd", "adam"]},)";
  const std::string lr = R"({"name": "lr", "type": "bound", "value": [0, 1]},)";
  const std::string m = R"({"name": "m", "type": "bound", "value": [0, 1], "when": )";
  const std::pair<std::string, std::string> cases[] = {
      {m + R"({"opt": ["sgd"]}},{"name": "opt", "type": "choice", "value": ["sgd"]})",
       "'m': \"when\" names 'opt', which is not a parameter listed before this one"},
      {opt + m + R"({"optimiser": ["sgd"]}})", "names 'optimiser', which is not a parameter listed before"},
      {lr + m + R"({"lr": [0.5]}})",
       "a bound (continuous) parameter; a condition needs a parent with listed values"},
      {opt + m + R"({"opt": ["rmsprop"]}})", "'m': \"when\": \"rmsprop\" is not a value of 'opt'"},
      {opt + m + R"({"opt": []}})", "lists no values, so the parameter would never exist"},
      {opt + m + R"({"opt": [1]}})", "is a choice; give its values as strings"},
      {R"({"name": "n", "type": "int", "value": [1, 4]},)" + m + R"({"n": [2.5]}})",
       "2.5 is not a value of 'n'"},
      {opt + m + R"(["opt"]})", "\"when\" must be an object"},
      {R"({"name": "m", "type": "choice", "value": ["a"], "when": {"m": ["a"]}})",
       "names the parameter itself"},
  };
  for (const auto& [params, message] : cases)
    EXPECT_NE(parse_error(params).find(message), std::string::npos) << params << ": " << parse_error(params);
}

TEST(ConditionalSpace, ActivityFollowsParentsToAnyDepth) {
  const auto s = space();
  const Assignment sgd_no = {std::string("sgd"), 0.01, 0.9, std::string("no"), 0.1, 0.99, std::int64_t{1},
                             std::int64_t{32}};
  EXPECT_EQ(s.active(sgd_no), (std::vector<bool>{true, true, true, true, true, false, true, false}));
  Assignment adam = sgd_no;
  adam[0] = std::string("adam");
  // nesterov's value says "no", but nesterov itself does not exist: nor does dampening.
  EXPECT_EQ(s.active(adam), (std::vector<bool>{true, true, false, false, false, true, true, false}));
  const auto pruned = s.prune_inactive(adam);
  EXPECT_TRUE(is_absent(pruned[2]) && is_absent(pruned[3]) && is_absent(pruned[4]) && is_absent(pruned[7]));
  EXPECT_NO_THROW(s.check(pruned, "x"));
  try {
    s.check(adam, "entry 3");
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_STREQ(e.what(),
                 "entry 3: parameter 'momentum' exists only when optimizer is sgd, which does not hold here; "
                 "leave it out");
  }
  Assignment missing = s.prune_inactive(sgd_no);
  missing[4] = std::monostate{};
  try {
    s.check(missing, "entry 1");
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_STREQ(
        e.what(),
        "entry 1: parameter 'dampening' has no value (it exists only when nesterov is no, which holds here)");
  }
}

// Every sampler gives exactly the active parameters: sampler_registry_test.cpp.

TEST(ConditionalSpace, TheGridHoldsEachDistinctAssignmentOnce) {
  const auto s = SearchSpace::parse(R"({"parameters": [
    {"name": "opt", "type": "choice", "value": ["sgd", "adam"]},
    {"name": "momentum", "type": "number", "value": [0.5, 0.9], "when": {"opt": ["sgd"]}},
    {"name": "nesterov", "type": "choice", "value": ["yes", "no"], "when": {"opt": ["sgd"]}},
    {"name": "layers", "type": "int", "value": [1, 3]}]})");
  GridSampler grid(s, 3);
  // sgd: 2 momenta x 2 nesterov x 3 layers = 12; adam: 3 layers.
  ASSERT_EQ(grid.size(), 15u);
  std::set<std::string> seen;
  for (std::uint64_t k = 0; k < 15; ++k) {
    const auto a = grid.propose(k, {});
    ASSERT_TRUE(a);
    EXPECT_NO_THROW(s.check(*a, "grid"));
    std::string key;
    for (const auto& v : *a) key += (is_absent(v) ? "-" : to_string(v)) + ",";
    EXPECT_TRUE(seen.insert(key).second) << key;
  }
  EXPECT_FALSE(grid.propose(15, {}));
}

// The GP's features of an inactive parameter do not depend on the
// coordinate a proposal happens to hold there.
TEST(ConditionalSpace, TheModelIgnoresInactiveCoordinates) {
  const auto s = space();
  BayesSampler bayes(s, 1, true);
  Eigen::VectorXd u(8);
  u << 0.75, 0.5, 0.1, 0.2, 0.3, 0.4, 0.1, 0.6;  // adam (second half), 1 layer
  Eigen::VectorXd v = u;
  v(2) = 0.9, v(3) = 0.8, v(4) = 0.95, v(7) = 0.05;  // only inactive coordinates differ
  EXPECT_EQ(bayes.features(u), bayes.features(v));
  v(5) = 0.9;  // beta2 is active under adam
  EXPECT_NE(bayes.features(u), bayes.features(v));
  Eigen::VectorXd w = u;
  w(0) = 0.25;  // sgd: momentum now counts
  Eigen::VectorXd w2 = w;
  w2(2) = 0.9;
  EXPECT_NE(bayes.features(w), bayes.features(w2));
}

class ConditionalHistory : public testing_support::TempDirTest {};

TEST_F(ConditionalHistory, StoresInactiveValuesAsAbsent) {
  StudyInfo info;
  info.name = "cond";
  info.space = space();
  info.sampler = "random";
  info.created = "2026-11-24T00:00:00Z";
  info.tune_version = "test";
  auto sampler = make_sampler("random", info.space, {.seed = 5});
  std::vector<Assignment> sets;
  {
    auto h = History::create(file("c.h5"), info);
    for (std::uint64_t k = 0; k < 12; ++k) {
      Trial t;
      t.id = k;
      t.state = TrialState::Ok;
      t.params = *sampler->propose(k, {});
      t.objective = static_cast<double>(k);
      sets.push_back(t.params);
      h.put(t);
    }
    h.close();
  }
  const auto snap = read_history(file("c.h5"));
  ASSERT_EQ(snap.trials.size(), 12u);
  int absent = 0;
  for (std::size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(snap.trials[k].params, sets[k]) << k;
    for (const auto& v : snap.trials[k].params) absent += is_absent(v);
  }
  EXPECT_GT(absent, 0);
}

TEST(ConditionalWarmStart, EnqueuedSetsGiveExactlyTheActiveParameters) {
  const auto s = space();
  const auto sets = parse_enqueued(R"([
    {"optimizer": "adam", "lr": 0.01, "beta2": 0.999, "layers": 1},
    {"optimizer": "sgd", "lr": 0.1, "momentum": 0.9, "nesterov": "no", "dampening": 0.1, "layers": 2, "width2": 32,
     "beta2": null}])",
                                   s, "q.json");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_TRUE(is_absent(sets[0][2]) && is_absent(sets[0][7]));
  EXPECT_TRUE(is_absent(sets[1][5]));
  EXPECT_EQ(enqueued_from_json(enqueued_to_json(sets, s), s), sets);
  const auto error = [&](const std::string& text) {
    try {
      parse_enqueued(text, s, "q.json");
    } catch (const WarmStartError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error(R"([{"optimizer": "adam", "lr": 0.01, "beta2": 0.999, "layers": 1, "momentum": 0.5}])"),
            "q.json: entry 1: parameter 'momentum' exists only when optimizer is sgd, which does not hold "
            "here; leave it out");
  EXPECT_EQ(error(R"([{"optimizer": "adam", "lr": 0.01, "layers": 1}])"),
            "q.json: entry 1: parameter 'beta2' has no value (it exists only when optimizer is adam, which "
            "holds here)");
  EXPECT_EQ(error(R"([{"optimizer": "adam", "beta2": 0.99, "layers": 1}])"),
            "q.json: entry 1 has no value for 'lr'; give every parameter of the space");
}

TEST(ConditionalImportance, LeavesOutWhatNotEveryTrialHas) {
  const auto s = space();
  auto sampler = make_sampler("random", s, {.seed = 2});
  std::vector<Trial> trials;
  for (std::uint64_t k = 0; k < 120; ++k) {
    Trial t;
    t.id = k;
    t.state = TrialState::Ok;
    t.params = *sampler->propose(k, {});
    t.objective = std::get<double>(t.params[1]) + (std::get<std::string>(t.params[0]) == "adam" ? 0.0 : 0.3);
    trials.push_back(std::move(t));
  }
  const auto model = ForestModel::fit(s, trials);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->left_out(),
            (std::vector<std::string>{"momentum", "nesterov", "dampening", "beta2", "width2"}));
  const auto imp = model->importance();
  ASSERT_EQ(imp.size(), 3u);
  EXPECT_EQ(imp[0].name, "lr");
  double total = 0;
  for (const auto& p : imp) total += p.importance;
  EXPECT_NEAR(total, 1.0, 1e-9);
}

}  // namespace
}  // namespace tune
