// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "placement/gang_config.hpp"
#include "placement/placements.hpp"
#include "priority/policy_config.hpp"
#include "run_command.hpp"
#include "simulation/cluster.hpp"
#include "simulation/experiment.hpp"
#include "simulation/ordering.hpp"
#include "simulation/priority_trace.hpp"
#include "simulation/simulator.hpp"
#include "simulation/summary.hpp"
#include "simulation/validation.hpp"
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
  const sim::Cluster& cluster = plan.cluster;
  const sim::Workload& base = plan.base;
  const double native = plan.native_load;
  std::printf("cluster: %s: %zu nodes, %d CPUs, %d GPUs\n", cluster.source.c_str(),
              cluster.topology.nodes.size(), cluster.cpus(), cluster.gpus());
  for (const auto& n : cluster.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("workload: %s: %zu jobs", base.source.c_str(), base.jobs.size());
  if (base.skipped) std::printf(" (%d skipped: %s)", base.skipped, base.skipped_why.c_str());
  if (!base.jobs.empty()) std::printf("; offered load %.1f%% at its own pace", 100 * native);
  std::printf("\n");
  for (const auto& st : base.studies) {
    const auto alone = sim::alone_time_to_target(st);
    std::printf(
        "study: %s (%s): %zu trials, %d at a time, %d CPU %d GPU %.0f MB each, account %s, submitted at "
        "%.0fs; "
        "target %s; alone on an idle cluster: %s\n",
        st.name.c_str(), st.source.c_str(), st.trials.size(), st.parallel, st.cpus, st.gpus, st.mem_mb,
        st.account.c_str(), st.submit,
        st.target ? std::to_string(*st.target).c_str() : "none (runs every trial)",
        alone ? (std::to_string(static_cast<long>(*alone)) + "s to target").c_str() : "target not met");
  }
  const auto& st = cluster.settings;
  std::printf(
      "slurm: %s, sched_interval=%.0f default_queue_depth=%d batch_sched_delay=%.0f bf_interval=%.0f "
      "bf_window=%.0fmin bf_resolution=%.0f bf_max_job_test=%d\n",
      st.backfill ? "sched/backfill" : "sched/builtin", st.sched_interval, st.default_queue_depth,
      st.batch_sched_delay, st.bf_interval, st.bf_window / 60, st.bf_resolution, st.bf_max_job_test);

  const auto& combos = plan.runs;
  const bool with_mode = plan.several_modes;
  std::vector<sim::Summary> all_rows;
  std::vector<sim::SimResult> all_results;
  std::vector<std::pair<std::string, sim::Agreement>> agreements;
  for (double f : plan.factors) {
    const sim::Workload w = sim::compress(base, f);
    if (w.jobs.empty())
      std::printf("\n== arrivals x%.3g ==\n", f);
    else {
      const sim::ResourceLoad l = sim::offered_loads(w, cluster.gpus(), cluster.cpus(), cluster.mem_mb());
      std::printf("\n== arrivals x%.3g: offered load %.1f%% (GPUs %.1f%%, CPUs %.1f%%, memory %.1f%%) ==\n",
                  f, 100 * sim::offered_load(w, cluster.gpus(), cluster.cpus()), 100 * l.gpus, 100 * l.cpus,
                  100 * l.mem);
    }
    std::vector<sim::Summary> rows;
    std::vector<std::string> labels;
    const std::size_t first_result = all_results.size();
    for (const auto& combo : combos) {
      std::ofstream trace;
      sim::SimOptions options = combo.options;
      if (!o.sprio_dir.empty()) {
        std::filesystem::create_directories(o.sprio_dir);
        const std::string name = sim::run_file_name(o.sprio_dir, f, combo, with_mode, "sprio");
        trace.open(name);
        if (!trace) {
          std::cerr << "tune simulate: error: cannot write " << name << "\n";
          return kExitUsage;
        }
        sim::write_trace_header(trace);
        options.trace = &trace;
      }
      sim::SimResult r = sim::simulate(cluster, w, options);
      if (trace.is_open() && !trace.flush()) {
        std::cerr << "tune simulate: error: cannot write the priority trace into " << o.sprio_dir << "\n";
        return kExitUsage;
      }
      const std::string& label = combo.label;
      labels.push_back(label);
      rows.push_back(sim::summarise(label, cluster, w, r));
      if (o.validate) {
        try {
          agreements.emplace_back(label, sim::compare_with_history(w, r));
        } catch (const std::exception& e) {
          std::cerr << "tune simulate: error: --validate: " << e.what() << "\n";
          return kExitUsage;
        }
      }
      if (!o.csv_dir.empty()) {
        std::filesystem::create_directories(o.csv_dir);
        const std::string name = sim::run_file_name(o.csv_dir, f, combo, with_mode, "csv");
        std::ofstream out(name);
        sim::write_jobs_csv(out, w, r, &cluster.topology);
        if (!out) {
          std::cerr << "tune simulate: error: cannot write " << name << "\n";
          return kExitUsage;
        }
        if (!w.studies.empty()) {
          const std::string studies = sim::run_file_name(o.csv_dir, f, combo, with_mode, "studies.csv");
          std::ofstream so(studies);
          sim::write_studies_csv(so, w, r);
          if (!so) {
            std::cerr << "tune simulate: error: cannot write " << studies << "\n";
            return kExitUsage;
          }
        }
      }
      all_results.push_back(std::move(r));
    }
    std::fputs(sim::format_table(rows).c_str(), stdout);
    std::fputs(sim::format_by_gpus(rows).c_str(), stdout);
    if (!w.studies.empty()) {
      std::vector<const sim::SimResult*> these;
      for (std::size_t i = first_result; i < all_results.size(); ++i) these.push_back(&all_results[i]);
      std::fputs(sim::format_studies(rows).c_str(), stdout);
      std::fputs(sim::format_plateau_share(rows).c_str(), stdout);
      std::fputs(sim::format_study_detail(w, labels, these).c_str(), stdout);
    }
    const auto& b = rows.front();
    std::printf("bounds: mean JCT >= %.0fs (no job waits); makespan >= %.0fs\n", b.completion_bound,
                b.makespan_bound);
    for (const auto& r : rows)
      if (r.never_fit)
        std::printf("%s: %d jobs fit no node set of the cluster and were left out\n", r.label.c_str(),
                    r.never_fit);
    double secs = 0;
    long long events = 0;
    for (const auto& r : rows) secs += r.seconds, events += r.events;
    std::printf("simulated in %.2fs (%.0f events/s)\n", secs, secs > 0 ? events / secs : 0.0);
    if (o.replicates > 1) {
      std::vector<std::vector<sim::Summary>> reps(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) reps[i].push_back(rows[i]);
      for (int k = 2; k <= o.replicates; ++k) {
        const sim::Workload jw = sim::jitter_arrivals(w, o.jitter, static_cast<std::uint64_t>(k));
        for (std::size_t i = 0; i < combos.size(); ++i)
          reps[i].push_back(
              sim::summarise(rows[i].label, cluster, jw, sim::simulate(cluster, jw, combos[i].options)));
      }
      std::printf("\nacross %d replicates (arrivals jittered by 0-%gs after the first): mean [min, max]\n",
                  o.replicates, o.jitter);
      std::fputs(sim::format_replicates(reps).c_str(), stdout);
    }
    if (!agreements.empty()) {
      std::printf(
          "\nsimulated against recorded starts (pairs ordered alike: of those recorded more than 1 s "
          "apart):\n");
      std::fputs(sim::format_agreements(agreements).c_str(), stdout);
    }
    for (auto& r : rows) {
      char l[64];
      std::snprintf(l, sizeof l, "x%g ", f);
      r.label = l + r.label;
      all_rows.push_back(r);
    }
  }
  if (!o.html.empty()) {
    std::vector<const sim::SimResult*> ptrs;
    for (const auto& r : all_results) ptrs.push_back(&r);
    std::ofstream out(o.html);
    out << sim::html_page("tune simulate: " + base.source, all_rows, ptrs);
    if (!out) {
      std::cerr << "tune simulate: error: cannot write " << o.html << "\n";
      return kExitUsage;
    }
    std::printf("report: %s\n", o.html.c_str());
  }
  return kExitOk;
}

}  // namespace tune
