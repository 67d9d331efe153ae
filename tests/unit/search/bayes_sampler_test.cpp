// SPDX-License-Identifier: GPL-2.0-or-later
// The bayes sampler (lib/search/bayes_sampler): GP + expected improvement,
// its noise measured by replicates.
#include "search/bayes_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <set>

#include "search/cmaes_sampler.hpp"
#include "search/gaussian_process.hpp"
#include "search/halton.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {
namespace {

TEST(ExpectedImprovement, KnownValuesAndDerivatives) {
  const double phi0 = 1 / std::sqrt(2 * std::numbers::pi);
  EXPECT_NEAR(expected_improvement(0, 1, 0).ei, phi0, 1e-12);
  EXPECT_NEAR(expected_improvement(1, 0, 2).ei, 1.0, 1e-12);  // certain improvement of 1
  EXPECT_EQ(expected_improvement(3, 0, 2).ei, 0.0);           // certainly worse
  // EI(mu, s) = (b - mu) Phi(z) + s phi(z); at mu = 0, s = 2, b = 1: z = 0.5.
  const double z = 0.5, Phi = 0.5 * std::erfc(-z / std::sqrt(2.0)), phi = std::exp(-z * z / 2) * phi0;
  const auto e = expected_improvement(0, 2, 1);
  EXPECT_NEAR(e.ei, Phi + 2 * phi, 1e-12);
  const double eps = 1e-6;
  EXPECT_NEAR(e.d_mean,
              (expected_improvement(eps, 2, 1).ei - expected_improvement(-eps, 2, 1).ei) / (2 * eps), 1e-6);
  EXPECT_NEAR(e.d_sd,
              (expected_improvement(0, 2 + eps, 1).ei - expected_improvement(0, 2 - eps, 1).ei) / (2 * eps),
              1e-6);
}

const char* kMixedSpace = R"({"parameters": [
  {"name": "lr", "type": "bound", "value": [1e-4, 1], "log": true},
  {"name": "layers", "type": "int", "value": [1, 4]},
  {"name": "batch", "type": "number", "value": [16, 32, 64]},
  {"name": "opt", "type": "choice", "value": ["sgd", "adam", "rmsprop"]}]})";

TEST(BayesSampler, FeaturesRoundDiscreteValuesAndOneHotChoices) {
  const SearchSpace space = SearchSpace::parse(kMixedSpace);
  const BayesSampler s(space, 1, true);
  Eigen::VectorXd u(4);
  u << 0.5, 0.40, 0.5, 0.9;
  const Eigen::VectorXd f = s.features(u);
  ASSERT_EQ(f.size(), 1 + 1 + 1 + 3);
  EXPECT_DOUBLE_EQ(f(0), 0.5);                                            // log interval: its coordinate
  EXPECT_DOUBLE_EQ(f(1), space.parameters()[1].encode(std::int64_t{2}));  // 0.40 -> 2 of 1..4, rounded
  EXPECT_DOUBLE_EQ(f(2), space.parameters()[2].encode(32.0));
  EXPECT_EQ(f.tail(3), Eigen::Vector3d(0, 0, 1));  // rmsprop
  // Any u inside the same integer's share gives the same features.
  Eigen::VectorXd v = u;
  v(1) = 0.30;
  EXPECT_EQ(s.features(v)(1), f(1));
}

double bowl(const Assignment& a) {
  const double x = std::get<double>(a[0]), y = std::get<double>(a[1]);
  return (x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7);
}

const char* kSquare = R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]},
                                         {"name": "y", "type": "bound", "value": [0, 1]}]})";

TEST(BayesSampler, FindsTheMinimumOfABowl) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler s(space, 3, true);
  double best = 1e9;
  for (std::uint64_t t = 0; t < 25; ++t) {
    const auto a = *s.propose(t, {});
    best = std::min(best, bowl(a));
    s.observe({t, a, bowl(a)});
  }
  EXPECT_LT(best, 1e-3);
}

