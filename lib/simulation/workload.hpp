// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The jobs a simulation replays, read from a site's history or a public
// trace: `sacct --parsable2 -X` output, the Standard Workload Format of the
// Parallel Workloads Archive, Philly-style CSV, the Tiresias CSV and the
// Alibaba openb pod list. Every reader names the file, the line and the fix
// when a line is malformed. No Slurm here.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "simulation/recorded_studies.hpp"

namespace tune::sim {

struct WorkloadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimJob {
  std::string name;
  std::string account = "default";
  std::string user;
  double submit = 0;           // seconds from the trace's start
  double runtime = 0;          // what the job really ran (it ends earlier only at its time limit)
  double time_limit = 0;       // seconds; 0: not in the trace, set by apply_time_limits()
  int nodes = 0;               // 0: as many as the GPUs need (one if they fit on one node)
  int gpus = 0;                // in total
  int cpus = 1;                // in total
  double mem_mb = 0;           // in total
  double recorded_start = -1;  // when it started in the history (sacct Start, SWF wait); -1: not recorded
  // Its Comment in the history (sacct's Comment column): a trial job's
  // progress record, which site_factor/tune and sched/tune read in a replay.
  std::string comment;
  // What the job is: a job of the trace, or one a replayed study submitted
  // (its AppCore, one trial, or the whole study in one allocation).
  enum class Kind : std::uint8_t { Trace, AppCore, Trial, Study } kind = Kind::Trace;
  int study = -1;  // index into Workload::studies for the study's jobs
};

struct Workload {
  std::string source;        // file and format, for reports
  std::vector<SimJob> jobs;  // sorted by submit time
  int skipped = 0;           // lines that describe no job that ran (never started, cancelled pending, ...)
  std::string skipped_why;
  bool timed = true;  // false: the file gives sizes only (openb's multigpu50); see borrow_times()
  // Tuning studies replayed beside the jobs (read_study()): their jobs are
  // submitted during the simulation, as the study's AppCore would.
  std::vector<SimStudy> studies;
};

// Reads a workload, choosing the format from the header line (or, for SWF,
// its ';' comments): sacct (JobID|...|Submit|Start|End|...), swf, philly
// (submit_time,duration,num_gpu[,...]), tiresias (job_id,num_gpu,submit_time,...),
// openb (name,cpu_milli,memory_mib,num_gpu,gpu_milli,...). `format` forces one.
Workload read_workload(const std::string& path, const std::string& format = "");
Workload parse_workload(const std::string& text, const std::string& source, const std::string& format = "");

// For a workload of sizes only: each job takes the submission time and run
// time of a job of the same GPU count (else the next larger, else the
// largest) drawn from `donor` with this seed.
void borrow_times(Workload& w, const Workload& donor, std::uint64_t seed);

// Jobs without a time limit get factor x run time, rounded up to a minute (a
// user's estimate; Slurm's backfill plans with limits, never run times).
// Studies' trial jobs without one get factor x their longest trial; a study's
// whole allocation (requeued at its limit) gets factor x (its trials' total /
// parallel + the longest), to a minute; its AppCore that too, but at least
// its trials' total one after another plus an hour.
void apply_time_limits(Workload& w, double factor);

// Where load is measured: from the 2.5th to the 97.5th percentile of
// submission times (all of them under 40 jobs), so a few stragglers far
// before or after the bulk of the trace (openb has them) do not set the scale.
std::pair<double, double> load_window(const Workload& w);
// Offered load: the GPU-seconds (CPU-seconds when no job uses a GPU) the jobs
// would hold in the load window if none waited, over what the cluster
// delivers in that time. A job running past the window counts up to its end,
// so a heavy tail of long jobs does not inflate the figure.
double offered_load(const Workload& w, int cluster_gpus, int cluster_cpus);
// The same share for each resource at once (0 where the cluster has none):
// which one binds tells whether any node choice could carry the load.
struct ResourceLoad {
  double gpus = 0, cpus = 0, mem = 0;
};
ResourceLoad offered_loads(const Workload& w, int cluster_gpus, int cluster_cpus, double cluster_mem_mb);
// The arrival compression that gives this offered load (bisection; the load
// grows with the factor).
double factor_for_load(const Workload& w, double target, int cluster_gpus, int cluster_cpus);
// Each submission (a study's too) moved later by a uniform draw in [0, seconds) with this
// seed, re-sorted: a replicate of the same workload, to see how much of a
// difference between policies survives noise no trace can pin down.
Workload jitter_arrivals(const Workload& w, double seconds, std::uint64_t seed);

// Arrivals compressed by `factor` (2: twice as often), studies' submissions
// too; run times unchanged; recorded starts dropped (they belong to the
// history's pace).
Workload compress(const Workload& w, double factor);

}  // namespace tune::sim
