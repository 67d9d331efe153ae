// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "placement/gang_config.hpp"
#include "placement/gang_placement.hpp"
#include "priority/policy_config.hpp"
#include "run_command.hpp"
#include "simulation/cluster.hpp"
#include "simulation/ordering.hpp"
#include "simulation/priority_trace.hpp"
#include "simulation/simulator.hpp"
#include "simulation/summary.hpp"
#include "simulation/validation.hpp"
#include "simulation/workload.hpp"

namespace tune {

void add_simulate_options(CLI::App& app, SimulateOptions& o) {
  app.add_option(
         "--cluster", o.cluster,
         "slurm.conf (with topology.conf beside it), an openb node list CSV, or a tune place description")
      ->required();
  app.add_option(
      "--associations", o.associations,
      "the accounting associations, for priority/multifactor's Fair Tree: the output of sacctmgr -nP "
      "show assoc format=Account,User,ParentName,Share (default: the jobs' accounts and users under "
      "root)");
  app.add_option("--jobs", o.jobs,
                 "workload: sacct --parsable2 output, SWF, Philly-style, Tiresias or openb CSV");
  app.add_option(
      "--study", o.studies,
      "replay a tuning study from its tune history beside the jobs: PATH[,key=value...] with keys target, "
      "account, user, submit, parallel, trials-per-job, cpus, gpus, mem, trial-time-limit, time-limit, "
      "time-scale "
      "(repeat for more studies)");
  app.add_option(
         "--study-mode", o.study_modes,
         "how studies meet the cluster: trials (an AppCore job and one job per trial, tune run "
         "--trial-jobs), "
         "whole (one allocation per study that yields and requeues when sched/tune asks); both to compare")
      ->delimiter(',')
      ->check(CLI::IsMember({"trials", "whole"}))
      ->capture_default_str();
  app.add_option(
         "--timer-phase", o.timer_phase,
         "seconds slurmctld's periodic passes are into their periods when the workload starts (unknown for "
         "a history: try several with --validate)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--drain", o.drain,
                 "a yielding whole study lets running trials finish this long (tune run --drain)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--cluster-share", o.cluster_share,
                 "keep this share of the nodes, spread over the node list (for a trace too small to load its "
                 "cluster)")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  app.add_option("--format", o.format, "force the workload format")
      ->check(CLI::IsMember({"sacct", "swf", "philly", "tiresias", "openb"}));
  app.add_option(
      "--times-from", o.times_from,
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
  app.add_option("--priority", o.priorities, priority_help)
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
  app.add_option("--placement", o.placements, placement_help)
      ->delimiter(',')
      ->check(CLI::IsMember(placements().names()));
  auto* load = app.add_option("--load", o.loads, "compress arrivals by these factors (2: twice as often)")
                   ->delimiter(',')
                   ->check(CLI::PositiveNumber);
  app.add_option(
         "--utilisation", o.utilisations,
         "compress arrivals so the offered load is this share of the cluster's GPUs (CPUs if no job has a "
         "GPU), e.g. 0.5,0.8,0.95")
      ->delimiter(',')
      ->check(CLI::Range(0.01, 10.0))
      ->excludes(load);
  app.add_option(
         "--time-limit-factor", o.time_limit_factor,
         "a job without a time limit in the workload gets this times its run time, rounded up to a minute")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  app.add_option("--cpus-per-gpu", o.cpus_per_gpu, "CPUs a GPU job takes per GPU at least")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--sched-conf", o.sched_conf,
                 "sched_tune.conf for the tune priority policy (default: its defaults)");
  app.add_option(
         "--select-conf", o.select_conf,
         "a site's select_gang.conf: its placement settings (cores_per_free_gpu) for gang and fgd, and its "
         "placement policy when --placement is not given")
      ->check(CLI::ExistingFile);
  app.add_option("--site-conf", o.site_conf,
                 "site_factor_tune.conf for the multifactor+tune priority policy (default: its defaults)");
  app.add_option("--limit", o.limit, "replay only the first N jobs")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed for --times-from")->capture_default_str();
  app.add_option("--csv", o.csv_dir, "write one CSV per run (one row per job) into this directory");
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
  sim::Cluster cluster;
  sim::Workload base;
  PolicyConfig tune_conf, site_conf;
  PlacementOptions placement_options;
  std::vector<std::string> placements = o.placements;
  try {
    cluster = sim::read_cluster(o.cluster);
    if (o.cluster_share < 1) cluster = sim::scale_cluster(cluster, o.cluster_share);
    if (!o.associations.empty()) cluster.associations = sim::read_associations(o.associations);
    if (o.jobs.empty() && o.studies.empty())
      throw sim::WorkloadError("nothing to replay: give --jobs WORKLOAD, --study HISTORY.h5, or both");
    if (o.jobs.empty() && !o.utilisations.empty())
      throw sim::WorkloadError(
          "--utilisation scales a workload's arrivals: give --jobs, or --load to compress "
          "the studies' submissions");
    if (!o.jobs.empty())
      base = sim::read_workload(o.jobs, o.format);
    else
      base.source = "studies";
    for (const auto& spec : o.studies) base.studies.push_back(sim::read_study(spec));
    if (!base.timed) {
      if (o.times_from.empty())
        throw sim::WorkloadError(o.jobs +
                                 ": gives job sizes but no submission or run times; add --times-from "
                                 "WORKLOAD (e.g. openb_pod_list_default.csv) to draw them by GPU count");
      sim::borrow_times(base, sim::read_workload(o.times_from), o.seed);
    }
    if (o.limit > 0 && static_cast<long>(base.jobs.size()) > o.limit) base.jobs.resize(o.limit);
    if (!o.sched_conf.empty()) tune_conf = load_policy_config(o.sched_conf);
    if (!o.site_conf.empty())
      site_conf = load_policy_config(o.site_conf, priority_policy("site_factor/tune").rules);
    if (!o.select_conf.empty()) {  // a site's settings for the policies the plugin runs
      const GangConfig g = load_gang_config(o.select_conf);
      placement_options = g.options;
      if (placements.empty()) placements = {g.placement};
    }
    if (placements.empty()) placements = {"cons_tres"};
  } catch (const std::exception& e) {
    std::cerr << "tune simulate: error: " << e.what() << "\n";
    return kExitUsage;
  }
  sim::apply_time_limits(base, o.time_limit_factor);
  const double native = base.jobs.empty() ? 0 : sim::offered_load(base, cluster.gpus(), cluster.cpus());
  std::vector<double> factors = o.loads;
  for (double u : o.utilisations)
    factors.push_back(sim::factor_for_load(base, u, cluster.gpus(), cluster.cpus()));
  if (factors.empty()) factors.push_back(1);

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

  struct Combo {
    sim::SimOptions options;
    std::string label;
    std::string priority;  // as given, e.g. "tune:tail"
  };
  std::vector<Combo> combos;
  // One run's file in `dir`: x<load>-<priority>-<placement>[-<mode>].<ext>.
  auto run_file_name = [](const std::string& dir, double f, const Combo& c, bool with_mode, const char* ext) {
    char name[512];
    std::snprintf(name, sizeof name, "%s/x%g-%s-%s%s.%s", dir.c_str(), f, c.priority.c_str(),
                  c.options.placement.c_str(), with_mode ? ("-" + c.options.study_mode).c_str() : "", ext);
    return std::string(name);
  };
  const std::vector<std::string> modes =
      base.studies.empty() ? std::vector<std::string>{"trials"} : o.study_modes;
  for (const auto& mode : modes)
    for (const auto& prio : o.priorities)
      for (const auto& place : placements) {
        Combo c;
        // "tune:tail": the policy, and the estimator instead of the file's.
        const auto colon = prio.find(':');
        c.options.priority = prio.substr(0, colon), c.options.placement = place;
        c.options.tune = sim::ordering_policy(c.options.priority).priority_type == "priority/multifactor"
                             ? site_conf
                             : tune_conf;
        if (colon != std::string::npos) c.options.tune.adaptive.use(prio.substr(colon + 1));
        c.options.placement_options = placement_options;
        c.options.cpus_per_gpu = o.cpus_per_gpu, c.options.study_mode = mode, c.options.drain = o.drain;
        c.options.timer_phase = o.timer_phase;
        c.priority = prio;
        c.label = prio + "+" + place + (modes.size() > 1 ? "/" + mode : "");
        combos.push_back(std::move(c));
      }
  std::vector<sim::Summary> all_rows;
  std::vector<sim::SimResult> all_results;
  std::vector<std::pair<std::string, sim::Agreement>> agreements;
  for (double f : factors) {
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
        const std::string name = run_file_name(o.sprio_dir, f, combo, modes.size() > 1, "sprio");
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
        const std::string name = run_file_name(o.csv_dir, f, combo, modes.size() > 1, "csv");
        std::ofstream out(name);
        sim::write_jobs_csv(out, w, r, &cluster.topology);
        if (!out) {
          std::cerr << "tune simulate: error: cannot write " << name << "\n";
          return kExitUsage;
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
