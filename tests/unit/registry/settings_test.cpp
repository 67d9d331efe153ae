// SPDX-License-Identifier: GPL-2.0-or-later
// A policy's own settings, declared once (lib/registry/settings): made
// complete and checked before a policy is built, kept as JSON, and each one
// a study flag of its own that a job script passes on only with its policy.
#include "registry/settings.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "command/study_flags.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"

namespace tune {
namespace {

const std::vector<SettingSpec> kSpecs = {
    {.key = "points", .flag = "--points", .help = "h", .fallback = 5, .lo = 1, .hi = 10},
    {.key = "rate", .flag = "--rate", .help = "h", .fallback = 0.5, .lo = 0, .hi = 1, .integer = false},
};

TEST(Settings, CompleteFillsDefaultsChecksRangesAndDropsOthers) {
  const Settings s = complete(kSpecs, Settings({{"rate", 0.25}, {"grid_points", 3}}));
  EXPECT_EQ(s.values(), (std::map<std::string, double>{{"points", 5}, {"rate", 0.25}}));
  try {
    complete(kSpecs, Settings({{"points", 11}}));
    FAIL() << "11 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--points: 11 is not a whole number in [1 - 10]");
  }
  EXPECT_THROW(complete(kSpecs, Settings({{"points", 2.5}})), std::invalid_argument);
  EXPECT_NO_THROW(complete(kSpecs, Settings({{"rate", 0.75}})));
  EXPECT_THROW((void)Settings().at("points"), std::out_of_range);
}

TEST(Settings, TypedValuesAreReadAndCheckedByTheirFlag) {
  EXPECT_EQ(read_setting(kSpecs[0], "7"), 7);
  EXPECT_EQ(read_setting(kSpecs[1], "0.125"), 0.125);
  for (const char* bad : {"", "7x", "seven", "1e400"}) {
    try {
      read_setting(kSpecs[0], bad);
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--points: ", 0), 0u) << e.what();
    }
  }
  EXPECT_EQ(setting_text(5), "5");
  EXPECT_EQ(setting_text(0.125), "0.125");
}

TEST(Settings, JsonRoundTripAndRefusal) {
  const Settings s({{"points", 5}, {"rate", 0.25}});
  EXPECT_EQ(s.to_json().dump(), R"({"points":5,"rate":0.25})");
  EXPECT_EQ(Settings::from_json(s.to_json()), s);
  EXPECT_THROW(Settings::from_json(nlohmann::json::array()), std::invalid_argument);
  EXPECT_THROW(Settings::from_json(nlohmann::json{{"points", "five"}}), std::invalid_argument);
}

// Every setting any sampler or pruner declares is a study flag, with its
// default, refused out of its range by name, and passed on in a job script
// exactly when its policy is the chosen one: no flag is written by hand.
TEST(Settings, EveryDeclaredSettingIsAStudyFlagOfItsPolicy) {
  std::set<std::string> declared;
  auto each = [&](const auto& registry, auto choose) {
    for (const auto& entry : registry.entries())
      for (const SettingSpec& spec : entry.settings) {
        declared.insert(spec.flag);
        const auto flag = std::find_if(study_flags().begin(), study_flags().end(),
                                       [&](const StudyFlag& f) { return f.long_name() == spec.flag; });
        ASSERT_NE(flag, study_flags().end()) << spec.flag;
        EXPECT_NE(flag->help.find(spec.help), std::string::npos) << spec.flag;
        StudyFlags f;
        EXPECT_EQ(f.settings.at(spec.key), setting_text(spec.fallback)) << spec.flag;
        choose(f, entry.name);
        if (entry.name != "none") f.prune.metric = "loss";
        EXPECT_NE(study_run_arguments(f, [](const std::string& x) { return x; }).find(" " + spec.flag + " "),
                  std::string::npos)
            << spec.flag << " with " << entry.name;
        f.settings[spec.key] = setting_text(spec.hi + 1);
        try {
          check_study_flags(f);
          ADD_FAILURE() << spec.flag << " above its range accepted";
        } catch (const std::invalid_argument& e) {
          EXPECT_EQ(std::string(e.what()).rfind(spec.flag + ": ", 0), 0u) << e.what();
        }
      }
  };
  each(samplers(), [](StudyFlags& f, const std::string& name) { f.algo = name; });
  each(pruners(), [](StudyFlags& f, const std::string& name) { f.prune.rule = name; });
  EXPECT_TRUE(declared.count("--grid-points") && declared.count("--reduction-factor"))
      << "the registries' own";
  // Not chosen, not passed on: random declares no setting.
  StudyFlags f;
  f.settings["grid_points"] = "9";
  EXPECT_EQ(study_run_arguments(f, [](const std::string& x) { return x; }).find("--grid-points"),
            std::string::npos);
}

}  // namespace
}  // namespace tune
