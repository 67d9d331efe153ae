// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/experiment_run.hpp"

#include "report/strf.hpp"
#include "simulation/priority_trace.hpp"
#include "simulation/simulator.hpp"
#include "simulation/summary.hpp"
#include "simulation/validation.hpp"

namespace tune::sim {

void run_experiment(const Experiment& plan, const RunOutputs& out, std::ostream& text, FileSink& files) {
  const Cluster& cluster = plan.cluster;
  const Workload& base = plan.base;
  const double native = plan.native_load;
  text << strf("cluster: %s: %zu nodes, %d CPUs, %d GPUs\n", cluster.source.c_str(),
               cluster.topology.nodes.size(), cluster.cpus(), cluster.gpus());
  for (const auto& n : cluster.notes) text << strf("  note: %s\n", n.c_str());
  text << strf("workload: %s: %zu jobs", base.source.c_str(), base.jobs.size());
  if (base.skipped) text << strf(" (%d skipped: %s)", base.skipped, base.skipped_why.c_str());
  if (!base.jobs.empty()) text << strf("; offered load %.1f%% at its own pace", 100 * native);
  text << strf("\n");
  for (const auto& st : base.studies) {
    const auto alone = alone_time_to_target(st);
    text << strf(
        "study: %s (%s): %zu trials, %d at a time, %d CPU %d GPU %.0f MB each, account %s, submitted at "
        "%.0fs; "
        "target %s; alone on an idle cluster: %s\n",
        st.name.c_str(), st.source.c_str(), st.trials.size(), st.parallel, st.cpus, st.gpus, st.mem_mb,
        st.account.c_str(), st.submit,
        st.target ? std::to_string(*st.target).c_str() : "none (runs every trial)",
        alone ? (std::to_string(static_cast<long>(*alone)) + "s to target").c_str() : "target not met");
  }
  const auto& st = cluster.settings;
  text << strf(
      "slurm: %s, sched_interval=%.0f default_queue_depth=%d batch_sched_delay=%.0f bf_interval=%.0f "
      "bf_window=%.0fmin bf_resolution=%.0f bf_max_job_test=%d\n",
      st.backfill ? "sched/backfill" : "sched/builtin", st.sched_interval, st.default_queue_depth,
      st.batch_sched_delay, st.bf_interval, st.bf_window / 60, st.bf_resolution, st.bf_max_job_test);

  const auto& combos = plan.runs;
  const bool with_mode = plan.several_modes;
  std::vector<Summary> all_rows;
  std::vector<SimResult> all_results;
  std::vector<std::pair<std::string, Agreement>> agreements;
  for (double f : plan.factors) {
    const Workload w = compress(base, f);
    if (w.jobs.empty())
      text << strf("\n== arrivals x%.3g ==\n", f);
    else {
      const ResourceLoad l = offered_loads(w, cluster.gpus(), cluster.cpus(), cluster.mem_mb());
      text << strf("\n== arrivals x%.3g: offered load %.1f%% (GPUs %.1f%%, CPUs %.1f%%, memory %.1f%%) ==\n",
                   f, 100 * offered_load(w, cluster.gpus(), cluster.cpus()), 100 * l.gpus, 100 * l.cpus,
                   100 * l.mem);
    }
    std::vector<Summary> rows;
    std::vector<std::string> labels;
    const std::size_t first_result = all_results.size();
    for (const auto& combo : combos) {
      std::unique_ptr<std::ostream> trace;
      SimOptions options = combo.options;
      if (!out.sprio_dir.empty()) {
        const std::string name = run_file_name(out.sprio_dir, f, combo, with_mode, "sprio");
        trace = files.open(name);
        if (!*trace) {
          throw ExperimentError("cannot write " + name);
        }
        write_trace_header(*trace);
        options.trace = trace.get();
      }
      SimResult r = simulate(cluster, w, options);
      if (trace && !trace->flush()) {
        throw ExperimentError("cannot write the priority trace into " + out.sprio_dir);
      }
      const std::string& label = combo.label;
      labels.push_back(label);
      rows.push_back(summarise(label, cluster, w, r));
      if (out.validate) {
        try {
          agreements.emplace_back(label, compare_with_history(w, r));
        } catch (const std::exception& e) {
          throw ExperimentError(std::string("--validate: ") + e.what());
        }
      }
      if (!out.csv_dir.empty()) {
        const std::string name = run_file_name(out.csv_dir, f, combo, with_mode, "csv");
        const auto jobs = files.open(name);
        write_jobs_csv(*jobs, w, r, &cluster.topology);
        if (!jobs->flush()) {
          throw ExperimentError("cannot write " + name);
        }
        if (!w.studies.empty()) {
          const std::string studies = run_file_name(out.csv_dir, f, combo, with_mode, "studies.csv");
          const auto so = files.open(studies);
          write_studies_csv(*so, w, r);
          if (!so->flush()) {
            throw ExperimentError("cannot write " + studies);
          }
        }
      }
      all_results.push_back(std::move(r));
    }
    text << format_table(rows);
    text << format_by_gpus(rows);
    if (!w.studies.empty()) {
      std::vector<const SimResult*> these;
      for (std::size_t i = first_result; i < all_results.size(); ++i) these.push_back(&all_results[i]);
      text << format_studies(rows);
      text << format_plateau_share(rows);
      text << format_study_detail(w, labels, these);
    }
    const auto& b = rows.front();
    text << strf("bounds: mean JCT >= %.0fs (no job waits); makespan >= %.0fs\n", b.completion_bound,
                 b.makespan_bound);
    for (const auto& r : rows)
      if (r.never_fit)
        text << strf("%s: %d jobs fit no node set of the cluster and were left out\n", r.label.c_str(),
                     r.never_fit);
    double secs = 0;
    long long events = 0;
    for (const auto& r : rows) secs += r.seconds, events += r.events;
    text << strf("simulated in %.2fs (%.0f events/s)\n", secs, secs > 0 ? events / secs : 0.0);
    if (out.replicates > 1) {
      std::vector<std::vector<Summary>> reps(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) reps[i].push_back(rows[i]);
      for (int k = 2; k <= out.replicates; ++k) {
        const Workload jw = jitter_arrivals(w, out.jitter, static_cast<std::uint64_t>(k));
        for (std::size_t i = 0; i < combos.size(); ++i)
          reps[i].push_back(summarise(rows[i].label, cluster, jw, simulate(cluster, jw, combos[i].options)));
      }
      text << strf("\nacross %d replicates (arrivals jittered by 0-%gs after the first): mean [min, max]\n",
                   out.replicates, out.jitter);
      text << format_replicates(reps);
    }
    if (!agreements.empty()) {
      text << strf(
          "\nsimulated against recorded starts (pairs ordered alike: of those recorded more than 1 s "
          "apart):\n");
      text << format_agreements(agreements);
    }
    for (auto& r : rows) {
      char l[64];
      std::snprintf(l, sizeof l, "x%g ", f);
      r.label = l + r.label;
      all_rows.push_back(r);
    }
  }
  if (!out.html.empty()) {
    std::vector<const SimResult*> ptrs;
    for (const auto& r : all_results) ptrs.push_back(&r);
    const auto page = files.open(out.html);
    *page << html_page("tune simulate: " + base.source, all_rows, ptrs);
    if (!page->flush()) {
      throw ExperimentError("cannot write " + out.html);
    }
    text << strf("report: %s\n", out.html.c_str());
  }
}

}  // namespace tune::sim
