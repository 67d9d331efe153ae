// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/tpe_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "search/sampler_registry.hpp"

namespace tune {
namespace {

const char* kSquare = R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]},
                                         {"name": "y", "type": "bound", "value": [0, 1]}]})";

double bowl(const Assignment& a) {
  const double x = std::get<double>(a[0]), y = std::get<double>(a[1]);
  return (x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7);
}

// The widths and weights Optuna 3.1's _ParzenEstimator gives the same four
// observations on [0, 1] (FloatDistribution(0, 1), default parameters):
// mus [0.2 0.25 0.3 0.9 0.5], sigmas [1/6 1/6 0.2 0.4 1], weights 0.2 each.
TEST(TpeParzen, WidthsAndWeightsAsOptuna) {
  const TpeSampler::Parzen p({0.2, 0.25, 0.3, 0.9});
  const std::vector<double> mu{0.2, 0.25, 0.3, 0.9, 0.5}, sigma{1.0 / 6, 1.0 / 6, 0.2, 0.4, 1.0};
  ASSERT_EQ(p.mu.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(p.mu[i], mu[i]) << i;
    EXPECT_NEAR(p.sigma[i], sigma[i], 1e-12) << i;
    EXPECT_NEAR(p.weight[i], 0.2, 1e-12) << i;
  }
}

// Over 25 observations the oldest weigh less (Optuna's ramp), the newest 25
// and the prior weigh the same; the weights sum to 1.
TEST(TpeParzen, OlderObservationsWeighLessBeyondTwentyFive) {
  std::vector<double> obs;
  for (int i = 0; i < 40; ++i) obs.push_back((i + 0.5) / 40);
  const TpeSampler::Parzen p(obs);
  double sum = 0;
  for (double w : p.weight) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_LT(p.weight[0], p.weight[10]);
  EXPECT_LT(p.weight[10], p.weight[14]);
  EXPECT_DOUBLE_EQ(p.weight[15], p.weight[39]);
  EXPECT_DOUBLE_EQ(p.weight[39], p.weight[40]) << "the prior weighs as a new observation";
  EXPECT_NEAR(p.weight[0] / p.weight[39], 1.0 / 40, 1e-12);
  // The magic clip: no width below 1/min(100, n + 2).
  for (double s : p.sigma) EXPECT_GE(s, 1.0 / 42 - 1e-15);
}

// Draws stay in [0, 1] and follow the mixture: most fall near a tight cluster.
TEST(TpeParzen, SamplesStayInsideAndFollowTheMixture) {
  std::vector<double> obs(30, 0.0);
  for (int i = 0; i < 30; ++i) obs[static_cast<std::size_t>(i)] = 0.8 + 0.001 * i;
  const TpeSampler::Parzen p(obs);
  std::mt19937_64 rng(5);
  int near = 0;
  for (int i = 0; i < 2000; ++i) {
    const double x = p.sample(rng);
    ASSERT_GE(x, 0.0);
    ASSERT_LE(x, 1.0);
    near += std::fabs(x - 0.815) < 0.1;
  }
  EXPECT_GT(near, 1500) << "30 of 31 kernels sit at 0.8-0.83 with width 1/32";
  EXPECT_GT(p.log_score(0.815), p.log_score(0.2));
}

TEST(TpeSampler, GoodShareIsATenthUpToTwentyFive) {
  EXPECT_EQ(TpeSampler::good_count(10), 1u);
  EXPECT_EQ(TpeSampler::good_count(11), 2u);
  EXPECT_EQ(TpeSampler::good_count(100), 10u);
  EXPECT_EQ(TpeSampler::good_count(1000), 25u);
}

TEST(TpeSampler, FindsTheRegionOfABowlAndBeatsItsRandomStart) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  TpeSampler s(space, 3, true);
  double best_start = 1e9, best = 1e9;
  for (std::uint64_t t = 0; t < 80; ++t) {
    const auto a = *s.propose(t, {});
    (t < TpeSampler::kStartup ? best_start : best) =
        std::min(t < TpeSampler::kStartup ? best_start : best, bowl(a));
    s.observe({t, a, bowl(a)});
  }
  EXPECT_LT(best, best_start);
  EXPECT_LT(best, 2e-3);
}

TEST(TpeSampler, MaximisingMirrorsMinimising) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  TpeSampler lo(space, 9, true), hi(space, 9, false);
  for (std::uint64_t t = 0; t < 30; ++t) {
    const auto a = *lo.propose(t, {}), b = *hi.propose(t, {});
    ASSERT_EQ(a, b) << "trial " << t;
    lo.observe({t, a, bowl(a)});
    hi.observe({t, b, -bowl(b)});
  }
}

