// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulate_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "placement/gang_config.hpp"
#include "placement/placements.hpp"
#include "priority/policy_config.hpp"
#include "run_command.hpp"
#include "simulation/cluster.hpp"
#include "simulation/experiment.hpp"
#include "simulation/experiment_run.hpp"
#include "simulation/ordering.hpp"
#include "simulation/workload.hpp"

namespace tune {

void add_simulate_options(CLI::App& app, SimulateOptions& o) {
  app.add_option(
         "--cluster", o.spec.cluster,
         "slurm.conf (with topology.conf beside it), an openb node list CSV, or a tune place description")
      ->required();
  app.add_option(
      "--associations", o.spec.associations,
      "the accounting associations, for priority/multifactor's Fair Tree: the output of sacctmgr -nP "
      "show assoc format=Account,User,ParentName,Share (default: the jobs' accounts and users under "
      "root)");
  app.add_option("--jobs", o.spec.jobs,
                 "workload: sacct --parsable2 output, SWF, Philly-style, Tiresias or openb CSV");
  app.add_option(
      "--study", o.spec.studies,
      "replay a tuning study from its tune history beside the jobs: PATH[,key=value...] with keys target, "
      "account, user, submit, parallel, trials-per-job, cpus, gpus, mem, trial-time-limit, time-limit, "
      "time-scale "
      "(repeat for more studies)");
  app.add_option(
         "--study-mode", o.spec.study_modes,
         "how studies meet the cluster: trials (an AppCore job and one job per trial, tune run "
         "--trial-jobs), "
         "whole (one allocation per study that yields and requeues when sched/tune asks); both to compare")
      ->delimiter(',')
      ->check(CLI::IsMember({"trials", "whole"}))
      ->capture_default_str();
  app.add_option(
         "--timer-phase", o.spec.timer_phase,
         "seconds slurmctld's periodic passes are into their periods when the workload starts (unknown for "
         "a history: try several with --validate)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--drain", o.spec.drain,
                 "a yielding whole study lets running trials finish this long (tune run --drain)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--cluster-share", o.spec.cluster_share,
                 "keep this share of the nodes, spread over the node list (for a trace too small to load its "
                 "cluster)")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  app.add_option("--format", o.spec.format, "force the workload format")
      ->check(CLI::IsMember({"sacct", "swf", "philly", "tiresias", "openb"}));
  app.add_option(
      "--times-from", o.spec.times_from,
      "for a workload of sizes only (openb multigpu50): draw each job's submission and run time from this "
      "workload's jobs of the same GPU count");
  // The names: lib/simulation/ordering's list; NAME:ESTIMATOR for the policies with tune's lowering.
  std::string priority_help = "priority policies to compare:";
  for (const auto& p : sim::ordering_policies().entries()) {
    priority_help += " " + p.name;
    for (const auto& a : p.aliases) priority_help += " (or " + a + ")";
    priority_help += " (" + p.description + ");";
  }
  priority_help += " tune:ESTIMATOR and multifactor+tune:ESTIMATOR with the named estimator (";
  priority_help += estimators().choices();
  priority_help += ") instead of the configuration's";
  app.add_option("--priority", o.spec.priorities, priority_help)
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            const auto colon = name.find(':');
            try {
              const auto& p = sim::ordering_policy(name.substr(0, colon));
              if (colon != std::string::npos &&
                  (p.lowering != sim::Lowering::Tune || !estimators().contains(name.substr(colon + 1))))
                return "'" + name + "': an estimator (one of " + estimators().choices() +
                       ") goes only with tune and multifactor+tune";
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
            return "";
          },
          "POLICY[:ESTIMATOR]"))
      ->capture_default_str();
  std::string placement_help = "placement policies to compare:";
  for (const auto& p : placements().entries()) placement_help += " " + p.name + " (" + p.description + ");";
  placement_help += " default cons_tres, or select_gang.conf's placement with --select-conf";
  app.add_option("--placement", o.spec.placements, placement_help)
      ->delimiter(',')
      ->check(CLI::IsMember(placements().names()));
  auto* load =
      app.add_option("--load", o.spec.loads, "compress arrivals by these factors (2: twice as often)")
          ->delimiter(',')
          ->check(CLI::PositiveNumber);
  app.add_option(
         "--utilisation", o.spec.utilisations,
         "compress arrivals so the offered load is this share of the cluster's GPUs (CPUs if no job has a "
         "GPU), e.g. 0.5,0.8,0.95")
      ->delimiter(',')
      ->check(CLI::Range(0.01, 10.0))
      ->excludes(load);
  app.add_option(
         "--time-limit-factor", o.spec.time_limit_factor,
         "a job without a time limit in the workload gets this times its run time, rounded up to a minute")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--cpus-per-gpu", o.spec.cpus_per_gpu, "CPUs a GPU job takes per GPU at least")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--sched-conf", o.sched_conf,
                 "sched_tune.conf for the tune priority policy (default: its defaults)");
  app.add_option(
         "--select-conf", o.spec.select_conf,
         "a site's select_gang.conf: its placement settings (cores_per_free_gpu) for gang and fgd, and its "
         "placement policy when --placement is not given")
      ->check(CLI::ExistingFile);
  app.add_option("--site-conf", o.site_conf,
                 "site_factor_tune.conf for the multifactor+tune priority policy (default: its defaults)");
  app.add_option("--limit", o.spec.limit, "replay only the first N jobs")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.spec.seed, "seed for --times-from")->capture_default_str();
  app.add_option(
      "--csv", o.csv_dir,
      "write one CSV per run (one row per job) into this directory, and with studies one more "
      "(NAME.studies.csv: one row per study, its last improvement, first lowering and the lag between)");
  app.add_option("--html", o.html, "write an HTML page of tables and charts");
  app.add_option(
      "--sprio", o.sprio_dir,
      "write one priority trace per run into this directory: at every pass that starts a job, each "
      "pending job's age, fair-share and SITE terms, its priority and whether it started, as sprio "
      "would show them");
  auto* validate =
      app.add_flag("--validate", o.validate,
                   "replay at the history's own pace and compare each job's simulated start with its "
                   "recorded one (sacct Start, SWF wait): mean wait, makespan, start order");
  validate->excludes(load);
  validate->excludes(app.get_option("--utilisation"));
  app.add_option(
         "--replicates", o.replicates,
         "run each combination N times, every run after the first with each submission moved later by a "
         "random 0 to --jitter seconds, and print the mean and range of the main figures")
      ->check(CLI::Range(1, 100))
      ->excludes(validate)
      ->capture_default_str();
  app.add_option("--jitter", o.jitter, "seconds of arrival jitter for --replicates")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
}

namespace {

// tune simulate's files, each in its directory (made when missing).
class FilesOnDisk final : public sim::FileSink {
 public:
  std::unique_ptr<std::ostream> open(const std::string& path) override {
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    return std::make_unique<std::ofstream>(path);
  }
};

}  // namespace

int run_simulation(const SimulateOptions& o) {
  sim::Experiment plan;
  try {
    sim::ExperimentSpec spec = o.spec;
    spec.plugin_conf = {{"sched/tune", o.sched_conf}, {"site_factor/tune", o.site_conf}};
    plan = sim::plan_experiment(spec);
  } catch (const std::exception& e) {
    std::cerr << "tune simulate: error: " << e.what() << "\n";
    return kExitUsage;
  }
  sim::RunOutputs out{.csv_dir = o.csv_dir,
                      .sprio_dir = o.sprio_dir,
                      .html = o.html,
                      .validate = o.validate,
                      .replicates = o.replicates,
                      .jitter = o.jitter};
  FilesOnDisk files;
  try {
    sim::run_experiment(plan, out, std::cout, files);
  } catch (const std::exception& e) {
    std::cerr << "tune simulate: error: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace tune