TEST(BayesSampler, SameSeedSameStudy) {
  const SearchSpace space = SearchSpace::parse(kMixedSpace);
  BayesSampler a(space, 11, false), b(space, 11, false);
  for (std::uint64_t t = 0; t < 14; ++t) {
    const auto pa = *a.propose(t, {}), pb = *b.propose(t, {});
    ASSERT_EQ(pa, pb) << "trial " << t;
    const double y = std::log(std::get<double>(pa[0])) + static_cast<double>(std::get<std::int64_t>(pa[1]));
    a.observe({t, pa, y});
    b.observe({t, pb, y});
  }
}

TEST(BayesSampler, ParallelProposalsSpreadOut) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler s(space, 5, true);
  std::uint64_t t = 0;
  for (; t < 15; ++t) {
    const auto a = *s.propose(t, {});
    s.observe({t, a, bowl(a)});
  }
  // Eight proposals while the earlier ones still run, as with 8 runners.
  std::vector<Assignment> pending;
  for (int k = 0; k < 8; ++k) pending.push_back(*s.propose(t++, pending));
  double closest = 1e9;
  for (std::size_t i = 0; i < pending.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const double dx = std::get<double>(pending[i][0]) - std::get<double>(pending[j][0]);
      const double dy = std::get<double>(pending[i][1]) - std::get<double>(pending[j][1]);
      closest = std::min(closest, std::hypot(dx, dy));
    }
  EXPECT_GT(closest, 1e-3) << "two running trials were given (almost) the same point";
}

// Apart from the one replicate (below), a discrete space's points are not
// handed out twice.
TEST(BayesSampler, NeverRepeatsAPointOfADiscreteSpace) {
  const SearchSpace space =
      SearchSpace::parse(R"({"parameters": [{"name": "n", "type": "int", "value": [1, 4]},
      {"name": "c", "type": "choice", "value": ["a", "b", "c"]}]})");
  BayesSampler s(space, 2, true);
  std::set<Assignment> seen;
  for (std::uint64_t t = 0; t < 12; ++t) {
    const auto a = *s.propose(t, {});
    EXPECT_EQ(seen.insert(a).second, t != s.initial_trials()) << "trial " << t;
    s.observe({t, a, static_cast<double>(std::get<std::int64_t>(a[0]))});
  }
}

// After the initial design the best trial runs again: a program that gives
// the same result twice has no noise, and the model goes on; one whose two
// results differ as much as its results do is noisy from then on.
TEST(BayesSampler, TheReplicateMeasuresTheNoiseRightAfterTheDesign) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler s(space, 3, true);
  Assignment best;
  double best_y = 1e9;
  for (std::uint64_t t = 0; t < s.initial_trials(); ++t) {
    const auto a = *s.propose(t, {});
    if (bowl(a) < best_y) best_y = bowl(a), best = a;
    s.observe({t, a, bowl(a)});
  }
  const auto again = *s.propose(s.initial_trials(), {});
  EXPECT_EQ(again, best);
  EXPECT_FALSE(s.replicate_share());
  s.observe({s.initial_trials(), again, bowl(again)});
  ASSERT_TRUE(s.replicate_share());
  EXPECT_EQ(*s.replicate_share(), 0.0);
  (void)s.propose(s.initial_trials() + 1, {});
  EXPECT_EQ(s.note(), "");

  BayesSampler noisy(space, 3, true);
  for (std::uint64_t t = 0; t < noisy.initial_trials(); ++t) {
    const auto a = *noisy.propose(t, {});
    noisy.observe({t, a, bowl(a) + 0.1 * static_cast<double>(t)});
  }
  const auto a = *noisy.propose(noisy.initial_trials(), {});
  noisy.observe({noisy.initial_trials(), a, bowl(a) + 5});  // the same point, a very different result
  ASSERT_TRUE(noisy.replicate_share());
  EXPECT_GT(*noisy.replicate_share(), BayesSampler::kNoisyShare);
  (void)noisy.propose(noisy.initial_trials() + 1, {});
  EXPECT_NE(noisy.note().find("proposing with tpe"), std::string::npos) << noisy.note();

  // A resumed study finds its replicate among its results and does not ask again.
  BayesSampler resumed(space, 3, true);
  for (std::uint64_t t = 0; t < 3; ++t) resumed.observe({t, {0.2, 0.2}, 1.0 + static_cast<double>(t)});
  ASSERT_TRUE(resumed.replicate_share());
  EXPECT_NE(*resumed.propose(resumed.initial_trials(), {}), (Assignment{0.2, 0.2}));
}

