// SPDX-License-Identifier: GPL-2.0-or-later
// Samplers over several objectives through their scalarisations
// (lib/search/scalarised_sampler).
#include "search/scalarised_sampler.hpp"

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
#include "study/front.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

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

}  // namespace
}  // namespace tune
