// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a simulation shows, per policy: job completion time and wait (mean,
// median, p95, max) overall, by GPU count and by account; utilisation; GPU
// fragmentation while a multi-GPU job waits; Jain's fairness over accounts;
// lower bounds beside the figures. Text table, CSV per job, HTML page of
// charts (lib/report). No Slurm here.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "simulation/simulator.hpp"

namespace tune::sim {

struct Stats {
  int n = 0;
  double mean = 0, median = 0, p95 = 0, max = 0;
};
Stats stats_of(std::vector<double> v);

struct Summary {
  std::string label;  // "priority+placement"
  int jobs = 0, started = 0, never_fit = 0, timed_out = 0, backfilled = 0;
  Stats wait, completion;
  std::vector<double> wait_percentiles;  // 0th, 1st, ..., 100th percentile of the wait (101 values)
  std::map<int, Stats> wait_by_gpus;     // exact GPU count of the job
  std::map<std::string, Stats> wait_by_account;
  Stats wait_one_gpu, wait_multi_gpu;               // 1 GPU, more than 1
  double makespan = 0;                              // first submission to last end
  double gpu_utilisation = 0, cpu_utilisation = 0;  // busy share in the load window (see load_window())
  double fragmentation = -1;  // mean over samples while a multi-GPU job waited; -1: none waited
  // Busy share of the GPUs while some job waits (mean over samples; -1: none
  // waited): how close to full the placement ran the cluster when it mattered.
  double gpu_use_queued = -1;
  double jain = 1;  // over accounts, of 1 / mean bounded slowdown (1: all served alike)
  // Lower bounds: every job starting at its submission (mean completion time),
  // and max(last submission's end, work / capacity) for the makespan.
  double completion_bound = 0, makespan_bound = 0;
  double seconds = 0, events_per_second = 0, priority_seconds = 0;
  long long events = 0;
  // Tuning studies (Workload::studies): time to target of those that met it,
  // the mean counting the others at their end, and the mean of what those
  // that met it would take alone on an idle cluster (alone_time_to_target).
  int studies = 0, study_trials = 0, interrupted = 0, yields = 0, max_level = 0;
  // The estimator's judgements, its decisions to lower a study (level
  // rises), and those of them that were false (StudyResult::false_lowerings).
  int judgements = 0, lowerings = 0, false_lowerings = 0;
  // Of the studies that never met their target: results from each one's
  // last improvement to its first lowering (negative: lowered before it),
  // and how many were never lowered.
  std::vector<std::int64_t> lags;
  int never_lowered = 0;
  // The share of the GPU time in the hour before each of kShareHours (hours
  // after the first study's submission) that went to studies that never met
  // their target; -1: no GPU was busy then.
  static constexpr double kShareHours[] = {1, 2, 5, 10, 20};
  std::vector<double> plateau_gpu_share;
  Stats time_to_target;
  double study_time_all = 0, time_to_target_bound = 0;
};

Summary summarise(const std::string& label, const Cluster& c, const Workload& w, const SimResult& r);

// One row per summary: the figures that compare policies.
std::string format_table(const std::vector<Summary>& rows);
// Mean wait by GPU count, one column per summary.
std::string format_by_gpus(const std::vector<Summary>& rows);

// Studies, one row per summary: how many met their target, time to target
// (mean of those, mean of all counting the rest at their end, the bound,
// the longest), trials replayed, trials cut short, yields, highest yield
// level, the estimator's lowerings: false ones / all (judgements), and LAG:
// results from the last improvement of each study that never met its target
// to its first lowering, median [min, max], and how many were never lowered.
std::string format_studies(const std::vector<Summary>& rows);
// The plateaued studies' share of the GPU time by hour, one row per summary.
std::string format_plateau_share(const std::vector<Summary>& rows);
// Each study's time to target alone and in each run ("L2": highest yield
// level reached, "Y1": yields obeyed).
std::string format_study_detail(const Workload& w, const std::vector<std::string>& labels,
                                const std::vector<const SimResult*>& results);

// Replicates of each combination (outer: combinations, inner: replicates):
// mean wait, 1-GPU and multi-GPU mean wait, GPU utilisation, Jain's index,
// and with studies their mean time to target and TTT-ALL, as mean [min, max],
// then each replicate's mean time to target ("TTT BY REPLICATE").
std::string format_replicates(const std::vector<std::vector<Summary>>& reps);

// job,account,user,gpus,cpus,submit,start,end,wait,runtime,time_limit,timed_out,backfilled
// and, given the cluster's topology, nodes (the names of the nodes it ran on,
// space-separated); with studies, kind (trace, appcore, trial, study), study,
// cancelled, ended_by_study, and the study jobs after the trace's.
void write_jobs_csv(std::ostream& out, const Workload& w, const SimResult& r, const Topology* t = nullptr);

// With studies, one row per study, the yield as it acted on it:
// study,account,target,reached,best,results,last_improvement,
// last_improvement_time,first_lowered,first_lowered_time,lag,lag_seconds,
// max_level,lowerings,false_lowerings,converged. reached, converged (when
// it ended itself as converged) and the times are seconds
// after the study's submission (empty: never); last_improvement and
// first_lowered count its results then, lag their difference (empty
// unless the study never met its target and was lowered).
void write_studies_csv(std::ostream& out, const Workload& w, const SimResult& r);

// An HTML page: the table, mean wait by GPU count, wait by percentile of jobs, GPUs busy over time.
std::string html_page(const std::string& title, const std::vector<Summary>& rows,
                      const std::vector<const SimResult*>& results);

}  // namespace tune::sim
