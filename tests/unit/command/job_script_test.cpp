// SPDX-License-Identifier: GPL-2.0-or-later
// The batch script tune submit writes (lib/command/job_script): its #SBATCH
// lines for both modes, the resume on requeue, the study under tune wrap, and
// the study flags passed on once (lib/command/study_flags).
#include "command/job_script.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "command/submit_notes.hpp"
#include "tests/unit/command/submit_fixture.hpp"

namespace tune {
namespace {

using testing_support::digits;

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(JobScript, MpiModeTheTasksAreTheRunnersAndHoldExactlyTheirGpus) {
  SubmitOptions o = digits();
  o.gpus_per_trial = 2;
  o.runners_per_node = 2;
  o.time = "30";
  const std::string s = sbatch_script(o, "/opt/tune/bin/tune", "2026-11-25 08:00:00");
  EXPECT_TRUE(has(s, "# Written by `tune submit` on 2026-11-25 08:00:00."));
  EXPECT_TRUE(has(s, "#SBATCH --ntasks=3\n"));  // the AppCore is not a task
  EXPECT_TRUE(has(s, "#SBATCH --nodes=2\n"));   // 3 runners, 2 per node at most
  EXPECT_FALSE(has(s, "--ntasks-per-node"));    // it would round 3 tasks up to 4
  EXPECT_TRUE(has(s, "#SBATCH --gpus-per-task=2\n"));
  EXPECT_FALSE(has(s, "--gpus-per-node"));
  EXPECT_TRUE(has(s, "#SBATCH --time=30\n#SBATCH --signal=B:USR1@120\n"));
  EXPECT_TRUE(has(s, "#SBATCH --requeue\n"));
  EXPECT_TRUE(has(s, "[ -e \"$history\" ] && resume=(--resume)"));
  EXPECT_TRUE(has(s,
                  "exec /opt/tune/bin/tune wrap --mpi -- mpirun -np \"$((SLURM_NTASKS + 1))\" "
                  "/opt/tune/bin/tune run --history"));
  EXPECT_TRUE(has(s, " --gpus-per-trial 2"));
  EXPECT_TRUE(has(s, "-- /w/train.py --lr {lr}\n"));  // braces without a comma: bash leaves them
  EXPECT_FALSE(has(s, "trap "));                      // the protocol is tune wrap's, not the script's
}

TEST(JobScript, MpiModeRunnersThatFillTheirNodesAndTheirMemoryPerCpu) {
  SubmitOptions o = digits();
  o.parallel = 8;
  o.runners_per_node = 4;
  o.cpus_per_trial = 2;
  o.mem_per_trial = "3G";
  o.appcore_cpus = 4;  // the trial-jobs AppCore's; the MPI AppCore shares the first node
  const std::string s = sbatch_script(o, "tune", "now");
  EXPECT_TRUE(has(s, "#SBATCH --ntasks=8\n#SBATCH --ntasks-per-node=4\n#SBATCH --cpus-per-task=2\n"));
  EXPECT_TRUE(has(s, "#SBATCH --mem-per-cpu=1536M\n"));
  EXPECT_FALSE(has(s, "--nodes"));
  EXPECT_FALSE(has(s, "gpus"));
  o.runners_per_node = 0;  // all on one node
  EXPECT_TRUE(has(sbatch_script(o, "tune", "now"), "#SBATCH --ntasks=8\n#SBATCH --ntasks-per-node=8\n"));
}

TEST(JobScript, TrialJobsModeTheAppCoreAloneAndTheTrialJobsFlags) {
  SubmitOptions o = digits();
  o.trial_jobs = true;
  o.parallel = 8;
  o.trials_per_job = 4;
  o.gpus_per_trial = 2;
  o.mem_per_trial = "8G";
  o.account = "physics";
  o.nice = 100;
  o.drain = "30";
  const std::string s = sbatch_script(o, "tune", "now");
  EXPECT_TRUE(has(s, "#SBATCH --ntasks=1\n"));
  EXPECT_TRUE(has(s, "#SBATCH --mem=1G\n"));
  EXPECT_FALSE(has(s, "--gpus-per-node"));  // the AppCore holds no GPU
  EXPECT_TRUE(has(s, "#SBATCH --account=physics\n"));
  EXPECT_TRUE(has(s, "exec tune wrap -- tune run --history"));
  EXPECT_FALSE(has(s, "mpirun"));
  for (const char* flag : {" --trial-jobs --trials-per-job 4", " --mem-per-trial 8G", " --nice 100",
                           " --parallel 8", " --account physics", " --drain 30"})
    EXPECT_TRUE(has(s, flag)) << flag;
}

TEST(JobScript, StudyFlagsArePassedOnOnceAndDefaultsLeftOut) {
  StudyFlags f;
  f.trials = 10;
  EXPECT_EQ(study_run_arguments(f, [](const std::string& x) { return x; }),
            " --algo random --direction min --trials 10 --max-failures 10");
  f.prune.rule = "asha";
  f.prune.metric = "val_loss";
  f.algo = "grid";
  f.program_version = "abc123";
  // Every text value goes through the quoting (tune submit's shell_quote).
  const std::string a = study_run_arguments(f, [](const std::string& x) { return "'" + x + "'"; });
  EXPECT_TRUE(has(a, " --grid-points 5"));
  EXPECT_TRUE(has(a, " --program-version 'abc123'"));
  EXPECT_TRUE(has(a, " --prune 'asha' --prune-metric 'val_loss' --min-resource 1 --reduction-factor 3"));
}

TEST(JobScript, BadSizesDurationsAndTwoProgramsAreRefusedByName) {
  SubmitOptions o = digits();
  o.mem_per_trial = "lots";
  EXPECT_THROW(sbatch_script(o, "tune", "now"), std::invalid_argument);
  StudyFlags f;
  f.drain = "soon";
  try {
    check_study_flags(f);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(has(e.what(), "--drain")) << e.what();
  }
  f = {};
  f.program = "train.py";
  f.command = {"train.py"};
  EXPECT_THROW(check_study_flags(f), std::invalid_argument);
}

TEST(JobScript, TheWarningSignalIsAskedForWithOrWithoutTime) {
  SubmitOptions o = digits();
  EXPECT_TRUE(
      has(sbatch_script(o, "tune", "now"), "#SBATCH --signal=B:USR1@120\n"));  // the partition's limit
  o.time = "1:00:00";
  EXPECT_TRUE(has(sbatch_script(o, "tune", "now"), "#SBATCH --time=1:00:00\n#SBATCH --signal=B:USR1@120\n"));
}

// A trial job's script: sh without --setup, bash with it (module and
// conda's activation are bash functions); the paths quoted for the shell.
TEST(TrialJobScript, RunsTheSetupThenTheTrialJobCommand) {
  TrialJobScript t{.study = "lr-sweep",
                   .tune_binary = "/opt/tune dir/bin/tune",
                   .channel_file = "/scratch/a b/s.channel",
                   .trials_per_job = 3,
                   .appcore_wait_s = 120};
  EXPECT_EQ(trial_job_script(t),
            "#!/bin/sh\n# A trial job of study lr-sweep (tune run --trial-jobs): it asks the study's AppCore "
            "for its trial when it starts.\nexec '/opt/tune dir/bin/tune' trial-job --channel "
            "'/scratch/a b/s.channel' --trials 3 --appcore-wait 120s\n");
  t.setup_file = "env.sh";
  t.setup = "module load cuda\n";
  const std::string s = trial_job_script(t);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(s.find("\n# --setup env.sh\nmodule load cuda\nexec "), std::string::npos) << s;
}

}  // namespace
}  // namespace tune
