// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every registered search algorithm (samplers()): a sampler
// added to the registry is tested here with no test edited.
#include "search/sampler_registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "search/sampler.hpp"

namespace tune {
namespace {

// Every kind of parameter: an interval, a log interval, an int range, listed
// numbers and a choice.
SearchSpace mixed_space() {
  return SearchSpace::parse(R"({"parameters": [
      {"name": "x", "type": "bound", "value": [-2, 3]},
      {"name": "lr", "type": "bound", "value": [0.0001, 0.1], "log": true},
      {"name": "layers", "type": "int", "value": [1, 8]},
      {"name": "batch", "type": "number", "value": [32, 64, 128]},
      {"name": "opt", "type": "choice", "value": ["sgd", "adam", "rmsprop"]}]})",
                            "mixed.json");
}

// optimizer -> momentum, nesterov -> dampening (nested); optimizer -> beta2.
SearchSpace conditional_space() {
  return SearchSpace::parse(R"({"parameters": [
      {"name": "optimizer", "type": "choice", "value": ["sgd", "adam"]},
      {"name": "lr", "type": "bound", "value": [0.0001, 1], "log": true},
      {"name": "momentum", "type": "bound", "value": [0, 0.99], "when": {"optimizer": ["sgd"]}},
      {"name": "nesterov", "type": "choice", "value": ["yes", "no"], "when": {"optimizer": "sgd"}},
      {"name": "dampening", "type": "bound", "value": [0, 0.5], "when": {"nesterov": ["no"]}},
      {"name": "beta2", "type": "number", "value": [0.99, 0.999], "when": {"optimizer": ["adam"]}}]})",
                            "conditional.json");
}

// A bowl over the unit cube, its minimum off-centre; inactive parameters
// count as their best.
double bowl(const SearchSpace& space, const Assignment& a) {
  double y = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!is_absent(a[i])) y += std::pow(space.parameters()[i].encode(a[i]) - 0.3, 2);
  return y;
}

class EverySampler : public testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Sampler> make(const SearchSpace& space, std::uint64_t seed) const {
    // A coarse grid (a setting only grid declares; the others ignore it).
    return make_sampler(GetParam(), space,
                        {.seed = seed, .minimize = true, .settings = Settings({{"grid_points", 3}})});
  }
  // A proposal as a study makes one: propose, the lineage, then proposed()
  // (a trial's id is its number here); kept in `made` to replay on resume.
  struct Made {
    std::uint64_t id;
    Assignment params;
    Lineage lineage;
  };
  static std::optional<Assignment> ask(Sampler& s, std::uint64_t k, std::span<const Assignment> pending = {},
                                       std::vector<Made>* made = nullptr) {
    auto a = s.propose(k, pending);
    if (!a) return a;
    const Lineage l = s.lineage(k);
    s.proposed(k, *a, l);
    if (made) made->push_back({k, *a, l});
    return a;
  }
  static void replay(Sampler& s, const std::vector<Made>& made) {
    for (const auto& m : made) s.proposed(m.id, m.params, m.lineage);
  }
  // How many trials a test runs: a model-fitting sampler's proposals cost
  // milliseconds, a whole grid may be smaller.
  static std::uint64_t trials(const Sampler& s, std::uint64_t want) {
    return std::min(want, s.size().value_or(want));
  }
};

TEST_P(EverySampler, ProposesOnlyValuesOfTheSpace) {
  const auto space = mixed_space();
  auto s = make(space, 11);
  EXPECT_EQ(s->name(), GetParam());
  for (std::uint64_t k = 0; k < trials(*s, 40); ++k) {
    const auto a = ask(*s, k);
    ASSERT_TRUE(a) << "trial " << k;
    ASSERT_NO_THROW(space.check(*a, GetParam())) << "trial " << k;
    s->observe({k, *a, bowl(space, *a)});
  }
}

