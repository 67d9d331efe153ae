// tune: hyperparameter tuning on Slurm. Subcommands: run, submit, status, report, export.
#include <CLI/CLI.hpp>
#include <iostream>

#include "history/history.hpp"
#include "place_command.hpp"
#include "placement/gang_placement.hpp"
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
  tune::add_run_options(*r, run);

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
      ->check(CLI::IsMember(tune::placement_names()))
      ->capture_default_str();
  pl->add_flag("--json", place_json, "JSON instead of a table");

  tune::SimulateOptions simulate;
  auto* sm = app.add_subcommand("simulate", "Replay a workload through a model of Slurm's scheduling, per policy");
  tune::add_simulate_options(*sm, simulate);

  CLI11_PARSE(app, argc, argv);

  try {
    if (r->parsed()) {
      tune::check_study_flags(run);
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