// A program whose replicate differs gets up to kReplicates of them, one
// every initial-design length of trials, each at the best trial not yet
// replicated; one that gives the same result twice gets one.
TEST(BayesSampler, ANoisyProgramGetsMoreReplicatesADeterministicOneNone) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  std::mt19937_64 noise(5);
  for (const bool noisy : {false, true}) {
    BayesSampler s(space, 8, true);
    std::vector<Assignment> seen;
    std::vector<std::uint64_t> again;
    for (std::uint64_t t = 0; t < 6 * s.initial_trials(); ++t) {
      const auto a = *s.propose(t, {});
      if (std::find(seen.begin(), seen.end(), a) != seen.end()) again.push_back(t);
      seen.push_back(a);
      s.observe({t, a, bowl(a) + (noisy ? 0.05 * static_cast<double>(noise() >> 11) * 0x1.0p-53 : 0.0)});
    }
    const auto n = s.initial_trials();
    const std::vector<std::uint64_t> expected =
        noisy ? std::vector<std::uint64_t>{n, 2 * n, 3 * n} : std::vector<std::uint64_t>{n};
    EXPECT_EQ(again, expected);
    EXPECT_EQ(s.replicates(), again.size());
    ASSERT_TRUE(s.replicate_share());
    if (noisy)
      EXPECT_GT(*s.replicate_share(), 0.0);
    else
      EXPECT_EQ(*s.replicate_share(), 0.0);
  }
}

// In 10 dimensions a fit explains noise with short length scales and puts
// next to none of it in its noise term; the replicates still see it, and
// bayes proposes with its companion, cmaes there, from the first
// replicate's result on.
TEST(BayesSampler, InTenDimensionsTheReplicatesSeeTheNoiseTheFitDoesNot) {
  std::string text = R"({"parameters": [)";
  for (int j = 0; j < 10; ++j)
    text += std::string(j ? "," : "") + R"({"name": "x)" + std::to_string(j) +
            R"(", "type": "bound", "value": [-5, 5]})";
  const SearchSpace space = SearchSpace::parse(text + "]}");
  BayesSampler s(space, 11, true);
  std::mt19937_64 rng(3);
  const auto sphere = [&](const Assignment& a) {
    double f = 0;
    for (const auto& v : a) f += std::get<double>(v) * std::get<double>(v);
    return f *
           std::exp(std::normal_distribution<double>()(rng));  // BBOB's severe multiplicative noise (beta 1)
  };
  std::uint64_t first_by_tpe = 0;
  bool by_tpe_throughout = true;
  for (std::uint64_t t = 0; t < 2 * s.initial_trials() + 10; ++t) {
    const auto a = *s.propose(t, {});
    const bool tpe = s.note().find("proposing with cmaes") != std::string::npos;
    if (tpe && !first_by_tpe) first_by_tpe = t;
    if (first_by_tpe && !tpe) by_tpe_throughout = false;
    s.observe({t, a, sphere(a)});
  }
  EXPECT_EQ(s.initial_trials(), 20u);
  EXPECT_EQ(first_by_tpe, s.initial_trials() + 1) << "replicate share " << s.replicate_share().value_or(-1);
  EXPECT_TRUE(by_tpe_throughout);
  EXPECT_LT(s.noise_share(), BayesSampler::kNoisyShare)
      << "the fit saw the noise after all: the test shows nothing";
  EXPECT_NE(s.note().find("trials run twice differ"), std::string::npos) << s.note();
}

