// SPDX-License-Identifier: GPL-2.0-or-later
// What a resumed study's flags may say (lib/study/resume_check.hpp).
#include "study/resume_check.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/study_fixture.hpp"

namespace tune {
namespace {

class ResumeCheck : public testing_support::OneParameterStudy {
 protected:
  ResumeFlags flags(const std::string& direction = "min") const {
    ResumeFlags f;
    f.history = path();
    f.direction = direction;
    f.objective_flags = parse_objective_flags("", direction, "");
    return f;
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }
  // The message check_resume throws, or "" when the flags may resume.
  std::string refusal(const ResumeFlags& f) const {
    try {
      check_resume(f, info_);
    } catch (const ResumeMismatch& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(ResumeCheck, NoFlagsOrTheSameOnesResume) {
  EXPECT_EQ(refusal(flags()), "");
  ResumeFlags f = flags();
  f.space_file = write("same.json", R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  EXPECT_EQ(refusal(f), "") << "the same space again (tune submit's requeue passes it)";
}

TEST_F(ResumeCheck, AnotherSpaceIsRefusedByName) {
  ResumeFlags f = flags();
  f.space_file = write("other.json", R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 2]}]})");
  const std::string why = refusal(f);
  EXPECT_NE(why.find("--space " + f.space_file + " differs"), std::string::npos) << why;
  EXPECT_NE(why.find("drop --space"), std::string::npos) << why;
  f.space_file = file("missing.json");
  EXPECT_NE(refusal(f).find("cannot read the file"), std::string::npos);
}

TEST_F(ResumeCheck, AnotherPrunerDirectionOrWarmStartIsRefused) {
  ResumeFlags f = flags();
  f.prune.rule = "median";
  f.prune.metric = "loss";
  EXPECT_NE(refusal(f).find("the --prune settings differ"), std::string::npos);
  EXPECT_NE(refusal(flags("max")).find("--direction max differs"), std::string::npos);
  f = flags();
  f.warm_start = file("old.h5");
  EXPECT_NE(refusal(f).find("was created without one"), std::string::npos);
}

// A search algorithm's own setting (declared in its registry entry) typed
// again on --resume: the study's own value or the default pass, another is
// refused by its flag.
TEST_F(ResumeCheck, AnotherSettingOfTheStudysSamplerIsRefusedByItsFlag) {
  info_.sampler = "grid";
  info_.sampler_settings = Settings({{"grid_points", 7}});
  ResumeFlags f = flags();
  f.settings = Settings({{"grid_points", 7}});
  EXPECT_EQ(refusal(f), "");
  f.settings = Settings({{"grid_points", 5}});  // the default: not typed
  EXPECT_EQ(refusal(f), "");
  f.settings = Settings({{"grid_points", 9}});
  EXPECT_NE(refusal(f).find("--grid-points 9 differs from the study in " + path() + " (7)"),
            std::string::npos)
      << refusal(f);
  info_.sampler = "random";  // declares no setting: --grid-points means nothing to it
  EXPECT_EQ(refusal(f), "");
}

}  // namespace
}  // namespace tune
