// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// An event-driven simulator of one Slurm partition, driving the same policy
// classes the plugins run: lib/priority's SchedTunePolicy (sched/tune) and
// lib/placement's node choice (select/cons_tres_gang, or cons_tres's own).
//
// What it models, from Slurm 22.05's source (src/slurmctld/job_scheduler.c,
// src/plugins/sched/backfill/backfill.c):
// - the main scheduler: after a submission or completion (looking at
//   default_queue_depth jobs, at the first whole second batch_sched_delay
//   after the last pass) and every sched_interval (all jobs), in
//   priority order, stopping at the first job that cannot start (the
//   partition is then blocked for that pass);
// - backfill every bf_interval: up to bf_max_job_test jobs in priority
//   order; each starts now if it fits without touching a reservation, else
//   gets the earliest start within bf_window (running jobs end at their
//   start + time limit, times rounded up to bf_resolution) and reserves the
//   nodes it would get then (whole nodes, as backfill's node space map does),
//   chosen by cons_tres: select/cons_tres_gang applies its policy only to a
//   start now (SELECT_MODE_RUN_NOW), never to backfill's plans (WILL_RUN);
// - time limits: a job ends at its real run time or is killed at its limit;
// - priorities: priority/basic (submission order), priority/multifactor's age
//   and classic fair share (decayed usage, every PriorityCalcPeriod, which
//   charges the jobs running then; what a job ran after the last pass is
//   never charged, as Slurm's decay thread does), or
//   sched/tune's pass every interval (new jobs wait below it until then);
// - tuning studies (Workload::studies), as `tune run` meets the cluster:
//   with trial jobs, an AppCore job (1 CPU) that once started runs the
//   AppCore's own loop (lib/study's TrialJobsController) and keeps
//   `parallel` trial jobs in the queue,
//   each bound to the study's next trial when it starts (late binding),
//   carrying the study's progress record from its submission, while the
//   AppCore's own record is the newest; as a whole allocation, one job of
//   `parallel` trials' resources that runs the trials in slots, and when
//   sched/tune's pass asks it to yield drains (running trials may finish
//   within `drain` seconds, the rest run again later) and requeues. A study
//   stops at its target (pending trial jobs cancelled, running trials ended)
//   or when its recorded trials are all replayed.
// What it leaves out: partitions other than one, QOS, preemption,
// reservations made by admins, node failures, job dependencies and arrays.
// No Slurm here.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "placement/placements.hpp"
#include "priority/policy_config.hpp"
#include "simulation/cluster.hpp"
#include "simulation/workload.hpp"

namespace tune::sim {

struct SimOptions {
  // fifo | fairshare (= multifactor) | tune | multifactor+tune | oracle |
  // multifactor+oracle. The oracles know the future: a study whose recorded
  // trials never meet its target gets its jobs below every other job from
  // its first one (fifo's order, or multifactor with the job at priority 1):
  // the best a policy that lowers plateauing studies could do.
  std::string priority = "fifo";
  std::string placement = "cons_tres";  // a name make_placement() knows
  PlacementOptions placement_options;   // select_gang.conf's, for gang and fgd
  PolicyConfig tune;                    // sched/tune's settings (priority "tune")
  // Classic fair share: PriorityWeightFairshare and PriorityWeightAge when
  // slurm.conf sets none; a GPU bills as many CPUs as the cluster has per GPU.
  double weight_fairshare = 10000, weight_age = 1000;
  int cpus_per_gpu = 0;               // CPUs a job with GPUs but no CPU count gets per GPU (0: one per job)
  double sample_every = 0;            // seconds between utilisation/fragmentation samples (0: bf_interval)
  std::string study_mode = "trials";  // trials | whole: how the workload's studies meet the cluster
  double drain = 60;  // a yielding whole study lets running trials finish this long (tune run --drain)
  // Seconds slurmctld's periodic passes (main, backfill, priority) are into
  // their periods when the workload starts: unknown for a recorded history.
  double timer_phase = 0;
  // Where to write the priority trace (priority_trace.hpp): at every pass
  // that starts a job, each pending job's priority in parts and whether the
  // pass started it. Null: none.
  std::ostream* trace = nullptr;
};

struct JobResult {
  double start = -1, end = -1;  // -1: never started (the simulation cannot place it)
  bool timed_out = false;       // killed at its time limit
  bool backfilled = false;      // started by backfill rather than the main scheduler
  std::vector<int> nodes;       // where it ran: indices into the cluster's topology
  bool cancelled = false;       // a study's pending job, cancelled when the study stopped
  bool ended_by_study = false;  // a study's running job, ended when the study stopped or yielded
};

// What became of one replayed study.
struct StudyResult {
  double submitted = 0, started = -1;  // started: its AppCore or first allocation
  double reached = -1;                 // when its best first met the target; -1: never
  double converged = -1;               // when it ended itself as converged (converged=MARGIN); -1: never
  double ended = -1;                   // its last job's end
  int trials = 0;                      // results recorded
  int interrupted = 0;                 // trials cut short by a yield or the study's stop
  int jobs = 0;                        // Slurm jobs it used (AppCore and trial jobs, or allocations)
  int yields = 0;                      // yield signals it obeyed (whole allocation)
  int max_level = 0;                   // highest sched/tune yield level it reached
  // The estimator's judgements of its records, and the results it had at
  // each decision that lowered it (a level rise).
  int judgements = 0;
  std::vector<std::int64_t> lowered_at;
  std::vector<double> lowered_time;  // when each of those came (simulated seconds)
  // Whether a lowering was false: within its next 10 results the study
  // improved its best by more than the first Algorithm 1 threshold (relative).
  int false_lowerings = 0;
  // The results it had when its best last improved (when its final best
  // first came); -1: no result.
  std::int64_t last_improvement = -1;
  double last_improvement_time = -1;  // when that result came
  bool killed = false;                // its AppCore reached its time limit: the rest of its trials never ran
  std::optional<double> best;
};

struct Sample {
  double time = 0;
  double busy_gpus = 0, busy_cpus = 0;
  int pending = 0;
  double fragmentation = -1;  // share of free GPUs the first pending multi-GPU job cannot use; -1: none waits
};

struct SimResult {
  std::string priority, placement, study_mode;
  std::vector<JobResult> jobs;       // the workload's jobs in order, then study_jobs
  std::vector<SimJob> study_jobs;    // the jobs studies submitted, in the order they were
  std::vector<StudyResult> studies;  // same order as the workload's
  std::vector<Sample> samples;
  int never_fit = 0;  // jobs larger than any node set of the cluster
  long long events = 0, main_passes = 0, backfill_passes = 0, priority_passes = 0, placement_calls = 0;
  double seconds = 0;           // wall time of the simulation
  double priority_seconds = 0;  // of which in the priority pass
};

// Job i of a run: the workload's, or one its studies submitted.
inline const SimJob& job_of(const Workload& w, const SimResult& r, std::size_t i) {
  return i < w.jobs.size() ? w.jobs[i] : r.study_jobs[i - w.jobs.size()];
}

// Runs the workload to its end. Throws std::invalid_argument for an unknown
// policy name or study mode.
SimResult simulate(const Cluster& cluster, const Workload& workload, const SimOptions& options);

// The shape Slurm would see for a trace job: --gpus-per-node=G -N1 when its
// GPUs fit on the cluster's largest node, else whole nodes (--gpus-per-node
// of the largest node, -N ceil(G / it)); CPUs and memory spread over its nodes.
JobShape shape_of(const SimJob& j, int max_gpus_per_node, int cpus_per_gpu);

}  // namespace tune::sim
