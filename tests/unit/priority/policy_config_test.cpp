// SPDX-License-Identifier: GPL-2.0-or-later
// sched_tune.conf read into the policy's options (lib/priority/policy_config),
// its estimator choice among them.
#include "priority/policy_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "estimators/tail_estimate.hpp"
#include "estimators/yield_level.hpp"
#include "priority/job_summary.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority/study_tracker.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

using testing_support::fast;

const Resources kCluster{16, 8000, 0};

TEST(PolicyConfig, DefaultsAndEverySetting) {
  const auto c = parse_policy_config("", "empty.conf");
  EXPECT_EQ(c.interval, 30);
  EXPECT_EQ(c.yield.signal, SIGUSR1);
  EXPECT_EQ(c.fairshare.tenant, TenantBy::Auto);
  EXPECT_EQ(parse_policy_config("fairshare = { tenant = \"user\"; };", "u.conf").fairshare.tenant,
            TenantBy::User);
  EXPECT_EQ(parse_policy_config("fairshare = { tenant = \"account\"; };", "a.conf").fairshare.tenant,
            TenantBy::Account);
  const auto d = parse_policy_config(R"(
    interval = 5;
    state_file = "/var/tmp/x.state";
    fairshare = { half_life = 3600.0; weight = 1000; age_weight = 10; max_age = 60; shares = { physics = 2.5; bio = 1; }; };
    adaptive = { enabled = false; k = 3; m = 4; thresholds = [0.1, 0.05]; tolerance = 0.2; yield_factor = 0.25;
                 max_level = 4; relax_time = 120; };
    yield = { enabled = false; level = 3; signal = "SIGUSR2"; wait = 10; cooldown = 20; };
  )",
                                     "full.conf");
  EXPECT_EQ(d.interval, 5);
  EXPECT_EQ(d.state_file, "/var/tmp/x.state");
  EXPECT_EQ(d.fairshare.half_life, 3600);
  EXPECT_EQ(d.fairshare.share_of("physics"), 2.5);
  EXPECT_EQ(d.fairshare.share_of("bio"), 1);
  EXPECT_EQ(d.fairshare.share_of("other"), 1);
  EXPECT_EQ(d.weights.fairshare, 1000);
  EXPECT_FALSE(d.adaptive_enabled);
  EXPECT_EQ(d.adaptive.setting("m"), 4);
  EXPECT_EQ(d.adaptive.thresholds, (std::vector<double>{0.1, 0.05}));
  EXPECT_EQ(d.yield.signal, signal_number("USR2"));
  EXPECT_EQ(d.yield.cooldown, 20);
}

TEST(PolicyConfig, ErrorsNameTheLineAndTheFix) {
  struct Case {
    const char* text;
    int line;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"interval = 5;\nfairshare = = {};", 2, "syntax error"},
           {"\n\ninterval = 0;", 3, "out of range"},
           {"intervall = 5;", 1, "unknown setting 'intervall'"},
           {"fairshare = {\n  half_life = \"long\";\n};", 2, "must be a number"},
           {"fairshare = {\n  tenant = \"group\";\n};", 2, "use \"auto\""},
           {"adaptive = {\n m = 40;\n};", 2, "out of range"},
           {"adaptive = {\n k = 2.5;\n};", 2, "whole number"},
           {"adaptive = {\n thresholds = [];\n};", 2, "1 to 32"},
           {"yield = {\n\n signal = \"KILL\";\n};", 3, "is not a signal"},
           {"fairshare = {\n shares = { a = -1; };\n};", 2, "out of range"},
           {"fairshare = 3;", 1, "must be a group"},
           {"adaptive = { enabled = 1; };", 1, "true or false"},
       }) {
    try {
      parse_policy_config(c.text, "sched_tune.conf");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, c.line) << c.text << " -> " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("sched_tune.conf:", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(load_policy_config("/nonexistent/sched_tune.conf"), ConfigError);
}

TEST(PolicyConfig, ChoosesTheEstimatorByNameWithItsSettings) {
  EXPECT_EQ(parse_policy_config("", "x.conf").adaptive.estimator(), "tail") << "the default";
  const auto c = parse_policy_config(
      "adaptive = { estimator = \"tail\"; tail = { horizon = 20; p_min = 0.01; min_results = 8; spacings = "
      "3; }; };",
      "x.conf");
  EXPECT_EQ(c.adaptive.estimator(), "tail");
  EXPECT_EQ(c.adaptive.setting("tail.horizon"), 20);
  EXPECT_EQ(c.adaptive.setting("tail.p_min"), 0.01);
  EXPECT_EQ(c.adaptive.setting("tail.min_results"), 8);
  EXPECT_EQ(c.adaptive.setting("tail.spacings"), 3);
  EXPECT_EQ(parse_policy_config("adaptive = { estimator = \"algorithm1\"; };", "x.conf").adaptive.estimator(),
            "algorithm1");
  for (const char* bad :
       {"adaptive = {\n estimator = \"gittins\";\n};", "adaptive = {\n tail = { horizon = 0; };\n};",
        "adaptive = {\n tail = { p_mni = 0.1; };\n};", "adaptive = {\n tail = { spacings = 16; };\n};"}) {
    try {
      parse_policy_config(bad, "x.conf");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, 2) << e.what();
    }
  }
  try {
    parse_policy_config("adaptive = { estimator = \"gittins\"; };", "x.conf");
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("choose one of: algorithm1, tail"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tune
