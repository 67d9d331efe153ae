// SPDX-License-Identifier: GPL-2.0-or-later
// Scale of `tune simulate`: a synthetic cluster of NODES nodes x 8 GPUs (64
// cores, 512 GB) and JOBS jobs shaped like the openb trace's mix (85% 1-GPU,
// 3% 2-GPU, 3% 4-GPU, 9% 8-GPU; log-normal run times, median 20 min; Poisson
// arrivals at 90% offered load in four waves of +-60%, so that queues form
// at the crests; 50 accounts), through FIFO + backfill +
// cons_tres, and again with sched/tune's priorities (its policy pass every
// interval over the whole queue; the time spent in it is printed: it must not
// be what limits the simulation). Baseline in the same run: the same workload
// through the main scheduler alone (sched/builtin), so the ratio is what
// backfill's planning costs. Prints wall time, events per second and peak
// memory.
//   simulate_bench [JOBS [NODES]]   (default 100000 jobs, 10000 nodes; the aim: 1,000,000 in <= 10 min, <= 4
//   GB)
#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "simulation/simulator.hpp"
#include "simulation/workload.hpp"

using namespace tune;
using namespace tune::sim;

int main(int argc, char** argv) {
  const long jobs = argc > 1 ? std::atol(argv[1]) : 100000;
  const int nodes = argc > 2 ? std::atoi(argv[2]) : 10000;
  Cluster c;
  c.source = "synthetic";
  for (int i = 0; i < nodes; ++i) {
    NodeCell n;
    n.name = "n" + std::to_string(i);
    n.cores = n.free_cores = 64;
    n.mem_mb = n.free_mem_mb = 512000;
    n.gpu_socket = {0, 0, 0, 0, 1, 1, 1, 1};
    n.gpu_free.assign(8, true);
    c.topology.nodes.push_back(n);
  }
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> run(std::log(1200.0), 1.2);
  std::discrete_distribution<int> size({85, 3, 3, 9});
  const int sizes[] = {1, 2, 4, 8};
  Workload w;
  double work = 0;
  for (long i = 0; i < jobs; ++i) {
    SimJob j;
    j.name = std::to_string(i);
    j.gpus = sizes[size(rng)];
    j.cpus = 4 * j.gpus;
    j.mem_mb = 32000.0 * j.gpus;
    j.runtime = std::min(7 * 86400.0, std::max(10.0, run(rng)));
    j.account = "acct" + std::to_string(rng() % 50);
    work += j.gpus * j.runtime;
    w.jobs.push_back(j);
  }
  // Poisson arrivals at 90% offered load on average, in four waves of +-60%
  // (a day's rhythm): at the crests more work arrives than the cluster holds,
  // so a queue forms and backfill has work, as on a busy site.
  const double rate = 0.9 * 8.0 * nodes / (work / jobs);  // jobs per second
  const double period = jobs / rate / 4;
  std::exponential_distribution<double> gap(1.0);
  double t = 0;
  for (auto& j : w.jobs) j.submit = t, t += gap(rng) / (rate * (1 + 0.6 * std::sin(2 * M_PI * t / period)));
  apply_time_limits(w, 2);
  w = compress(w, factor_for_load(w, 0.9, 8 * nodes,
                                  64 * nodes));  // long jobs run past the window: measure, do not assume
  std::printf("%ld jobs on %d nodes x 8 GPUs, offered load %.0f%% over %.1f days\n", jobs, nodes,
              100 * offered_load(w, 8 * nodes, 64 * nodes), t / 86400);

  auto once = [&](bool backfill, const std::string& priority = "fifo") {
    Cluster cc = c;
    cc.settings.backfill = backfill;
    SimOptions o;
    o.priority = priority;
    const SimResult r = simulate(cc, w, o);
    double wait = 0;
    long waited = 0;
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
      wait += r.jobs[i].start - w.jobs[i].submit;
      waited += r.jobs[i].start - w.jobs[i].submit > 60;
    }
    int most = 0;
    for (const auto& s : r.samples) most = std::max(most, s.pending);
    const std::string label = priority == "tune" ? "sched/tune + backfill + cons_tres"
                              : backfill         ? "sched/backfill + cons_tres"
                                                 : "sched/builtin + cons_tres";
    std::printf(
        "%-34s %8.1f s %12lld events %10.0f events/s  placements %lld  mean wait %.0f s, %.0f%% of jobs "
        "waited > 1 min, up to %d pending\n",
        label.c_str(), r.seconds, r.events, r.events / r.seconds, r.placement_calls, wait / r.jobs.size(),
        100.0 * waited / r.jobs.size(), most);
    if (priority != "fifo")
      std::printf("%-34s %lld priority passes, %.1f s in them (%.1f%% of the run, %.1f ms per pass)\n", "",
                  r.priority_passes, r.priority_seconds, 100 * r.priority_seconds / r.seconds,
                  1000 * r.priority_seconds / r.priority_passes);
    return r.seconds;
  };
  const double base = once(false);
  const double full = once(true);
  const double tuned = once(true, "tune");
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("backfill model / main scheduler only: %.2f; peak memory %.0f MB\n", full / base,
              u.ru_maxrss / 1024.0);
  const double per_million = std::max(full, tuned) * 1e6 / jobs;
  std::printf(
      "aim: 1,000,000 jobs on 10,000 nodes in <= 600 s and <= 4 GB: %s (%.0f s per million jobs at this "
      "size)\n",
      jobs >= 1000000 && nodes >= 10000
          ? (std::max(full, tuned) <= 600 && u.ru_maxrss <= 4 * 1024 * 1024 ? "met" : "NOT met")
          : "run with 1000000 10000 to judge",
      per_million);
  return 0;
}