// The portfolio: after the initial design, one proposal in kTpeEvery is
// what tpe, fed the same trials, proposes; the others are the model's.
TEST(BayesSampler, OneProposalInFourAfterTheDesignIsTpes) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler bayes(space, 12, true);
  TpeSampler tpe(space, 12, true);
  int by_tpe = 0, by_model = 0;
  for (std::uint64_t t = 0; t < 40; ++t) {
    const auto a = *bayes.propose(t, {});
    const auto other = *tpe.propose(t, {});
    if (t > bayes.initial_trials() && t % BayesSampler::kTpeEvery == BayesSampler::kTpeEvery - 1) {
      EXPECT_EQ(a, other) << "trial " << t;
      ++by_tpe;
    } else if (t > bayes.initial_trials()) {
      by_model += a != other;
    }
    bayes.observe({t, a, bowl(a)});
    tpe.observe({t, a, bowl(a)});
  }
  EXPECT_EQ(by_tpe, 9);  // trials 7, 11, ..., 39
  EXPECT_GE(by_model, 20) << "the model's own proposals are tpe's too";
  EXPECT_EQ(bayes.note(), "") << "the portfolio is not the switch for noisy results";
}

// From kCmaesFrom dimensions on the companion is cmaes: the portfolio's
// proposals (one in kCmaesEvery), and all while the results are too noisy,
// are what cmaes fed the same trials proposes. Below, they are tpe's (the
// tests above).
TEST(BayesSampler, FromTenDimensionsTheCompanionIsCmaes) {
  std::string text = R"({"parameters": [)";
  for (std::size_t j = 0; j < BayesSampler::kCmaesFrom; ++j)
    text += std::string(j ? "," : "") + R"({"name": "x)" + std::to_string(j) +
            R"(", "type": "bound", "value": [0, 1]})";
  const SearchSpace space = SearchSpace::parse(text + "]}");
  const auto ball = [](const Assignment& a) {
    double f = 0;
    for (const auto& v : a) f += (std::get<double>(v) - 0.3) * (std::get<double>(v) - 0.3);
    return f;
  };
  for (const bool noisy : {false, true}) {
    BayesSampler bayes(space, 8, true);
    CmaesSampler cmaes(space, 8, true);
    std::mt19937_64 rng(4);
    int by_cmaes = 0, expected = 0;
    std::set<Assignment> seen;
    for (std::uint64_t t = 0; t < 48; ++t) {
      const auto a = *bayes.propose(t, {});
      const bool replicate = !seen.insert(a).second;
      const bool portfolio =
          t > bayes.initial_trials() && t % BayesSampler::kCmaesEvery == BayesSampler::kCmaesEvery - 1;
      const bool switched = bayes.note().find("proposing with cmaes") != std::string::npos;
      if ((portfolio || switched) && !replicate) {
        ++expected;
        by_cmaes += a == *cmaes.propose(t, {});
      }
      const double y = noisy ? static_cast<double>(rng() >> 11) * 0x1.0p-53 : ball(a);
      bayes.observe({t, a, y});
      cmaes.observe({t, a, y});
    }
    EXPECT_EQ(by_cmaes, expected) << (noisy ? "noisy" : "smooth");
    if (noisy)
      EXPECT_GE(expected, 20) << "pure noise: nearly every proposal after the design is cmaes's";
    else
      EXPECT_EQ(expected, 14) << "the portfolio's trials 21, 23, ..., 47";
  }
}

// A sampler rebuilt for every proposal (ParEGO's inner sampler, for several
// objectives) sees a running replicate only among the pending trials: it
// does not hand the same point out again.
TEST(BayesSampler, AReplicateStillRunningIsNotAskedForAgain) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  std::vector<Observation> done;
  BayesSampler first(space, 4, true);
  for (std::uint64_t t = 0; t < first.initial_trials(); ++t) {
    const auto a = *first.propose(t, {});
    done.push_back({t, a, bowl(a)});
    first.observe(done.back());
  }
  const Assignment replicate = *first.propose(first.initial_trials(), {});
  BayesSampler rebuilt(space, 4, true);
  for (const auto& o : done) rebuilt.observe(o);
  const std::vector<Assignment> running{replicate};
  EXPECT_NE(*rebuilt.propose(first.initial_trials() + 1, running), replicate);
  EXPECT_NE(*first.propose(first.initial_trials() + 1, running), replicate);
}