TEST_P(EverySampler, TheSameSeedAndResultsGiveTheSameStudy) {
  const auto space = mixed_space();
  auto a = make(space, 5), b = make(space, 5);
  for (std::uint64_t k = 0; k < trials(*a, 30); ++k) {
    const auto pa = ask(*a, k), pb = ask(*b, k);
    ASSERT_TRUE(pa && pb);
    ASSERT_EQ(*pa, *pb) << "trial " << k;
    a->observe({k, *pa, bowl(space, *pa)});
    b->observe({k, *pb, bowl(space, *pb)});
  }
}

TEST_P(EverySampler, GivesExactlyTheActiveParametersOfAConditionalSpace) {
  const auto space = conditional_space();
  auto s = make(space, 3);
  std::map<std::string, int> branches;
  for (std::uint64_t k = 0; k < trials(*s, 40); ++k) {
    const auto a = ask(*s, k);
    ASSERT_TRUE(a) << "trial " << k;
    ASSERT_NO_THROW(space.check(*a, GetParam())) << "trial " << k;
    ++branches[std::get<std::string>((*a)[0])];
    // The adam branch is better, and within sgd a small momentum.
    const double y = std::get<std::string>((*a)[0]) == "adam"
                         ? std::fabs(std::log10(std::get<double>((*a)[1])) + 2)
                         : 1 + std::get<double>((*a)[2]);
    s->observe({k, *a, y});
  }
  EXPECT_GT(branches["sgd"], 0);
  EXPECT_GT(branches["adam"], 0);
}

// Proposals made while others run (several runners) are not the running
// ones again.
TEST_P(EverySampler, KeepsProposalsApartFromPendingTrials) {
  const auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "a", "type": "bound", "value": [0, 1]}, {"name": "b", "type": "bound", "value": [0, 10]}]})");
  auto s = make(space, 9);
  std::vector<Assignment> pending;
  std::uint64_t k = 0;
  for (; k < trials(*s, 12); ++k) {  // after the first results, four runners busy at a time
    const auto a = ask(*s, k, pending);
    ASSERT_TRUE(a);
    for (const auto& p : pending) EXPECT_NE(*a, p) << "trial " << k << " repeats a running trial";
    pending.push_back(*a);
    if (pending.size() == 4) {
      s->observe({k - 3, pending.front(), bowl(space, pending.front())});
      pending.erase(pending.begin());
    }
  }
}

// A space of six points: a sampler either says it has no more (a grid, at
// its size) or goes on proposing points of the space.
TEST_P(EverySampler, ASmallDiscreteSpaceEndsOrStaysValid) {
  const auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "opt", "type": "choice", "value": ["sgd", "adam"]},
      {"name": "batch", "type": "number", "value": [32, 64, 128]}]})");
  auto s = make(space, 2);
  std::set<Assignment> seen;
  const std::uint64_t n = s->size().value_or(20);
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto a = ask(*s, k);
    ASSERT_TRUE(a) << "trial " << k << " of " << n;
    ASSERT_NO_THROW(space.check(*a, GetParam()));
    seen.insert(*a);
    s->observe({k, *a, static_cast<double>(std::get<double>((*a)[1])) / 128});
  }
  if (s->size()) {
    EXPECT_EQ(seen.size(), *s->size()) << "a sampler of finite size proposes each point once";
    EXPECT_FALSE(s->propose(n, {})) << "nothing after the last point";
  }
}

