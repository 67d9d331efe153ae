// tune: hyperparameter tuning on Slurm. Subcommands: run, submit, status, report, export.
#include <CLI/CLI.hpp>
#include <iostream>

#include "history/history.hpp"
#include "prune_flags.hpp"
#include "place_command.hpp"
#include "simulate_command.hpp"
#include "queue_command.hpp"
#include "report_command.hpp"
#include "run_command.hpp"
#include "search/sampler.hpp"
#include "status_command.hpp"
#include "submit_command.hpp"
#include "wrap_command.hpp"
#include "trial_jobs/trial_job.hpp"
#include "tune_config.h"

int main(int argc, char** argv) {
  CLI::App app{"tune: hyperparameter tuning built into Slurm. See tune(1)."};
  app.set_version_flag("--version", std::string("tune ") + PACKAGE_VERSION);
  app.require_subcommand(1);

  // --- run -------------------------------------------------------------------------
  tune::RunOptions run;
  auto* r = app.add_subcommand("run", "Run a study: rank 0 searches, other MPI ranks run trials (mpirun/srun)");
  r->add_option("--history", run.history, "HDF5 trial history to create (or continue with --resume)")
      ->capture_default_str();
  r->add_option("--name", run.name, "study name (default: the history's file name)");
  r->add_option("--space", run.space_file, "search space JSON file (required for a new study)");
  r->add_option("--algo", run.algo, "search algorithm: grid, random, bayes or tpe")
      ->check(CLI::IsMember(tune::sampler_names()))
      ->capture_default_str();
  r->add_option("--seed", run.seed, "random seed (default: from the clock, recorded in the history)");
  r->add_option("--grid-points", run.grid_points, "grid: points per continuous interval")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  r->add_option("--objective", run.objective,
                 "several objectives: the names the program reports them under, e.g. loss,latency (answer: the Pareto front)");
  r->add_option("--direction", run.direction, "min or max: which objective is better (one per objective with --objective)")
      ->capture_default_str();
  r->add_option("--program", run.program, "the trial program as one string (split like a shell, nothing expanded)");
  r->add_flag("--shell", run.shell, "run the program through /bin/sh -c (placeholders are shell-quoted)");
  r->add_option("--program-version", run.program_version, "recorded in the history (e.g. a git commit)");
  r->add_option("--trials", run.trials, "number of trials in the study (a total; a resumed study without it runs to the last number given)")->check(CLI::PositiveNumber);
  r->add_option("--time-limit", run.time_limit, "stop dispatching after this long (90s, 15m, 2h, HH:MM:SS)");
  r->add_option("--trial-time-limit", run.trial_time_limit, "end a trial after this long (SIGTERM, then SIGKILL)");
  r->add_option("--grace", run.grace, "time between SIGTERM and SIGKILL")->capture_default_str();
  r->add_option("--drain", run.drain, "on SIGUSR1 (a yield, a time-limit warning), let running trials finish this long before ending them")
      ->capture_default_str();
  r->add_option("--target", run.target,
                 "stop once the best objective reaches this value (one per objective: once a trial meets all)");
  r->add_option("--max-failures", run.max_failures, "stop after this many failed trials in a row (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  r->add_option("--metric-regex", run.metric_regex,
                "read the objective from stdout: the last match's first group (for programs you cannot change)");
  r->add_option("--gpus-per-trial", run.gpus_per_trial, "GPUs each runner gives its trial (CUDA_VISIBLE_DEVICES)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  tune::add_prune_options(*r, run.prune);
  r->add_option("--trial-dir", run.trial_dir, "per-trial logs and params.json (default: HISTORY.trials/)");
  r->add_flag("--resume", run.resume, "continue the study in --history: keep done trials, rerun interrupted ones");
  r->add_option("--enqueue", run.enqueue, "JSON list of parameter sets to run first (checked against the space)");
  r->add_flag("--keep-checkpoints", run.keep_checkpoints,
              "keep each finished trial's checkpoint directory (TUNE_CHECKPOINT_DIR; removed by default)");
  r->add_option("--warm-start", run.warm_start,
                "HDF5 history of an earlier study: its finished trials feed the search, not run again");
  r->add_flag("-q,--quiet", run.quiet, "print only the summary");
  r->add_option("command", run.command, "the trial program and its arguments, after --; {name} is a parameter")
      ->take_all();
  // Trial jobs: every trial its own Slurm job; this process is the AppCore.
  auto* tj = r->add_flag("--trial-jobs", run.trial_jobs,
                         "run every trial as its own Slurm job, bound to its parameters when it starts (not under mpirun)");
  const auto needs_tj = [&](CLI::Option* opt) { return opt->needs(tj); };
  needs_tj(r->add_option("--parallel", run.parallel, "trial jobs: at most this many in Slurm at once, pending and running")
               ->check(CLI::PositiveNumber)
               ->capture_default_str());
  needs_tj(r->add_option("--trials-per-job", run.trials_per_job, "trial jobs: trials one job runs back to back (short trials)")
               ->check(CLI::Range(1, 100000))
               ->capture_default_str());
  needs_tj(r->add_option("--cpus-per-trial", run.cpus_per_trial, "trial jobs: CPUs per task of a trial job")
               ->check(CLI::PositiveNumber)
               ->capture_default_str());
  needs_tj(r->add_option("--mem-per-trial", run.mem_per_trial, "trial jobs: memory per node of a trial job (512M, 4G)")
               ->capture_default_str());
  needs_tj(r->add_option("--nodes-per-trial", run.nodes_per_trial, "trial jobs: nodes of a trial job; the program runs under srun")
               ->check(CLI::PositiveNumber)
               ->capture_default_str());
  needs_tj(r->add_option("--tasks-per-trial", run.tasks_per_trial, "trial jobs: tasks of the program (srun when more than 1)")
               ->check(CLI::PositiveNumber)
               ->capture_default_str());
  needs_tj(r->add_option("-p,--partition", run.partition, "trial jobs: Slurm partition"));
  needs_tj(r->add_option("-A,--account", run.account, "trial jobs: Slurm account"));
  needs_tj(r->add_option("--qos", run.qos, "trial jobs: Slurm QOS"));
  needs_tj(r->add_option("--constraint", run.constraint, "trial jobs: Slurm node features (sbatch --constraint)"));
  needs_tj(r->add_option("--reservation", run.reservation, "trial jobs: Slurm reservation"));
  needs_tj(r->add_option("--nice", run.nice, "trial jobs: sbatch --nice, lowers their priority (0 to 2147483645, Slurm's range)")
               ->check(CLI::Range(0, 2147483645)));
  needs_tj(r->add_option("--appcore-wait", run.appcore_wait,
                         "trial jobs: how long a job whose AppCore is gone waits for a resumed one")
               ->capture_default_str());
  needs_tj(r->add_option("--slurm-poll", run.slurm_poll, "trial jobs: seconds between looks at the study's jobs in slurmctld")
               ->capture_default_str());

  // --- trial-job: what the AppCore's trial jobs run ---------------------------------
  tune::TrialJobOptions trial_job;
  auto* tjob = app.add_subcommand("trial-job", "Run trials for a study's AppCore (the command of a trial job; see tune run --trial-jobs)");
  tjob->add_option("--channel", trial_job.channel_file, "the study's channel file (beside its history)")->required();
  tjob->add_option("--trials", trial_job.trials, "trials to run back to back at most")->check(CLI::PositiveNumber)->capture_default_str();
  tjob->add_option("--appcore-wait", trial_job.appcore_wait, "seconds to wait for a lost AppCore to come back")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  // --- wrap: the yield protocol's batch-job side ---------------------------------
  std::vector<std::string> wrap_args;
  auto* wr = app.add_subcommand("wrap", "Run a study's command in a batch job: pass SIGUSR1 on, requeue the job when it exits 75");
  wr->add_option("command", wrap_args, "the command, after --: mpirun ... tune run ..., or tune run --trial-jobs ...")
      ->take_all()
      ->required();

  // --- submit ----------------------------------------------------------------------------
  tune::SubmitOptions submit;
  auto* s = app.add_subcommand("submit", "Write an sbatch script for a study, keep it beside the history, submit it");
  tune::add_submit_options(*s, submit);

  // --- status / export ------------------------------------------------------------
  std::string status_file;
  int top = 5;
  auto* st = app.add_subcommand("status", "Show a study's progress and best trials (also while it runs)");
  st->add_option("history", status_file, "the study's HDF5 history")->required();
  st->add_option("--top", top, "how many of the best trials to list")->check(CLI::PositiveNumber)->capture_default_str();

  std::string export_file, output;
  bool csv = false, json = false;
  auto* ex = app.add_subcommand("export", "Write a study's trials as CSV or JSON");
  ex->add_option("history", export_file, "the study's HDF5 history")->required();
  auto* csv_flag = ex->add_flag("--csv", csv, "CSV, one row per trial");
  auto* json_flag = ex->add_flag("--json", json, "JSON with the study, trials and intermediate reports");
  csv_flag->excludes(json_flag);
  ex->add_option("-o,--output", output, "file to write (default: standard output)");

  std::string report_file, report_html, report_svg;
  auto* rp = app.add_subcommand("report", "Summarise a study and write an HTML page of charts (also while it runs)");
  rp->add_option("history", report_file, "the study's HDF5 history")->required();
  rp->add_option("-o,--output", report_html, "the HTML page (default: HISTORY-report.html beside it; - for none)");
  rp->add_option("--svg", report_svg, "also write each chart to this directory as an SVG file");

  std::string queue_user;
  bool queue_json = false;
  auto* qu = app.add_subcommand("queue", "Pending and running jobs with tune's view: tenant, study, yield level, priority and its factors");
  qu->add_option("-u,--user", queue_user, "only this user's jobs");
  qu->add_flag("--json", queue_json, "JSON instead of a table");

  std::string place_cluster, place_jobs, place_policy = "gang";
  bool place_json = false;
  auto* pl = app.add_subcommand("place", "Show where the gang placement policy puts a list of jobs (no slurmctld needed)");
  pl->add_option("--cluster", place_cluster, "cluster description: JSON, or a Tiresias cluster_spec CSV")->required();
  pl->add_option("--jobs", place_jobs, "JSON list of jobs, placed in order")->required();
  pl->add_option("--policy", place_policy, "gang, fgd (fragmentation-aware over the listed jobs' mix), cons_tres (select/cons_tres's own choice) or first-fit (node order)")
      ->check(CLI::IsMember({"gang", "fgd", "cons_tres", "first-fit"}))
      ->capture_default_str();
  pl->add_flag("--json", place_json, "JSON instead of a table");

  tune::SimulateOptions simulate;
  auto* sm = app.add_subcommand("simulate", "Replay a workload through a model of Slurm's scheduling, per policy");
  tune::add_simulate_options(*sm, simulate);

  CLI11_PARSE(app, argc, argv);

  try {
    if (r->parsed()) {
      if (!run.program.empty() && !run.command.empty()) {
        std::cerr << "tune run: error: give the program either after -- or with --program, not both\n";
        return tune::kExitUsage;
      }
      return tune::run_study(run);
    }
    if (tjob->parsed()) return tune::run_trial_job(trial_job);
    if (wr->parsed()) return tune::wrap_command(wrap_args);
    if (s->parsed()) return tune::submit_study(submit);
    if (st->parsed()) return tune::show_status(status_file, top);
    if (rp->parsed()) return tune::write_report(report_file, report_html, report_svg);
    if (qu->parsed()) return tune::show_queue(queue_user, queue_json);
    if (sm->parsed()) return tune::run_simulation(simulate);
    if (pl->parsed()) return tune::show_placement(place_cluster, place_jobs, place_policy, place_json);
    if (ex->parsed()) {
      if (!csv && !json) {
        std::cerr << "tune export: error: choose --csv or --json\n";
        return tune::kExitUsage;
      }
      return tune::export_history(export_file, csv ? "csv" : "json", output);
    }
  } catch (const std::exception& e) {
    std::cerr << "tune " << app.get_subcommands().front()->get_name() << ": error: " << e.what() << "\n";
    return tune::kExitUsage;
  }
  return tune::kExitUsage;
}
