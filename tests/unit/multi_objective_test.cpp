// SPDX-License-Identifier: GPL-2.0-or-later
// Several objectives: dominance and hypervolume, the flags, the samplers'
// scalarisations, the history's values and the study's front and targets.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <numeric>
#include <random>

#include "command/objective_flags.hpp"
#include "history/history.hpp"
#include "search/pareto.hpp"
#include "search/sampler.hpp"
#include "search/scalarised_sampler.hpp"
#include "study/front.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "temp_dir.hpp"

namespace tune {
namespace {

TEST(Pareto, DominanceAndTheFront) {
  EXPECT_TRUE(dominates({1, 2}, {2, 2}));
  EXPECT_FALSE(dominates({1, 2}, {1, 2}));  // equal: neither
  EXPECT_FALSE(dominates({1, 3}, {2, 2}));
  const std::vector<ObjectivePoint> pts = {{1, 5}, {2, 2}, {3, 3}, {5, 1}, {2, 2}, {4, 4}};
  EXPECT_EQ(pareto_front(pts), (std::vector<std::size_t>{0, 1, 3, 4}));
}

TEST(Pareto, HypervolumeIsExact) {
  // Two objectives: the staircase under (4, 4) of (1,3), (2,2), (3,1) is 3 + 2 + 1.
  EXPECT_DOUBLE_EQ(hypervolume({{1, 3}, {2, 2}, {3, 1}}, {4, 4}), 6.0);
  EXPECT_DOUBLE_EQ(hypervolume({{1, 3}, {2, 2}, {3, 1}, {3, 3}, {5, 0}}, {4, 4}),
                   6.0);  // dominated and outside: nothing
  EXPECT_DOUBLE_EQ(hypervolume({}, {1, 1}), 0.0);
  // Three objectives: one point is a box; two overlapping boxes by inclusion-exclusion.
  EXPECT_DOUBLE_EQ(hypervolume({{0, 0, 0}}, {1, 2, 3}), 6.0);
  // boxes [0.5,1]x[0,1]x[0,1] and [0,1]x[0.5,1]x[0,1] (ref 1): 0.5 + 0.5 - 0.25.
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, 0, 0}, {0, 0.5, 0}}, {1, 1, 1}), 0.75);
  // Against a Monte Carlo estimate on random 3- and 4-objective sets.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t d : {3u, 4u}) {
    std::vector<ObjectivePoint> pts(12, ObjectivePoint(d));
    for (auto& p : pts)
      for (auto& x : p) x = u(rng);
    int in = 0;
    const int n = 200000;
    for (int k = 0; k < n; ++k) {
      ObjectivePoint z(d);
      for (auto& x : z) x = u(rng);
      for (const auto& p : pts)
        if (dominates(p, z) || p == z) {
          ++in;
          break;
        }
    }
    EXPECT_NEAR(hypervolume(pts, ObjectivePoint(d, 1.0)), static_cast<double>(in) / n, 0.005) << d;
  }
}

std::string flag_error(std::string_view o, std::string_view d, std::string_view t) {
  try {
    parse_objective_flags(o, d, t);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Pareto, RanksAreTheFrontsPeeledOffOneByOne) {
  // The two-objective sweep and the peeling of three objectives against the
  // definition, on coarse grids (many ties and identical points) and on
  // continuous values.
  // The oracle, by definition: a point's rank is 0 when nothing dominates it,
  // else one more than the highest rank among the points that do (a point
  // that dominates another has the smaller sum, so sums order the work).
  auto by_definition = [](const std::vector<ObjectivePoint>& pts) {
    std::vector<std::size_t> order(pts.size()), rank(pts.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto sum = [&](std::size_t i) { return std::accumulate(pts[i].begin(), pts[i].end(), 0.0); };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return sum(a) < sum(b); });
    for (std::size_t k = 0; k < order.size(); ++k)
      for (std::size_t q = 0; q < k; ++q)
        if (dominates(pts[order[q]], pts[order[k]]))
          rank[order[k]] = std::max(rank[order[k]], rank[order[q]] + 1);
    return rank;
  };
  std::mt19937_64 rng(11);
  for (int round = 0; round < 60; ++round) {
    const std::size_t dims = round % 6 == 5 ? 3 : 2;
    const int levels = round % 3 == 0 ? 4 : round % 3 == 1 ? 20 : 0;  // 0: continuous
    std::uniform_int_distribution<int> grid(0, std::max(levels - 1, 0));
    std::uniform_real_distribution<double> real(-1, 1);
    std::vector<ObjectivePoint> pts(1 + round * 7);
    for (auto& p : pts)
      for (std::size_t d = 0; d < dims; ++d) p.push_back(levels ? grid(rng) : real(rng));
    ASSERT_EQ(pareto_ranks(pts), by_definition(pts)) << "round " << round << ", " << pts.size() << " points";
  }
  EXPECT_EQ(pareto_ranks({{1, 1}, {1, 1}, {0, 2}, {2, 0}, {2, 2}, {1, 2}}),
            (std::vector<std::size_t>{0, 0, 0, 0, 2, 1}));
  EXPECT_TRUE(pareto_ranks({}).empty());
}