TEST(BayesSampler, PrunedTrialsKeepTheModelAway) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler s(space, 9, true);
  for (std::uint64_t t = 0; t < 12; ++t) {
    const auto a = *s.propose(t, {});
    // Everything near (0.3, 0.7) was pruned: no objective, only the flag.
    if (bowl(a) < 0.05)
      s.observe({t, a, std::nullopt, true});
    else
      s.observe({t, a, bowl(a)});
  }
  // Without crashing or proposing the pruned points again.
  EXPECT_TRUE(s.propose(12, {}).has_value());
}

TEST(BayesSampler, TrustRegionGrowsOnImprovementsShrinksOnStallsAndStartsAgain) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler s(space, 1, true);
  std::uint64_t t = 0;
  auto feed = [&](double x, double y, double value) { s.observe({t++, {x, y}, value}); };
  for (std::uint64_t i = 0; i < s.initial_trials(); ++i) feed(0.9, 0.1, 10);
  EXPECT_DOUBLE_EQ(s.trust_length(), 0.8) << "the initial design leaves the start";
  feed(0.5, 0.5, 9), feed(0.4, 0.6, 8), feed(0.3, 0.7, 7);  // 3 improvements in a row
  EXPECT_DOUBLE_EQ(s.trust_length(), 1.6);
  for (int k = 0; k < 4; ++k) feed(0.9, 0.9, 100);  // 2 dimensions: 4 trials without one halve it
  EXPECT_DOUBLE_EQ(s.trust_length(), 0.8);
  for (int k = 0; k < 12; ++k) feed(0.9, 0.9, 100);
  EXPECT_DOUBLE_EQ(s.trust_length(), 0.1);
  // The next proposal stays within 0.05 of the best trial (0.3, 0.7).
  const auto a = *s.propose(t, {});
  EXPECT_LE(std::fabs(std::get<double>(a[0]) - 0.3), 0.05 + 1e-12);
  EXPECT_LE(std::fabs(std::get<double>(a[1]) - 0.7), 0.05 + 1e-12);
  // Below 1/100 of the cube the local search starts again from the start size.
  for (int k = 0; k < 16; ++k) feed(0.9, 0.9, 100);
  EXPECT_DOUBLE_EQ(s.trust_length(), 0.8);
}

// Several runners: trials proposed beside one another from the same results
// finish one by one. Once one has moved the best, the others could not have
// known it: they neither stall the region nor break a run of improvements.
// Results that do not say what their proposal knew (Observation::known)
// count as proposed with every earlier result known, as with one runner.
TEST(BayesSampler, TrustRegionCountsOnlyResultsProposedOnceTheBestWasKnown) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  const auto design = [&](BayesSampler& s) {
    for (std::uint64_t t = 0; t < s.initial_trials(); ++t) s.observe({t, {0.9, 0.1}, 10.0});
  };
  // 8 proposals in a row with nothing finishing in between, as 8 runners start.
  const auto start_eight = [&](BayesSampler& s) {
    std::vector<Assignment> running;
    for (std::uint64_t t = s.initial_trials(); t < s.initial_trials() + 8; ++t)
      running.push_back(*s.propose(t, running));
    return running;
  };
  {
    BayesSampler live(space, 1, true), replayed(space, 1, true);
    design(live), design(replayed);
    const std::uint64_t first = live.initial_trials();
    const auto running = start_eight(live);
    // The first to finish improves on the design; the other 7 do not.
    for (std::uint64_t t = first; t < first + 8; ++t) {
      Observation o{t, running[t - first], t == first ? 5.0 : 100.0};
      replayed.observe(o);
      o.known = first;  // all 8 were proposed from the design's results
      live.observe(o);
    }
    EXPECT_DOUBLE_EQ(live.trust_length(), 0.8)
        << "7 results proposed before the best was known are no stalls";
    EXPECT_DOUBLE_EQ(replayed.trust_length(), 0.4)
        << "without the proposals: 7 stalls, halved after 4 (2 dimensions)";
    // Proposed once the best was known, a result that does not beat it is a stall.
    for (std::uint64_t t = first + 8; t < first + 12; ++t) live.observe({t, *live.propose(t, {}), 100.0});
    EXPECT_DOUBLE_EQ(live.trust_length(), 0.4);
  }
  {
    BayesSampler live(space, 2, true), replayed(space, 2, true);
    design(live), design(replayed);
    const std::uint64_t first = live.initial_trials();
    const auto running = start_eight(live);
    // Improvements with siblings finishing between them: 9, -, 8, -, 7.
    const double results[] = {9, 100, 8, 100, 7};
    for (std::uint64_t t = first; t < first + 5; ++t) {
      Observation o{t, running[t - first], results[t - first]};
      replayed.observe(o);
      o.known = first;
      live.observe(o);
    }
    EXPECT_DOUBLE_EQ(live.trust_length(), 1.6)
        << "3 improvements in a row among the results that knew the best";
    EXPECT_DOUBLE_EQ(replayed.trust_length(), 0.8) << "without the proposals the siblings break the run";
  }
}

