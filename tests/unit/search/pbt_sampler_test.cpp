// SPDX-License-Identifier: GPL-2.0-or-later
// Population-based training's rules (pbt_sampler.hpp), driven as a study
// drives them: propose, lineage, proposed; reports; the segment's end.
#include "search/pbt_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace tune {
namespace {

SearchSpace space() {
  return SearchSpace::parse(R"({"parameters": [
      {"name": "lr", "type": "bound", "value": [0.0001, 1], "log": true},
      {"name": "shift", "type": "bound", "value": [-1, 1]},
      {"name": "layers", "type": "int", "value": [1, 8]},
      {"name": "batch", "type": "number", "value": [32, 64, 128]},
      {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})");
}

class Pbt : public testing::Test {
 protected:
  struct Started {
    std::uint64_t id;
    Assignment params;
    Lineage lineage;
  };
  std::optional<Started> start() {
    const std::uint64_t id = next_++;
    auto a = pbt_.propose(id, {});
    if (!a) return std::nullopt;
    const Lineage l = pbt_.lineage(id);
    pbt_.proposed(id, *a, l);
    return Started{id, *a, l};
  }
  // The segment reports each of its steps with `value` at the last, and ends.
  void finish(const Started& s, double value, bool ok = true) {
    const std::int64_t first = s.lineage.step_limit.value() - 4 + 1;
    for (std::int64_t step = first; step <= *s.lineage.step_limit; ++step)
      pbt_.observe_progress({s.id, step, step == *s.lineage.step_limit ? value : value + 1, s.params});
    pbt_.observe({s.id, s.params, ok ? std::optional<double>(value) : std::nullopt, false});
  }

  SearchSpace space_ = space();
  PbtSampler pbt_{space_, 7, true, {.population = 4, .interval = 4, .quantile = 0.25, .resample = 0.25}};
  std::uint64_t next_ = 0;
};

TEST_F(Pbt, TheFirstTrialsAreTheMembersEachFromScratchForOneInterval) {
  for (std::uint32_t m = 0; m < 4; ++m) {
    const auto s = start();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->lineage, (Lineage{std::nullopt, m, 4}));
    ASSERT_NO_THROW(space_.check(s->params, "pbt"));
  }
  EXPECT_TRUE(pbt_.waiting()) << "every member trains: nothing to propose until one ends";
}

TEST_F(Pbt, TheWorstCopiesABetterMembersCheckpointAndMovesItsParameters) {
  std::vector<Started> gen;
  for (int m = 0; m < 4; ++m) gen.push_back(*start());
  const double values[] = {0.2, 0.9, 0.5, 0.1};  // member 3 best, member 1 worst
  // Member 1 ends first: it is the first to go on, and the worst.
  finish(gen[1], values[1]);
  for (int m : {0, 2, 3}) finish(gen[m], values[m]);
  EXPECT_FALSE(pbt_.waiting());
  const auto next = start();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->lineage.member, std::optional<std::uint32_t>(1));
  EXPECT_EQ(next->lineage.from, std::optional<std::uint64_t>(gen[3].id)) << "the best member's checkpoint";
  EXPECT_EQ(next->lineage.step_limit, std::optional<std::int64_t>(8));
  EXPECT_NE(next->params, gen[3].params) << "explored";
  ASSERT_NO_THROW(space_.check(next->params, "pbt"));
  EXPECT_NE(pbt_.note().find("member 1 takes member 3's checkpoint"), std::string::npos) << pbt_.note();
  // A member in the middle continues its own checkpoint with its own parameters.
  const auto own = start();
  EXPECT_EQ(own->lineage.member, std::optional<std::uint32_t>(0));
  EXPECT_EQ(own->lineage.from, std::optional<std::uint64_t>(gen[0].id));
  EXPECT_EQ(own->params, gen[0].params);
}

TEST_F(Pbt, ExploreMovesNumbersByAFifthAndKeepsThemInTheSpace) {
  std::vector<Started> gen;
  for (int m = 0; m < 4; ++m) gen.push_back(*start());
  for (int m = 0; m < 4; ++m) finish(gen[m], m == 0 ? 5.0 : 0.1 * m);
  int moved = 0, checked = 0;
  // Member 0 is the worst again and again: each of its segments copies another's.
  for (int round = 0; round < 40; ++round) {
    const auto s = start();
    ASSERT_TRUE(s);
    ASSERT_NO_THROW(space_.check(s->params, "pbt"));
    if (s->lineage.member == 0u && s->lineage.from && *s->lineage.from != gen[0].id) {
      const Assignment& source = [&]() -> const Assignment& {
        for (const auto& g : gen)
          if (g.id == *s->lineage.from) return g.params;
        return s->params;
      }();
      const double a = std::get<double>(source[0]), b = std::get<double>(s->params[0]);
      ++checked;
      const double r = b / a;
      if (std::fabs(r - 1.2) < 1e-9 || std::fabs(r - 0.8) < 1e-9) ++moved;
    }
    finish(*s, s->lineage.member == 0u ? 5.0 : 0.1);
    gen.push_back(*s);
  }
  ASSERT_GT(checked, 5);
  EXPECT_GE(moved, checked / 2) << "mostly moved by 0.8 or 1.2, else resampled";
}