TEST(ObjectiveFlags, ParsesNamesDirectionsAndTargets) {
  auto f = parse_objective_flags("", "max", "0.9");
  EXPECT_TRUE(f.objectives.empty());
  EXPECT_FALSE(f.minimize);
  EXPECT_EQ(f.target, 0.9);
  f = parse_objective_flags("loss,latency", "min,max", "0.1,20");
  ASSERT_EQ(f.objectives.size(), 2u);
  EXPECT_EQ(f.objectives[1].name, "latency");
  EXPECT_FALSE(f.objectives[1].minimize);
  EXPECT_EQ(f.targets, (std::vector<double>{0.1, 20}));
  EXPECT_FALSE(f.target);
  f = parse_objective_flags("loss, latency", "min", "");
  EXPECT_TRUE(f.objectives[0].minimize && f.objectives[1].minimize);
  EXPECT_EQ(direction_text(f.objectives, true), "min,min");
  EXPECT_EQ(objective_text(f.objectives), "loss,latency");
  f = parse_objective_flags("val_loss", "min", "0.2");  // one named objective: an ordinary study
  EXPECT_EQ(f.target, 0.2);
  EXPECT_TRUE(f.targets.empty());
  EXPECT_NE(flag_error("loss,latency", "min,max,min", "").find("one per objective (2)"), std::string::npos);
  EXPECT_NE(flag_error("loss,latency", "min,up", "").find("'up' is neither min nor max"), std::string::npos);
  EXPECT_NE(flag_error("loss,loss", "min", "").find("'loss' is named twice"), std::string::npos);
  EXPECT_NE(flag_error("loss,9lives", "min", "").find("'9lives' is not a report key"), std::string::npos);
  EXPECT_NE(flag_error("loss,latency", "min", "0.1").find("one value per objective (2)"), std::string::npos);
  EXPECT_NE(flag_error("loss,latency", "min", "0.1,fast").find("'fast' is not a number"), std::string::npos);
  EXPECT_NE(flag_error("", "min,max", "").find("needs --objective"), std::string::npos);
  EXPECT_NO_THROW(check_objective_source("", "acc=([0-9.]+)"));
  EXPECT_NO_THROW(check_objective_source("loss,latency", ""));
  EXPECT_THROW(check_objective_source("loss", "acc=([0-9.]+)"), std::invalid_argument);
}

TEST(ScalarisedSampler, WeightsAndScalarisation) {
  const auto space =
      SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  ScalarisedSampler s([&] { return make_sampler("random", space, {}); }, {true, false}, 3);
  const auto w = s.weights(5);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NEAR(w[0] + w[1], 1.0, 1e-12);
  EXPECT_EQ(s.weights(5), w);  // fixed by the seed and the trial
  EXPECT_NE(s.weights(6), w);
  s.observe({0, {0.1}, 0.0, false, {0.0, 10.0}});
  s.observe({1, {0.2}, 1.0, false, {2.0, 30.0}});
  // Scaled to [0, 1] (the second maximised: 30 is its best): (1, 1) is worst, (0, 0) best.
  EXPECT_NEAR(s.scalarise({2.0, 10.0}, {0.5, 0.5}), 0.5 + 0.05, 1e-12);
  EXPECT_NEAR(s.scalarise({0.0, 30.0}, {0.5, 0.5}), 0.0, 1e-12);
}

// bayes and tpe with two objectives find more of ZDT1's front than random
// draws in the same number of trials (seeded; the margins are wide).
TEST(ScalarisedSampler, LearningSamplersBeatRandomOnZdt1) {
  const auto space = SearchSpace::parse(R"({"parameters": [{"name": "a", "type": "bound", "value": [0, 1]},
      {"name": "b", "type": "bound", "value": [0, 1]}, {"name": "c", "type": "bound", "value": [0, 1]}]})");
  const auto run = [&](const char* name) {
    auto sampler = make_sampler(name, space, {.seed = 1, .objectives_minimize = {true, true}});
    std::vector<ObjectivePoint> seen;
    for (std::uint64_t t = 0; t < 60; ++t) {
      const auto a = *sampler->propose(t, {});
      const double x0 = std::get<double>(a[0]),
                   g = 1 + 9 * (std::get<double>(a[1]) + std::get<double>(a[2])) / 2;
      const std::vector<double> y = {x0, g * (1 - std::sqrt(x0 / g))};
      seen.push_back(y);
      sampler->observe({t, a, y[0], false, y});
    }
    return hypervolume(seen, {1.1, 11});
  };
  const double random = run("random"), bayes = run("bayes");
  EXPECT_GT(bayes, random + 0.5);
  // cmaes ranks one objective: refused with several, naming the ones that do.
  try {
    make_sampler("cmaes", space, {.seed = 1, .objectives_minimize = {true, true}});
    FAIL() << "cmaes took two objectives";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "--algo cmaes searches one objective; with several (--objective) use bayes or tpe");
  }
}

// What the inner sampler is fed: tpe gets each result's Pareto rank.
class Recorder final : public Sampler {
 public:
  explicit Recorder(std::vector<std::optional<double>>& seen) : seen_(seen) {}
  std::string_view name() const override { return "recorder"; }
  std::optional<Assignment> propose(std::uint64_t, std::span<const Assignment>) override {
    return Assignment{0.5};
  }
  void observe(const Observation& o) override { seen_.push_back(o.objective); }

 private:
  std::vector<std::optional<double>>& seen_;
};

TEST(ScalarisedSampler, ParetoRankPeelsFronts) {
  std::vector<std::optional<double>> seen;
  ScalarisedSampler s([&] { return std::make_unique<Recorder>(seen); }, {true, true}, 1,
                      ScalarisedSampler::Method::ParetoRank);
  const std::vector<std::vector<double>> values = {{1, 1}, {0, 3}, {2, 2}, {3, 3}, {3, 0}};
  for (std::uint64_t i = 0; i < values.size(); ++i) s.observe({i, {0.5}, values[i][0], false, values[i]});
  s.observe({5, {0.5}, std::nullopt, false, {}});  // failed: no values
  seen.clear();
  (void)s.propose(6, {});
  EXPECT_EQ(seen, (std::vector<std::optional<double>>{0.0, 0.0, 1.0, 2.0, 0.0, std::nullopt}));
}

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
