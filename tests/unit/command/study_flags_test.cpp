// SPDX-License-Identifier: GPL-2.0-or-later
// The study flags' one list (lib/command/study_flags): the checks it declares,
// applied by name to both commands, and the job script's `tune run` arguments
// read back by the command line the driver declares from the same list
// (driver/study_flags_cli.cpp).
#include "command/study_flags.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <stdexcept>

#include "command/text_input.hpp"
#include "driver/study_flags_cli.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

std::string refusal(const StudyFlags& f, StudyCommand c = StudyCommand::Run) {
  try {
    check_study_flags(f, c);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string quoted(const std::string& s) {
  return shell_quote(s);
}

// `tune run ARGS` as the driver parses it.
StudyFlags parsed(const std::string& args, StudyCommand c = StudyCommand::Run) {
  std::string line = args;
  for (std::size_t at; (at = line.find("\\\n")) != std::string::npos;) line.replace(at, 2, " ");
  std::vector<std::string> words = split_command(line);
  std::reverse(words.begin(), words.end());  // CLI11 takes them last first
  CLI::App app;
  StudyFlags g;
  add_study_flags(app, g, c);
  app.parse(words);
  return g;
}

TEST(StudyFlags, EveryFlagHasOneLongNameOfItsOwnAndHelp) {
  std::set<std::string> names;
  for (const StudyFlag& flag : study_flags()) {
    const std::string n = flag.long_name();
    EXPECT_TRUE(names.insert(n).second) << n;
    EXPECT_TRUE(n.rfind("--", 0) == 0 || n == "command") << n;
    EXPECT_GT(std::string(flag.help).size(), 10u) << n;
  }
  EXPECT_EQ(names.count("--trial-jobs"), 1u);
  EXPECT_EQ(std::count_if(study_flags().begin(), study_flags().end(),
                          [](const StudyFlag& f) { return f.scope == FlagScope::TrialJobsSwitch; }),
            1);
}

TEST(StudyFlags, EachCheckOfTheListRefusesByName) {
  StudyFlags f;
  EXPECT_EQ(refusal(f), "");
  f.settings["grid_points"] = "0";
  EXPECT_EQ(refusal(f), "--grid-points: 0 is not a whole number in [1 - 1000]");
  f = {};
  f.settings["grid_points"] = "2.5";
  EXPECT_EQ(refusal(f), "--grid-points: 2.5 is not a whole number in [1 - 1000]");
  f = {};
  f.algo = "annealing";
  EXPECT_TRUE(
      refusal(f).starts_with("--algo: unknown search algorithm 'annealing'; choose one of: grid, random"))
      << refusal(f);
  f = {};
  f.prune.rule = "lottery";
  EXPECT_TRUE(refusal(f).starts_with("--prune: unknown pruning rule 'lottery'")) << refusal(f);
  f = {};
  f.algo = "pbt";
  EXPECT_EQ(refusal(f), "");
  f.prune.rule = "asha";
  EXPECT_EQ(refusal(f),
            "--algo pbt stops and continues its members itself (the worst copy the best at each "
            "--pbt-interval); drop --prune");
  f.algo = "bohb";
  f.prune.rule = "hyperband";
  EXPECT_EQ(refusal(f), "");
  f = {};
  f.trials = 0;
  EXPECT_EQ(refusal(f), "--trials: 0 is not a positive number");
  f = {};
  f.max_failures = -1;
  EXPECT_EQ(refusal(f), "--max-failures: -1 is negative");
  f = {};
  f.drain = "soon";
  EXPECT_TRUE(refusal(f).starts_with("--drain")) << refusal(f);
  f = {};
  f.mem_per_trial = "lots";
  EXPECT_TRUE(refusal(f).starts_with("--mem-per-trial")) << refusal(f);
  f = {};
  f.settings["reduction_factor"] = "1";
  EXPECT_EQ(refusal(f), "--reduction-factor: 1 is not a whole number in [2 - 1000]");
  f = {};
  f.converged = "soon";
  EXPECT_EQ(refusal(f), "--converged: 'soon' is not a number");
  f.converged = "-0.1";
  EXPECT_EQ(refusal(f),
            "--converged: -0.1 is not a number above 0 (an improvement, in the objective's units)");
  f.converged = "0.01";
  f.converged_chance = "1.5";
  EXPECT_EQ(refusal(f), "--converged-chance: 1.5 is not a chance between 0 and 1");
  f.converged = "";
  f.converged_chance = "0.1";
  EXPECT_EQ(refusal(f), "--converged-chance is for --converged: give --converged MARGIN too");
  f.converged = "0.01";
  EXPECT_EQ(refusal(f), "");
  const auto rule = convergence_rule(f);
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->margin, 0.01);
  EXPECT_EQ(rule->chance, 0.1);
  EXPECT_FALSE(convergence_rule(StudyFlags{}));
}

class StudyFlagFiles : public testing_support::TempDirTest {};

TEST_F(StudyFlagFiles, TrialJobFlagsNeedTheSwitchAndRunnerSizesOnlyOnRun) {
  StudyFlags f;
  f.nice = 10;
  EXPECT_EQ(refusal(f), "--nice is for trial jobs: give --trial-jobs too");
  EXPECT_EQ(refusal(f, StudyCommand::Submit), "--space is required");  // before --nice: the list's order
  f.trial_jobs = true;
  EXPECT_EQ(refusal(f), "");
  f = {};
  f.parallel = 4;  // runners of an MPI job under submit; trial jobs at once under run
  f.cpus_per_trial = 2;
  EXPECT_EQ(refusal(f), "--cpus-per-trial is for trial jobs: give --trial-jobs too");
  f.space_file = file("space.json");
  f.trials = 10;
  EXPECT_EQ(refusal(f, StudyCommand::Submit), "--space: no such file: " + f.space_file);
  std::ofstream(f.space_file) << "{}";
  EXPECT_EQ(refusal(f, StudyCommand::Submit), "");
  f.trials.reset();
  EXPECT_EQ(refusal(f, StudyCommand::Submit), "--trials is required");
  // The command line the same: --parallel sizes submit's MPI job without --trial-jobs.
  EXPECT_EQ(parsed("--parallel 5 --trials 3 --space " + f.space_file, StudyCommand::Submit).parallel, 5);
  EXPECT_THROW(parsed("--parallel 5 --trials 3 --space " + f.space_file), CLI::RequiresError);
}

TEST(StudyFlags, TheScriptsArgumentsReadBackAsTheSameStudy) {
  StudyFlags f;
  f.name = "two words";
  f.space_file = "/w/space.json";
  f.algo = "grid";
  f.seed = 7;
  f.settings["grid_points"] = "9";
  f.objective = "loss,latency";
  f.direction = "min,max";
  f.shell = true;
  f.program_version = "v1 'rc'";
  f.trials = 40;
  f.trial_time_limit = "15m";
  f.grace = "5";
  f.target = "0.1,20";
  f.converged = "0.002";
  f.converged_chance = "0.01";
  f.max_failures = 0;
  f.metric_regex = "loss=([0-9.]+)";
  f.gpus_per_trial = 2;
  f.prune.rule = "asha";
  f.prune.metric = "val_loss";
  f.settings["min_resource"] = "3";
  f.settings["reduction_factor"] = "4";
  f.enqueue = "/w/first.json";
  f.keep_checkpoints = true;
  f.trial_jobs = true;
  f.trials_per_job = 3;
  f.nodes_per_trial = 2;
  f.constraint = "a100&ib";
  f.nice = 50;
  f.cpus_per_trial = 4;
  f.mem_per_trial = "8G";
  f.parallel = 6;
  f.account = "physics";
  const std::string args = study_run_arguments(f, quoted);
  EXPECT_NE(args.find(" \\\n  --trial-jobs --trials-per-job 3"), std::string::npos) << args;
  const StudyFlags g = parsed(args);
  for (const StudyFlag& flag : study_flags()) {
    if (flag.in_script == InScript::Never) continue;
    std::visit(
        [&](auto get) {
          EXPECT_EQ(get(const_cast<StudyFlags&>(f)), get(const_cast<StudyFlags&>(g))) << flag.long_name();
        },
        flag.field);
  }
}

TEST(StudyFlags, DefaultsAndFlagsThatDoNotApplyAreLeftOut) {
  StudyFlags f;
  f.trials = 10;
  EXPECT_EQ(study_run_arguments(f, quoted), " --algo random --direction min --trials 10 --max-failures 10");
  f.settings["grid_points"] = "9";  // not grid: left out
  f.settings["min_trials"] = "8";   // not median: left out
  f.constraint = "gpu";             // not trial jobs: left out (check_study_flags refuses it)
  EXPECT_EQ(study_run_arguments(f, quoted), " --algo random --direction min --trials 10 --max-failures 10");
}

TEST(StudyFlags, TheCommandLineAppliesTheListsChecksAndScopes) {
  EXPECT_THROW(parsed("--grid-points 0"), CLI::ValidationError);
  EXPECT_THROW(parsed("--nice 5"), CLI::RequiresError);
  EXPECT_THROW(parsed("--parallel 5"), CLI::RequiresError);
  EXPECT_THROW(parsed("--trials 5", StudyCommand::Submit), CLI::RequiredError);  // --space
  EXPECT_EQ(parsed("--app-runner-cpus 3 --trial-jobs").cpus_per_trial, 3);       // the source design's name
}

}  // namespace
}  // namespace tune
