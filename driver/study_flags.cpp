#include "study_flags.hpp"

#include "prune_flags.hpp"
#include "search/sampler.hpp"

namespace tune {

CLI::Option* add_study_flags(CLI::App& a, StudyFlags& f, StudyCommand command) {
  const bool submit = command == StudyCommand::Submit;
  a.add_option("--name,--app-name", f.name,
               submit ? "study and job name (default: the space file's name)"
                      : "study name (default: the history's file name)");
  auto* space =
      a.add_option("--space,--tuning-parameters", f.space_file,
                   submit ? "search space JSON file" : "search space JSON file (required for a new study)");
  a.add_option("--algo,--tuning-type", f.algo, "search algorithm: grid, random, bayes or tpe")
      ->check(CLI::IsMember(sampler_names()))
      ->capture_default_str();
  a.add_option("--seed", f.seed, "random seed (default: from the clock, recorded in the history)");
  a.add_option("--grid-points", f.grid_points, "grid: points per continuous interval")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  a.add_option("--objective", f.objective,
               "several objectives: the names the program reports them under, e.g. loss,latency (answer: the "
               "Pareto front)");
  a.add_option("--direction", f.direction,
               "min or max: which objective is better (one per objective with --objective)")
      ->capture_default_str();
  a.add_option("--program,--app-runner-launch-cmd", f.program,
               "the trial program as one string (split like a shell, nothing expanded)");
  a.add_flag("--shell", f.shell, "run the program through /bin/sh -c (placeholders are shell-quoted)");
  a.add_option("--program-version", f.program_version, "recorded in the history (e.g. a git commit)");
  auto* trials = a.add_option("--trials,--trail-steps", f.trials,
                              "number of trials in the study (a total; a resumed study without it runs to "
                              "the last number given)")
                     ->check(CLI::PositiveNumber);
  a.add_option("--trial-time-limit", f.trial_time_limit,
               "end a trial after this long (SIGTERM, then SIGKILL)");
  a.add_option("--grace", f.grace, "time between SIGTERM and SIGKILL")->capture_default_str();
  a.add_option(
       "--drain", f.drain,
       "on SIGUSR1 (a yield, a time-limit warning), let running trials finish this long before ending them")
      ->capture_default_str();
  a.add_option("--target", f.target,
               "stop once the best objective reaches this value (one per objective: once a trial meets all)");
  a.add_option("--max-failures", f.max_failures, "stop after this many failed trials in a row (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  a.add_option(
      "--metric-regex", f.metric_regex,
      "read the objective from stdout: the last match's first group (for programs you cannot change)");
  a.add_option("--gpus-per-trial", f.gpus_per_trial,
               "GPUs each trial gets (CUDA_VISIBLE_DEVICES; per node with --trial-jobs)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_prune_options(a, f.prune);
  auto* enqueue = a.add_option("--enqueue", f.enqueue,
                               "JSON list of parameter sets to run first (checked against the space)");
  auto* warm =
      a.add_option("--warm-start", f.warm_start,
                   "HDF5 history of an earlier study: its finished trials feed the search, not run again");
  a.add_flag("--keep-checkpoints", f.keep_checkpoints,
             "keep each finished trial's checkpoint directory (TUNE_CHECKPOINT_DIR; removed by default)");
  a.add_option("command", f.command, "the trial program and its arguments, after --; {name} is a parameter")
      ->take_all();
  if (submit) {
    space->required()->check(CLI::ExistingFile);
    trials->required();
    enqueue->check(CLI::ExistingFile);
    warm->check(CLI::ExistingFile);
  }

  auto* tj = a.add_flag(
      "--trial-jobs", f.trial_jobs,
      submit ? "the AppCore is one small job (1 CPU, no GPU) and every trial a Slurm job of its own"
             : "run every trial as its own Slurm job, bound to its parameters when it starts (not under "
               "mpirun)");
  a.add_option("--trials-per-job", f.trials_per_job,
               "trial jobs: trials one job runs back to back (short trials)")
      ->check(CLI::Range(1, 100000))
      ->needs(tj)
      ->capture_default_str();
  a.add_option("--nodes-per-trial", f.nodes_per_trial,
               "trial jobs: nodes of a trial job; the program runs under srun")
      ->check(CLI::PositiveNumber)
      ->needs(tj)
      ->capture_default_str();
  a.add_option("--tasks-per-trial", f.tasks_per_trial,
               "trial jobs: tasks of the program (srun when more than 1)")
      ->check(CLI::PositiveNumber)
      ->needs(tj)
      ->capture_default_str();
  a.add_option("--constraint", f.constraint,
               "trial jobs: Slurm node features of each trial job (sbatch --constraint)")
      ->needs(tj);
  a.add_option("--nice", f.nice,
               "trial jobs: sbatch --nice, lowers their priority (0 to 2147483645, Slurm's range)")
      ->check(CLI::Range(0, 2147483645))
      ->needs(tj);
  // CPUs and memory: a trial job's with --trial-jobs; under submit also each MPI runner's.
  auto* cpus = a.add_option("--cpus-per-trial,--app-runner-cpus", f.cpus_per_trial,
                            submit ? "CPUs of each trial (a runner, or a trial job's task)"
                                   : "trial jobs: CPUs per task of a trial job")
                   ->check(CLI::PositiveNumber)
                   ->capture_default_str();
  auto* mem = a.add_option("--mem-per-trial,--app-runner-memory", f.mem_per_trial,
                           submit ? "memory of each trial (512M, 4G; per node of a trial job)"
                                  : "trial jobs: memory per node of a trial job (512M, 4G)")
                  ->capture_default_str();
  if (!submit) {
    cpus->needs(tj);
    mem->needs(tj);
  }
  return tj;
}

}  // namespace tune