TEST_F(Pbt, AFailedSegmentRanksWorstAndAMemberThatTrainedToItsEndIsDone) {
  std::vector<Started> gen;
  for (int m = 0; m < 4; ++m) gen.push_back(*start());
  finish(gen[2], 0, false);  // crashed
  for (int m : {0, 1, 3}) finish(gen[m], 0.1 * (m + 1));
  const auto next = start();
  EXPECT_EQ(next->lineage.member, std::optional<std::uint32_t>(2));
  EXPECT_EQ(next->lineage.from, std::optional<std::uint64_t>(gen[0].id));
  // Member 0 ends before its step limit: its program trained its last epoch.
  const auto own = start();
  ASSERT_EQ(own->lineage.member, std::optional<std::uint32_t>(0));
  pbt_.observe_progress({own->id, 5, 0.05, own->params});
  pbt_.observe({own->id, own->params, 0.05, false});
  EXPECT_TRUE(pbt_.done(0));
  EXPECT_FALSE(pbt_.needs_checkpoint(own->id)) << "a done member's checkpoint is copied by nobody";
  pbt_.observe_progress({next->id, 5, 0.3, next->params});  // member 2 ends short of its limit too: done
  pbt_.observe({next->id, next->params, 0.3, false});
  for (int k = 0; k < 20; ++k) {
    const auto s = start();
    if (!s) break;
    EXPECT_NE(s->lineage.member, std::optional<std::uint32_t>(0)) << "a done member is not continued";
    EXPECT_NE(s->lineage.from, std::optional<std::uint64_t>(own->id));
    pbt_.observe_progress({s->id, *s->lineage.step_limit - 3, 0.2, s->params});  // ends short: done
    pbt_.observe({s->id, s->params, 0.2, false});
  }
  EXPECT_FALSE(pbt_.waiting());
  EXPECT_FALSE(start()) << "every member done: nothing more";
}

TEST_F(Pbt, ACheckpointIsNeededWhileItsMemberMayGoOnOrASegmentCopiesIt) {
  std::vector<Started> gen;
  for (int m = 0; m < 4; ++m) gen.push_back(*start());
  EXPECT_FALSE(pbt_.needs_checkpoint(gen[0].id)) << "running: not yet";
  for (int m = 0; m < 4; ++m) finish(gen[m], 0.1 * (m + 1));
  for (const auto& g : gen) EXPECT_TRUE(pbt_.needs_checkpoint(g.id));
  const auto next = start();  // member 0 continues itself
  ASSERT_EQ(next->lineage.from, std::optional<std::uint64_t>(gen[0].id));
  EXPECT_TRUE(pbt_.needs_checkpoint(gen[0].id)) << "its next segment may still be copying it";
  finish(*next, 0.05);
  EXPECT_FALSE(pbt_.needs_checkpoint(gen[0].id)) << "superseded by its member's next segment";
  EXPECT_TRUE(pbt_.needs_checkpoint(next->id));
}

TEST_F(Pbt, AResumedPopulationDecidesAsTheLiveOne) {
  std::vector<Started> all;
  std::vector<Progress> reports;
  std::vector<Observation> done;
  for (int k = 0; k < 14; ++k) {
    const auto s = start();
    ASSERT_TRUE(s);
    all.push_back(*s);
    const double v = std::fabs(std::log10(std::get<double>(s->params[0])) + 2) + 0.01 * k;
    for (std::int64_t step = *s->lineage.step_limit - 3; step <= *s->lineage.step_limit; ++step) {
      reports.push_back({s->id, step, v, s->params});
      pbt_.observe_progress(reports.back());
    }
    done.push_back({s->id, s->params, v, false});
    pbt_.observe(done.back());
  }
  PbtSampler again(space_, 7, true, {.population = 4, .interval = 4, .quantile = 0.25, .resample = 0.25});
  for (const auto& s : all) again.proposed(s.id, s.params, s.lineage);
  for (const auto& r : reports) again.observe_progress(r);
  for (const auto& o : done) again.observe(o);
  for (std::uint64_t id = 14; id < 18; ++id) {
    const auto a = pbt_.propose(id, {}), b = again.propose(id, {});
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*a, *b);
    const Lineage la = pbt_.lineage(id), lb = again.lineage(id);
    EXPECT_EQ(la, lb);
    pbt_.proposed(id, *a, la);
    again.proposed(id, *b, lb);
  }
}

}  // namespace
}  // namespace tune