// A study resumed from its history (every finished trial replayed through
// observe) proposes what the uninterrupted one does next.
TEST_P(EverySampler, AResumedStudyLearnsWhatTheLiveOneLearnt) {
  const auto space = mixed_space();
  auto live = make(space, 21);
  std::vector<Observation> done;
  std::vector<Made> made, live_next, resumed_next;
  const std::uint64_t n = trials(*live, 25);
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto a = ask(*live, k, {}, &made);
    ASSERT_TRUE(a);
    // Some trials fail and some are pruned: the replay carries them too.
    Observation o{k, *a, k % 7 == 3 ? std::nullopt : std::optional<double>(bowl(space, *a)), k % 5 == 4};
    live->observe(o);
    done.push_back(o);
  }
  auto resumed = make(space, 21);
  replay(*resumed, made);
  for (const auto& o : done) resumed->observe(o);
  for (std::uint64_t k = n; k < n + 3; ++k) {
    const auto l = ask(*live, k, {}, &live_next), r = ask(*resumed, k, {}, &resumed_next);
    ASSERT_EQ(l.has_value(), r.has_value());
    if (!l) break;
    EXPECT_EQ(*l, *r) << "trial " << k;
    EXPECT_EQ(live_next.back().lineage, resumed_next.back().lineage) << "trial " << k;
    live->observe({k, *l, bowl(space, *l)});
    resumed->observe({k, *r, bowl(space, *r)});
  }
}

// Intermediate reports (observe_progress), as a study with a pruner feeds
// them: each trial's curve while it runs, then its end. A resumed study gets
// every stored report first, then the finished trials, and must propose what
// the live one does; every proposal stays in the space, and a trial started
// from another's checkpoint names one it has seen.
TEST_P(EverySampler, LearnsFromIntermediateReportsAsTheResumedStudyDoes) {
  const auto space = mixed_space();
  auto live = make(space, 33);
  std::vector<Progress> reports;
  std::vector<Observation> done;
  std::vector<Made> made, live_next, resumed_next;
  const std::uint64_t n = trials(*live, 24);
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto a = ask(*live, k, {}, &made);
    ASSERT_TRUE(a);
    ASSERT_NO_THROW(space.check(*a, GetParam())) << "trial " << k;
    if (const auto from = made.back().lineage.from) EXPECT_LT(*from, k) << "trial " << k;
    const std::int64_t steps = k % 3 == 1 ? 1 + static_cast<std::int64_t>(k % 2) * 3 : 10;
    for (std::int64_t step = 1; step <= steps; ++step) {
      const double value =
          step == 5 && k == 6 ? std::nan("") : bowl(space, *a) + 1.0 / static_cast<double>(step);
      reports.push_back({k, step, value, *a});
      live->observe_progress(reports.back());
    }
    // Trials that stopped short were pruned; a third of them (bayes's warm-
    // started fit makes its resume exact only while most trials have results).
    const bool pruned = k % 3 == 1;
    Observation o{k, *a, pruned ? std::nullopt : std::optional<double>(bowl(space, *a) + 0.1), pruned};
    live->observe(o);
    done.push_back(o);
  }
  auto resumed = make(space, 33);
  replay(*resumed, made);
  for (const auto& r : reports) resumed->observe_progress(r);
  for (const auto& o : done) resumed->observe(o);
  for (std::uint64_t k = n; k < n + 3; ++k) {
    const auto l = ask(*live, k, {}, &live_next), r = ask(*resumed, k, {}, &resumed_next);
    ASSERT_EQ(l.has_value(), r.has_value());
    if (!l) break;
    EXPECT_EQ(*l, *r) << "trial " << k;
    EXPECT_EQ(live_next.back().lineage, resumed_next.back().lineage) << "trial " << k;
    live->observe({k, *l, bowl(space, *l)});
    resumed->observe({k, *r, bowl(space, *r)});
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EverySampler, testing::ValuesIn(samplers().names()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

// What only samplers' entries say: stand-ins and refusals name real things.
TEST(SamplerRegistry, StandInsAndRefusalsAreComplete) {
  for (const auto& e : samplers().entries()) {
    EXPECT_TRUE(e.make) << e.name;
    if (!e.stand_in.empty()) {
      EXPECT_TRUE(samplers().contains(e.stand_in)) << e.name;
    }
    if (e.many == ManyObjectives::Refused) {
      EXPECT_FALSE(e.refusal.empty()) << e.name;
    }
  }
}

}  // namespace
}  // namespace tune
