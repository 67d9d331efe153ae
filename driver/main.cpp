// SPDX-License-Identifier: GPL-2.0-or-later
// tune: hyperparameter tuning on Slurm. Subcommands: run, submit, status, report, export.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>

#include "command/text_input.hpp"
#include "history/history.hpp"
#include "job_runner/trial_job.hpp"
#include "place_command.hpp"
#include "placement/placements.hpp"
#include "queue_command.hpp"
#include "report_command.hpp"
#include "run_command.hpp"
#include "search/sampler.hpp"
#include "simulate_command.hpp"
#include "status_command.hpp"
#include "submit_command.hpp"
#include "tune_config.h"
#include "wrap_command.hpp"

namespace {

// A DURATION flag's check: the one rule (command/text_input), its message
// naming the flag and the forms.
CLI::Validator duration_check(const std::string& flag) {
  return CLI::Validator(
      [flag](std::string& v) {
        try {
          (void)tune::parse_duration(v, flag);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "DURATION");
}

// A subcommand: its CLI11 app and what runs it once parsed. Each add_*
// declares one subcommand's options (held by the returned closure).
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

template <class Options>
std::shared_ptr<Options> held() {
  return std::make_shared<Options>();
}

Command add_run(CLI::App& app) {
  auto o = held<tune::RunOptions>();
  auto* r =
      app.add_subcommand("run", "Run a study: rank 0 searches, other MPI ranks run trials (mpirun/srun)");
  tune::add_run_options(*r, *o);
  return {r, [o] {
            tune::check_study_flags(*o);
            return tune::run_study(*o);
          }};
}

Command add_trial_job(CLI::App& app) {
  auto o = held<tune::TrialJobOptions>();
  auto* c = app.add_subcommand(
      "trial-job",
      "Run trials for a study's AppCore (the command of a trial job; see tune run --trial-jobs)");
  c->add_option("--channel", o->channel_file, "the study's channel file (beside its history)")->required();
  c->add_option("--trials", o->trials, "trials to run back to back at most")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option_function<std::string>(
       "--appcore-wait",
       [o](const std::string& v) { o->appcore_wait = tune::parse_duration(v, "--appcore-wait"); },
       "how long to wait for a lost AppCore to come back (none once Slurm says its job has ended)")
      ->check(duration_check("--appcore-wait"))
      ->default_str("5m");
  return {c, [o] { return tune::run_trial_job(*o); }};
}

Command add_wrap(CLI::App& app) {
  auto args = held<std::vector<std::string>>();
  auto mpi = held<bool>();
  auto* c = app.add_subcommand(
      "wrap", "Run a study's command in a batch job: pass SIGUSR1 on, requeue the job when it exits 75");
  c->add_flag("--mpi", *mpi,
              "the command is the mpirun of an MPI-mode study: one more slot on the first node for the "
              "AppCore (rank 0), every GPU of the job for mpirun's daemons");
  c->add_option("command", *args,
                "the command, after --: mpirun ... tune run ..., or tune run --trial-jobs ...")
      ->take_all()
      ->required();
  return {c, [args, mpi] { return tune::wrap_command(*args, *mpi); }};
}

Command add_submit(CLI::App& app) {
  auto o = held<tune::SubmitOptions>();
  auto* c = app.add_subcommand("submit",
                               "Write an sbatch script for a study, keep it beside the history, submit it");
  tune::add_submit_options(*c, *o);
  return {c, [o] { return tune::submit_study(*o); }};
}

Command add_status(CLI::App& app) {
  struct O {
    std::string file;
    int top = 5;
  };
  auto o = held<O>();
  auto* c = app.add_subcommand("status", "Show a study's progress and best trials (also while it runs)");
  c->add_option("history", o->file, "the study's HDF5 history")->required();
  c->add_option("--top", o->top, "how many of the best trials to list")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  return {c, [o] { return tune::show_status(o->file, o->top); }};
}

Command add_export(CLI::App& app) {
  struct O {
    std::string file, output;
    bool csv = false, curves = false, json = false, optuna = false;
  };
  auto o = held<O>();
  auto* c = app.add_subcommand("export",
                               "Write a study's trials as CSV, its learning curves as CSV, all as JSON, "
                               "or an Optuna journal");
  c->add_option("history", o->file, "the study's HDF5 history")->required();
  auto* csv = c->add_flag("--csv", o->csv, "CSV, one row per trial (parameters, objectives, state, timings)");
  auto* curves =
      c->add_flag("--curves", o->curves, "CSV, one row per intermediate report (the learning curves)");
  auto* json = c->add_flag("--json", o->json, "JSON with the study, trials and intermediate reports");
  auto* optuna = c->add_flag("--optuna", o->optuna,
                             "an Optuna journal file: optuna.load_study(storage=JournalStorage("
                             "JournalFileStorage(FILE))), optuna-dashboard FILE");
  for (auto* a : {csv, curves, json, optuna})
    for (auto* b : {csv, curves, json, optuna})
      if (a != b) a->excludes(b);
  c->add_option("-o,--output", o->output, "file to write (default: standard output)");
  return {c, [o] {
            if (!o->csv && !o->curves && !o->json && !o->optuna) {
              std::cerr << "tune export: error: choose --csv, --curves, --json or --optuna\n";
              return tune::kExitUsage;
            }
            return tune::export_history(o->file,
                                        o->csv      ? "csv"
                                        : o->curves ? "curves"
                                        : o->optuna ? "optuna"
                                                    : "json",
                                        o->output);
          }};
}

Command add_report(CLI::App& app) {
  struct O {
    std::string file, html, svg;
  };
  auto o = held<O>();
  auto* c =
      app.add_subcommand("report", "Summarise a study and write an HTML page of charts (also while it runs)");
  c->add_option("history", o->file, "the study's HDF5 history")->required();
  c->add_option("-o,--output", o->html, "the HTML page (default: HISTORY-report.html beside it; - for none)");
  c->add_option("--svg", o->svg, "also write each chart to this directory as an SVG file");
  return {c, [o] { return tune::write_report(o->file, o->html, o->svg); }};
}

Command add_queue(CLI::App& app) {
  struct O {
    std::string user;
    bool json = false;
  };
  auto o = held<O>();
  auto* c = app.add_subcommand(
      "queue",
      "Pending and running jobs with tune's view: tenant, study, yield level, priority and its factors");
  c->add_option("-u,--user", o->user, "only this user's jobs");
  c->add_flag("--json", o->json, "JSON instead of a table");
  return {c, [o] { return tune::show_queue(o->user, o->json); }};
}

Command add_place(CLI::App& app) {
  struct O {
    std::string cluster, jobs, policy = "gang";
    bool json = false;
  };
  auto o = held<O>();
  std::string policies;
  for (const auto& p : tune::placements().entries())
    policies += (policies.empty() ? "" : "; ") + p.name + ": " + p.description;
  auto* c =
      app.add_subcommand("place", "Show where a placement policy puts a list of jobs (no slurmctld needed)");
  c->add_option("--cluster", o->cluster, "cluster description: JSON, or a Tiresias cluster_spec CSV")
      ->required();
  c->add_option("--jobs", o->jobs, "JSON list of jobs, placed in order")->required();
  c->add_option("--policy", o->policy, "the placement policy (" + policies + ")")
      ->check(CLI::IsMember(tune::placements().names()))
      ->capture_default_str();
  c->add_flag("--json", o->json, "JSON instead of a table");
  return {c, [o] { return tune::show_placement(o->cluster, o->jobs, o->policy, o->json); }};
}

Command add_simulate(CLI::App& app) {
  auto o = held<tune::SimulateOptions>();
  auto* c =
      app.add_subcommand("simulate", "Replay a workload through a model of Slurm's scheduling, per policy");
  tune::add_simulate_options(*c, *o);
  return {c, [o] { return tune::run_simulation(*o); }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tune: hyperparameter tuning built into Slurm. See tune(1)."};
  app.set_version_flag("--version", std::string("tune ") + PACKAGE_VERSION);
  app.require_subcommand(1);
  const std::vector<Command> commands = {
      add_run(app),    add_trial_job(app), add_wrap(app),  add_submit(app), add_status(app),
      add_export(app), add_report(app),    add_queue(app), add_place(app),  add_simulate(app)};
  CLI11_PARSE(app, argc, argv);
  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    std::cerr << "tune " << app.get_subcommands().front()->get_name() << ": error: " << e.what() << "\n";
    return tune::kExitUsage;
  }
  return tune::kExitUsage;
}
