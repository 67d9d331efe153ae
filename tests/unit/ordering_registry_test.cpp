// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every ordering tune simulate knows (ordering_policies()):
// a new ordering is tested by registering it. Each runs the same small
// contest, a study at a ceiling beside one improving to its target on a
// cluster with room for one trial at a time.
#include <gtest/gtest.h>

#include <string>

#include "simulation/ordering.hpp"
#include "simulation/simulator.hpp"
#include "simulation_fixture.hpp"

using namespace tune;
using namespace tune::sim;

namespace {

SimResult contest(const std::string& ordering) {
  SimOptions o;
  o.priority = ordering;
  o.study_mode = "trials";
  o.drain = 60;
  return simulate(testing_support::gpu_cluster(1, 1), testing_support::flat_and_rising(), o);
}

// The ordering of the same priority type that lowers nothing.
std::string without_lowering(const OrderingSpec& spec) {
  for (const auto& e : ordering_policies().entries())
    if (e.priority_type == spec.priority_type && e.lowering == Lowering::None) return e.name;
  ADD_FAILURE() << spec.name << ": no ordering of " << spec.priority_type << " without lowering";
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

INSTANTIATE_TEST_SUITE_P(Registry, EveryOrdering, testing::ValuesIn(ordering_policies().names()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string n;
                           for (char c : p.param) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