// Pruned trials rank below every finished one; failed trials are left out.
TEST(TpeSampler, PrunedTrialsRankLastFailedOnesAreIgnored) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  TpeSampler a(space, 2, true), b(space, 2, true);
  for (std::uint64_t t = 0; t < 12; ++t) {
    const Assignment p{0.05 * static_cast<double>(t), 0.5};
    a.observe({t, p, bowl(p)});
    b.observe({t, p, bowl(p)});
  }
  // b also sees a pruned trial where a sees a very bad result, and a failure.
  a.observe({12, Assignment{0.95, 0.95}, 1e6});
  b.observe({12, Assignment{0.95, 0.95}, std::nullopt, true});
  b.observe({13, Assignment{0.3, 0.7}, std::nullopt, false});
  for (std::uint64_t t = 14; t < 20; ++t) EXPECT_EQ(*a.propose(t, {}), *b.propose(t, {})) << "trial " << t;
}

// A constant liar: a running trial counts as a pruned one (worse than any
// result), so trials proposed while it runs go elsewhere.
TEST(TpeSampler, ARunningTrialCountsAsAPrunedOne) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  TpeSampler running(space, 4, true), pruned(space, 4, true), plain(space, 4, true);
  for (std::uint64_t t = 0; t < 15; ++t) {
    const Assignment p{0.05 * static_cast<double>(t), 0.1 + 0.05 * static_cast<double>(t)};
    for (auto* s : {&running, &pruned, &plain}) s->observe({t, p, bowl(p)});
  }
  const std::vector<Assignment> pending{{0.3, 0.7}, {0.35, 0.6}};
  for (const auto& a : pending) pruned.observe({15, a, std::nullopt, true});
  int differ = 0;
  for (std::uint64_t t = 16; t < 26; ++t) {
    const auto a = *running.propose(t, pending);
    EXPECT_EQ(a, *pruned.propose(t, {})) << "trial " << t;
    differ += a != *plain.propose(t, {});
  }
  EXPECT_GT(differ, 0) << "the running trials change what is proposed";
}

// Seven trials running at the best point: the next proposals land near it
// less often than with none running.
TEST(TpeSampler, ProposalsMoveAwayFromRunningTrials) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  int near_alone = 0, near_running = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    TpeSampler s(space, seed, true);
    for (std::uint64_t t = 0; t < 30; ++t) {
      const auto a = *s.propose(t, {});
      s.observe({t, a, bowl(a)});
    }
    const Assignment centre{0.3, 0.7};
    const std::vector<Assignment> pending(7, centre);
    const auto near = [&](const Assignment& a) { return bowl(a) < 0.05 * 0.05; };
    for (std::uint64_t t = 30; t < 35; ++t) {
      near_alone += near(*s.propose(t, {}));
      near_running += near(*s.propose(t, pending));
    }
  }
  EXPECT_LT(near_running, near_alone) << near_running << " against " << near_alone;
}

const char* kChoice =
    R"({"parameters": [{"name": "opt", "type": "choice", "value": ["sgd", "adam", "rmsprop"]},
                                         {"name": "n", "type": "int", "value": [1, 64], "log": true}]})";

// A choice that is always best gets picked far more often once the
// estimators take over; integers come back as integers inside their range.
TEST(TpeSampler, LearnsTheBestChoiceAndKeepsIntegersWhole) {
  const SearchSpace space = SearchSpace::parse(kChoice);
  TpeSampler s(space, 4, true);
  std::map<std::string, int> picked;
  for (std::uint64_t t = 0; t < 60; ++t) {
    const auto a = *s.propose(t, {});
    const auto& opt = std::get<std::string>(a[0]);
    const auto n = std::get<std::int64_t>(a[1]);
    ASSERT_GE(n, 1);
    ASSERT_LE(n, 64);
    if (t >= 20) ++picked[opt];
    s.observe({t, a, (opt == "adam" ? 0.0 : 1.0) + std::fabs(std::log2(static_cast<double>(n)) - 3)});
  }
  EXPECT_GT(picked["adam"], 20) << "of 40 proposals after 20 trials (a third by chance)";
}

TEST(TpeSampler, SameSeedSameStudyAndByName) {
  const SearchSpace space = SearchSpace::parse(kChoice);
  auto a = make_sampler("tpe", space, {.seed = 7, .minimize = true});
  auto b = make_sampler("tpe", space, {.seed = 7, .minimize = true});
  EXPECT_EQ(a->name(), "tpe");
  for (std::uint64_t t = 0; t < 25; ++t) {
    const auto pa = *a->propose(t, {}), pb = *b->propose(t, {});
    ASSERT_EQ(pa, pb) << "trial " << t;
    const double y = static_cast<double>(std::get<std::int64_t>(pa[1]));
    a->observe({t, pa, y});
    b->observe({t, pb, y});
  }
}

}  // namespace
}  // namespace tune
