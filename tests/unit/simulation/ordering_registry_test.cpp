// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every ordering tune simulate knows (ordering_policies()):
// a new ordering is tested by registering it. Each runs the same small
// contest, a study at a ceiling beside one improving to its target on a
// cluster with room for one trial at a time.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "simulation/ordering.hpp"
#include "simulation/priority_trace.hpp"
#include "simulation/simulator.hpp"
#include "tests/unit/simulation/simulation_fixture.hpp"

using namespace tune;
using namespace tune::sim;

namespace {

SimResult contest(const std::string& ordering, std::ostream* trace = nullptr, int max_level = 8) {
  SimOptions o;
  o.priority = ordering;
  o.trace = trace;
  o.tune.adaptive.max_level = max_level;
  o.study_mode = "trials";
  o.drain = 60;
  return simulate(testing_support::gpu_cluster(1, 1), testing_support::flat_and_rising(), o);
}

// The ordering of the same priority type that lowers nothing.
std::string without_lowering(const OrderingSpec& spec) {
  for (const auto& e : ordering_policies().entries())
    if (e.priority_type == spec.priority_type && e.lowering == Lowering::None) return e.name;
  ADD_FAILURE() << spec.name << ": no ordering of " << priority_type_name(spec.priority_type)
                << " without lowering";
  return spec.name;
}

class EveryOrdering : public testing::TestWithParam<std::string> {};

TEST_P(EveryOrdering, RunsEveryTrialOnceAndLeavesNoJob) {
  const SimResult r = contest(GetParam());
  ASSERT_EQ(r.studies.size(), 2u);
  EXPECT_EQ(r.studies[0].trials, 60) << "the study at its ceiling still runs every trial";
  EXPECT_GE(r.studies[1].reached, 0) << "the improving study meets its target";
  EXPECT_EQ(r.studies[0].interrupted, 0);
  for (std::size_t j = 0; j < r.study_jobs.size(); ++j) {
    const JobResult& jr = r.jobs[r.jobs.size() - r.study_jobs.size() + j];
    EXPECT_TRUE(jr.cancelled || jr.end >= jr.start) << "study job " << j << " neither ran nor was cancelled";
  }
}

TEST_P(EveryOrdering, TheSameRunTwiceIsTheSameSchedule) {
  const SimResult a = contest(GetParam()), b = contest(GetParam());
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    EXPECT_EQ(a.jobs[j].start, b.jobs[j].start) << "job " << j;
    EXPECT_EQ(a.jobs[j].end, b.jobs[j].end) << "job " << j;
  }
  for (std::size_t s = 0; s < a.studies.size(); ++s)
    EXPECT_EQ(a.studies[s].max_level, b.studies[s].max_level) << "study " << s;
}

// Lowering a study at its ceiling never puts it ahead of the improving one:
// the improving study meets its target no later than under its priority
// type alone.
TEST_P(EveryOrdering, NeverRaisesTheStudyAtItsCeiling) {
  const OrderingSpec& spec = ordering_policy(GetParam());
  const SimResult r = contest(spec.name), alone = contest(without_lowering(spec));
  ASSERT_GE(alone.studies[1].reached, 0);
  if (spec.lowering == Lowering::Tune)
    EXPECT_GE(r.studies[0].max_level, 1) << "the plugin's estimator lowers the study at its ceiling";
  EXPECT_LE(r.studies[1].reached, alone.studies[1].reached)
      << spec.name << " " << r.studies[1].reached << " s, " << without_lowering(spec) << " "
      << alone.studies[1].reached << " s";
  EXPECT_EQ(r.studies[1].max_level, 0) << "the improving study is never lowered";
}

// The priority trace (tune simulate --sprio): every job started appears
// started once, each pass lists its queue in priority order, and under
// site_factor/tune a yielding study's job is never above a waiting job of no
// yielding study, even at level 1 of 1 (where halving the priority leaves
// the yielding study, whose fair share has grown while it waited, on top).
TEST_P(EveryOrdering, TheTraceShowsEachStartInItsQueue) {
  const OrderingSpec& spec = ordering_policy(GetParam());
  std::stringstream out;
  write_trace_header(out);
  const SimResult r = contest(spec.name, &out, 1);
  std::string line;
  std::getline(out, line);
  EXPECT_EQ(line, "TIME PASS JOBID ACCOUNT STUDY LEVEL AGE FAIRSHARE SITE PRIORITY STARTED");
  struct Row {
    double prio;
    int level;
  };
  std::map<std::string, std::vector<Row>> passes;  // "time pass" -> rows in order
  std::map<int, int> started;                      // job id -> rows saying it started
  int rows = 0;
  while (std::getline(out, line)) {
    std::istringstream in(line);
    std::string time, pass, account, study, level, age, fairshare;
    int id = 0, start = 0;
    long long site = 0;
    double prio = 0;
    ASSERT_TRUE(in >> time >> pass >> id >> account >> study >> level >> age >> fairshare >> site >> prio >>
                start)
        << line;
    ASSERT_TRUE(pass == "main" || pass == "backfill") << line;
    EXPECT_LE(site, 0) << line;
    EXPECT_EQ(age == "-", spec.priority_type == PriorityType::Basic) << "multifactor's terms only: " << line;
    if (start) ++started[id];
    passes[time + " " + pass].push_back({prio, level == "-" ? 0 : std::stoi(level)});
    ++rows;
  }
  ASSERT_GT(rows, 0);
  int ran = 0;
  for (const auto& j : r.jobs) ran += j.start >= 0;
  EXPECT_EQ(static_cast<int>(started.size()), ran) << "every job that ran started in a traced pass";
  for (const auto& [id, n] : started) EXPECT_EQ(n, 1) << "job " << id;
  int both = 0;  // passes in which a yielding and a non-yielding job wait
  for (const auto& [when, q] : passes) {
    for (std::size_t i = 1; i < q.size(); ++i) EXPECT_GE(q[i - 1].prio, q[i].prio) << when;
    if (spec.lowering != Lowering::Tune || spec.priority_type != PriorityType::Multifactor) continue;
    bool yielding = false, other = false;
    for (const auto& y : q) {
      yielding = yielding || y.level > 0, other = other || y.level == 0;
      for (const auto& o : q)
        if (y.level > 0 && o.level == 0) EXPECT_LT(y.prio, o.prio) << when;
    }
    both += yielding && other;
  }
  if (spec.lowering == Lowering::Tune && spec.priority_type == PriorityType::Multifactor)
    EXPECT_GT(both, 0) << "the contest has passes where the order matters";
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryOrdering, testing::ValuesIn(ordering_policies().names()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string n;
                           for (char c : p.param) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
