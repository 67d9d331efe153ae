// SPDX-License-Identifier: GPL-2.0-or-later
// The flags of several objectives (lib/command/objective_flags).
#include "command/objective_flags.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <numeric>
#include <random>

#include "history/history.hpp"
#include "search/pareto.hpp"
#include "search/sampler.hpp"
#include "search/scalarised_sampler.hpp"
#include "study/front.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

std::string flag_error(std::string_view o, std::string_view d, std::string_view t) {
  try {
    parse_objective_flags(o, d, t);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
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

}  // namespace
}  // namespace tune
