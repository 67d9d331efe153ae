// SPDX-License-Identifier: GPL-2.0-or-later
// tune export's formats (lib/report/export): the trials and curves CSV and
// the Optuna journal's lines, from a history snapshot made here. Optuna
// itself reads the journal in tests/python/export_read_test.py.
#include "report/export.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace tune {
namespace {

using nlohmann::json;

HistorySnapshot snapshot() {
  HistorySnapshot h;
  h.study.name = "s";
  h.study.space = SearchSpace::parse(R"({"parameters": [
      {"name": "lr", "type": "bound", "value": [0.001, 0.1], "log": true},
      {"name": "opt", "type": "choice", "value": ["sgd", "adam"]},
      {"name": "w", "type": "number", "value": [8, 16]},
      {"name": "n", "type": "int", "value": [1, 4]}]})");
  h.study.minimize = false;
  h.study.pruner.rule = "median";
  h.study.pruner.metric = "acc";
  auto trial = [](std::uint64_t id, TrialState s, std::optional<double> obj) {
    Trial t;
    t.id = id;
    t.state = s;
    t.objective = obj;
    t.params = {0.01, std::string("adam"), 16.0, std::int64_t{3}};
    t.start_time = 1700000000.25;
    t.end_time = s == TrialState::Running ? 0 : 1700000010.5;
    t.host = "node1";
    return t;
  };
  h.trials = {trial(0, TrialState::Ok, 0.9), trial(1, TrialState::Pruned, std::nullopt),
              trial(2, TrialState::Failed, std::nullopt), trial(3, TrialState::Interrupted, std::nullopt),
              trial(4, TrialState::Running, std::nullopt)};
  h.trials[2].message = "exit code 2, \"bad\"";
  h.reports = {{0, 1, 1700000001, "acc", 0.5},
               {0, 2, 1700000002, "acc", 0.9},
               {1, 1, 1700000001, "acc", 0.1},
               {1, 1, 1700000001, "loss", 3}};
  return h;
}

std::vector<json> lines(const HistorySnapshot& h) {
  std::ostringstream out;
  write_optuna_journal(h, out);
  std::vector<json> v;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);) v.push_back(json::parse(l));
  return v;
}

TEST(Export, TheOptunaJournalHasTheStudyItsDirectionAndEveryTrialInOptunasTerms) {
  const auto v = lines(snapshot());
  ASSERT_EQ(v[0]["op_code"], 0);
  EXPECT_EQ(v[0]["study_name"], "s");
  EXPECT_EQ(v[0]["directions"], json::array({2}));  // maximize
  std::vector<json> trials;
  for (const auto& l : v)
    if (l["op_code"] == 4) trials.push_back(l);
  ASSERT_EQ(trials.size(), 5u);
  // COMPLETE, PRUNED, FAIL, WAITING (runs again on --resume), RUNNING
  EXPECT_EQ(trials[0]["state"], 1);
  EXPECT_EQ(trials[1]["state"], 2);
  EXPECT_EQ(trials[2]["state"], 3);
  EXPECT_EQ(trials[3]["state"], 4);
  EXPECT_EQ(trials[4]["state"], 0);
  EXPECT_EQ(trials[0]["value"], 0.9);
  EXPECT_TRUE(trials[0]["values"].is_null());
  EXPECT_TRUE(trials[1]["value"].is_null());
  EXPECT_TRUE(trials[0].contains("datetime_complete"));
  EXPECT_FALSE(trials[3].contains("datetime_complete"));
  EXPECT_FALSE(trials[4].contains("datetime_complete"));
  // Categories by index, as Optuna keeps them; distributions as JSON text.
  EXPECT_EQ(trials[0]["params"]["opt"], 1);
  EXPECT_EQ(trials[0]["params"]["w"], 1);
  EXPECT_EQ(trials[0]["params"]["n"], 3);
  EXPECT_EQ(json::parse(trials[0]["distributions"]["lr"].get<std::string>())["attributes"]["log"], true);
  EXPECT_EQ(json::parse(trials[0]["distributions"]["n"].get<std::string>())["name"], "IntDistribution");
  // The pruning metric's reports are the intermediate values.
  EXPECT_EQ(trials[0]["intermediate_values"], (json{{"1", 0.5}, {"2", 0.9}}));
  EXPECT_EQ(trials[1]["intermediate_values"], (json{{"1", 0.1}}));
  EXPECT_EQ(trials[2]["user_attrs"]["tune_state"], "failed");
  EXPECT_EQ(trials[2]["user_attrs"]["message"], "exit code 2, \"bad\"");
}

TEST(Export, AMultiObjectiveStudyHasADirectionAndValuesPerObjective) {
  HistorySnapshot h = snapshot();
  h.study.objectives = {{"loss", true}, {"latency", false}};
  h.trials[0].values = {0.2, 30};
  const auto v = lines(h);
  EXPECT_EQ(v[0]["directions"], json::array({1, 2}));
  for (const auto& l : v)
    if (l["op_code"] == 4 && l["user_attrs"]["tune_id"] == 0) {
      EXPECT_EQ(l["values"], json::array({0.2, 30}));
      EXPECT_TRUE(l["value"].is_null());
    }
}

TEST(Export, TheJsonSaysHowAStudyEndedOnlyWhenItDid) {
  HistorySnapshot h = snapshot();
  const auto study = [](const HistorySnapshot& h) {
    std::ostringstream out;
    write_study_json(h, out);
    return json::parse(out.str())["study"];
  };
  EXPECT_FALSE(study(h).contains("ended"));
  h.study.ended = "converged: the 3 trials left have a 0.5% chance of beating the best (0.9) by 0.01";
  EXPECT_EQ(study(h)["ended"], h.study.ended);
  EXPECT_EQ(study(h)["name"], "s");
}

TEST(Export, TheCsvFilesHaveTheDocumentedColumnsAndQuoteWhatNeedsIt) {
  HistorySnapshot h = snapshot();
  h.trials[1].from = 0;
  h.trials[1].member = 3;
  h.trials[1].step_limit = 8;
  h.trials[1].last_step = 1;
  std::ostringstream trials, curves;
  write_trials_csv(h, trials);
  write_curves_csv(h, curves);
  EXPECT_EQ(
      trials.str().substr(0, trials.str().find('\n')),
      "id,state,objective,lr,opt,w,n,start_time,end_time,wall_time,rank,host,exit_code,signal,peak_rss_kb,"
      "last_step,from,member,step_limit,message");
  EXPECT_NE(trials.str().find(",\"exit code 2, \"\"bad\"\"\"\n"), std::string::npos);
  // The lineage: trial 1, member 3 to step 8, started from trial 0's checkpoint; the others from none.
  EXPECT_NE(trials.str().find(",-1,0,-1,1,0,3,8,\n"), std::string::npos) << trials.str();
  EXPECT_NE(trials.str().find(",-1,0,-1,-1,,,,\n"), std::string::npos) << trials.str();
  EXPECT_EQ(curves.str().substr(0, curves.str().find('\n')), "trial,step,time,metric,value");
  EXPECT_NE(curves.str().find("\n0,2,1700000002,acc,0.9\n"), std::string::npos);
}

}  // namespace
}  // namespace tune
