// SPDX-License-Identifier: GPL-2.0-or-later
// What the AppCore decides when it opens a study (lib/study/study_opening):
// this run's limits and times from its flags, the trial directory, the
// program, and what it says once the study is open.
#include "study/study_opening.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace tune {
namespace {

StudyInfo study() {
  StudyInfo s;
  s.name = "lr";
  s.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  s.sampler = "tpe";
  s.trials = 40;
  s.command = "python3 train.py --lr {x}";
  return s;
}

TEST(StudyOpening, LimitsAndTimesFromTheFlagsDurationsAsSlurmReadsThem) {
  StudyFlags f;
  f.max_failures = 3;
  f.storage_wait = "2";  // minutes
  f.trial_time_limit = "1:30";
  ObjectiveFlags o;
  o.target = 0.9;
  const StudyLimits l = study_limits(f, "2h", study(), o);
  EXPECT_EQ(l.trials, 40u) << "the study's own --trials when none is given";
  EXPECT_EQ(l.time_limit, 7200);
  EXPECT_EQ(l.target, 0.9);
  EXPECT_EQ(l.max_failures, 3);
  EXPECT_EQ(l.storage_wait, 120);
  f.trials = 60;
  EXPECT_EQ(study_limits(f, "", study(), o).trials, 60u);
  EXPECT_FALSE(study_limits(f, "", study(), o).time_limit);
  const RunTimes t = run_times(f);
  EXPECT_EQ(t.trial_limit, 90);
  EXPECT_EQ(t.grace, 10);
  EXPECT_EQ(t.drain, 60);
  f.grace = "soon";
  try {
    run_times(f);
    FAIL() << "soon accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--grace: 'soon'", 0), 0u) << e.what();
  }
}

TEST(StudyOpening, ConvergedNeedsABudgetAndOneObjective) {
  const auto refusal = [](const StudyFlags& f, const StudyInfo& s) {
    try {
      study_limits(f, "", s, {});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  StudyFlags f;
  f.converged = "0.01";
  EXPECT_EQ(refusal(f, study()), "");
  EXPECT_EQ(study_limits(f, "", study(), {}).converged->margin, 0.01);
  StudyInfo open_ended = study();
  open_ended.trials = 0;
  EXPECT_EQ(refusal(f, open_ended), "--converged judges the trials a budget has left: give --trials too");
  f.trials = 30;
  EXPECT_EQ(refusal(f, open_ended), "");
  StudyInfo two = study();
  two.objectives = {{"loss", true}, {"latency", true}};
  EXPECT_EQ(refusal(f, two),
            "--converged is for one objective; a study of several ends with --trials or --target");
  EXPECT_FALSE(study_limits(StudyFlags{}, "", two, {}).converged);
}

TEST(StudyOpening, TheTrialDirectoryIsAbsoluteNormalisedWithoutATrailingSlash) {
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(trial_dir_of("", "runs/h.h5"), cwd + "/runs/h.trials");
  EXPECT_EQ(trial_dir_of("/scratch/./t//", "h.h5"), "/scratch/t");
  EXPECT_EQ(trial_dir_of("/", "h.h5"), "/");
}

TEST(StudyOpening, TheProgramFromTheFlagsElseTheStudysRecordedCommand) {
  StudyFlags f;
  EXPECT_EQ(program_words(f, "python3 train.py --lr {x}"),
            (std::vector<std::string>{"python3", "train.py", "--lr", "{x}"}));
  f.program = "./a.out 'two words'";
  EXPECT_EQ(program_words(f, "ignored"), (std::vector<std::string>{"./a.out", "two words"}));
  f.program.clear();
  f.command = {"b", "c"};
  EXPECT_EQ(program_words(f, ""), (std::vector<std::string>{"b", "c"}));
  EXPECT_THROW(program_words(StudyFlags{}, ""), std::invalid_argument);
}

TEST(StudyOpening, WhatTheAppCoreSaysOnceTheStudyIsOpen) {
  StudyInfo s = study();
  s.pruner.rule = "asha";
  s.pruner.metric = "val_loss";
  s.imported = 12;
  s.imported_from = "/runs/old.h5";
  s.enqueued = R"([{"x": 0.5}, {"x": 0.25}])";
  OpenedStudy o{.info = s,
                .history = "h.h5",
                .fresh = true,
                .recovered = std::string(),
                .imported_skipped = 2,
                .imported_why = "trial 3: x=2 is outside [0, 1]",
                .enqueue_flag = "first.json",
                .trials = 40,
                .remaining = 40,
                .runners = 4};
  const auto lines = opening_lines(o);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "recovered h.h5 after an unclean stop (the old file is kept as h.h5.before-recovery)");
  EXPECT_EQ(
      lines[1],
      "imported 12 finished trial(s) of /runs/old.h5 (2 left out: their parameters are outside this space; "
      "trial 3: x=2 is outside [0, 1])");
  EXPECT_EQ(lines[2], "the 2 parameter set(s) of --enqueue first.json run first");
  EXPECT_EQ(lines[3],
            "study 'lr': tpe search over 1 parameter(s), asha pruning on val_loss, 40 trials (the study's "
            "--trials), 4 runner(s); history h.h5");
  // Resumed with its budget spent: how to run more.
  OpenedStudy done{.info = study(),
                   .history = "h.h5",
                   .resumed = true,
                   .trials = 40,
                   .remaining = 0,
                   .trials_so_far = 40,
                   .trial_jobs = true};
  const auto more = opening_lines(done);
  ASSERT_EQ(more.size(), 2u);
  EXPECT_NE(more[0].find("1 trial job(s) at once; history h.h5 (40 trials so far)"), std::string::npos)
      << more[0];
  EXPECT_EQ(
      more[1],
      "its 40 trials (its last --trials) are done; give --trials N (a total, more than 40) to run more");
  // Resumed converged, with trials left: not "done", and how to run them.
  done.trials_so_far = 31;
  done.converged = true;
  const auto converged = opening_lines(done);
  ASSERT_EQ(converged.size(), 2u);
  EXPECT_EQ(converged[1],
            "it has converged by its --converged already; to run more, give a smaller --converged MARGIN, a "
            "larger --trials, or leave --converged out");
}

}  // namespace
}  // namespace tune