// The objective's warping keeps proposals independent of the objective's
// units: a positive affine change of every result changes nothing.
TEST(BayesSampler, ProposalsDoNotDependOnTheObjectivesUnits) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler a(space, 4, true), b(space, 4, true);
  for (std::uint64_t t = 0; t < 16; ++t) {
    const auto pa = *a.propose(t, {}), pb = *b.propose(t, {});
    for (std::size_t j = 0; j < 2; ++j)
      ASSERT_NEAR(std::get<double>(pa[j]), std::get<double>(pb[j]), 1e-6) << "trial " << t;
    // A heavy tail too: one result in four is a thousand times worse.
    const double y = bowl(pa) * (t % 4 == 3 ? 1000 : 1);
    a.observe({t, pa, y});
    b.observe({t, pb, 250 * y + 1e6});
  }
}

// Results that are mostly noise (here: nothing but noise) make the model's
// fit put most of their variance in its noise term; bayes then proposes what
// TPE would, fed the same trials, and says so. A smooth bowl does not.
TEST(BayesSampler, NoisyResultsSwitchToTpeAndSaySo) {
  const SearchSpace space = SearchSpace::parse(kSquare);
  BayesSampler bayes(space, 6, true);
  TpeSampler tpe(space, 6, true);
  std::mt19937_64 noise(17);
  bool switched = false;
  std::set<Assignment> seen;
  for (std::uint64_t t = 0; t < 40; ++t) {
    const auto a = *bayes.propose(t, {});
    const bool replicate = !seen.insert(a).second;  // measures the noise again, whoever proposes
    if (bayes.note().find("proposing with tpe") != std::string::npos && !replicate) {
      switched = true;
      EXPECT_EQ(a, *tpe.propose(t, {})) << "trial " << t;
    }
    const double y = static_cast<double>(noise() >> 11) * 0x1.0p-53;
    bayes.observe({t, a, y});
    tpe.observe({t, a, y});
  }
  EXPECT_TRUE(switched) << "pure noise never switched to tpe";

  // Pure noise is caught by the replicate, right after the design: not 20 results later.
  BayesSampler early(space, 6, true);
  std::uint64_t first_by_tpe = 0;
  for (std::uint64_t t = 0; t < BayesSampler::kNoisyMinTrials && !first_by_tpe; ++t) {
    const auto a = *early.propose(t, {});
    if (early.note().find("proposing with tpe") != std::string::npos) first_by_tpe = t;
    early.observe({t, a, static_cast<double>(noise() >> 11) * 0x1.0p-53});
  }
  EXPECT_EQ(first_by_tpe, early.initial_trials() + 1) << "the replicate is trial " << early.initial_trials();

  BayesSampler smooth(space, 6, true);
  for (std::uint64_t t = 0; t < 30; ++t) {
    const auto a = *smooth.propose(t, {});
    EXPECT_EQ(smooth.note(), "") << "trial " << t;
    smooth.observe({t, a, bowl(a)});
  }
}

}  // namespace
}  // namespace tune
