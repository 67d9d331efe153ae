// SPDX-License-Identifier: GPL-2.0-or-later
// Gang placement benchmarks, each beside first fit by node order (what
// select/cons_tres does without node weights) in the same run:
//   placement_bench decide          one decision on 1,000 nodes x 8 GPUs, half busy (aim < 1 ms)
//   placement_bench replay TRACE [LOAD...]  Tiresias' (FIFO and backfill queues) 60_job.csv on n32g4 (32
//   nodes x 4 GPUs, 40 CPUs,
//                                   256 GB) with a FIFO queue: queueing delay by job size and GPU
//                                   fragmentation over time
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "placement/placements.hpp"

using namespace tune;

namespace {

Topology make_cluster(int nodes, int gpus, int cores, double mem_mb) {
  Topology t;
  for (int i = 0; i < nodes; ++i) {
    NodeCell n;
    n.name = "node" + std::to_string(i + 1);
    n.cores = n.free_cores = cores;
    n.mem_mb = n.free_mem_mb = mem_mb;
    for (int g = 0; g < gpus; ++g) n.gpu_socket.push_back(g < gpus / 2 ? 0 : 1);
    n.gpu_free.assign(gpus, true);
    t.nodes.push_back(n);
  }
  return t;
}

JobShape shape_for(int gpus, int gpus_per_node) {
  JobShape j;
  j.cpus_per_gpu = 4;
  j.mem_per_gpu_mb = 16000;
  if (gpus <= gpus_per_node) {
    j.gpus_per_node = gpus;
  } else {
    j.min_nodes = j.max_nodes = (gpus + gpus_per_node - 1) / gpus_per_node;
    j.tasks = j.min_nodes;
    j.gpus_per_node = gpus_per_node;
  }
  return j;
}

int decide() {
  Topology t = make_cluster(1000, 8, 64, 512000);
  std::mt19937_64 rng(1);
  for (auto& n : t.nodes)  // half the GPUs busy, scattered
    for (int g = 0; g < 8; ++g)
      if (rng() % 2) n.gpu_free[g] = false, n.free_cores -= 4;
  const std::vector<int> sizes = {1, 2, 4, 8, 16};
  std::printf("%-6s %14s %14s %8s\n", "gpus", "gang us", "first-fit us", "ratio");
  double worst = 0;
  for (int g : sizes) {
    const JobShape j = shape_for(g, 8);
    auto time = [&](const PlacementPolicy& p) {
      std::vector<double> us;
      for (int rep = 0; rep < 25; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto pl = p.place(t, j);
        us.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        if (!pl) return -1.0;
      }
      std::sort(us.begin(), us.end());
      return us[us.size() / 2];
    };
    const double a = time(GangPlacement()), b = time(FirstFitPlacement());
    worst = std::max(worst, a);
    std::printf("%-6d %14.1f %14.1f %8.1f\n", g, a, b, a / b);
  }
  std::printf("slowest gang decision %.3f ms: aim < 1 ms %s\n", worst / 1000,
              worst < 1000 ? "met" : "NOT met");
  return 0;
}

struct TraceJob {
  int id, gpus;
  double submit, duration;
};

int replay(const std::string& path, const std::vector<double>& loads, bool backfill) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "placement_bench: cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<TraceJob> jobs;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream s(line);
    std::string f[7];
    for (auto& x : f) std::getline(s, x, ',');
    jobs.push_back({std::stoi(f[0]), std::stoi(f[1]), std::stod(f[2]), std::stod(f[5])});
  }
  std::printf("queue: %s\n",
              backfill ? "backfill (every job that fits starts, in order)" : "FIFO (the head waits)");
  std::printf("%-5s %-10s %9s %9s %9s %9s %9s %11s\n", "load", "policy", "1-GPU s", "2-GPU s", "4-GPU s",
              "8-GPU s", "all s", "frag (avg)");
  const std::vector<TraceJob> original = jobs;
  for (const double load : loads)
    for (const char* name : {"first-fit", "gang"}) {
      // LOAD compresses the arrival times: x2 means jobs arrive twice as often.
      for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].submit = original[i].submit / load;
      const auto policy = make_placement(name);
      Topology t = make_cluster(32, 4, 40, 256000);
      std::map<int, std::vector<double>> wait;            // gpus -> waits
      std::vector<std::pair<double, Placement>> running;  // end time
      std::deque<const TraceJob*> queue;
      std::size_t next = 0;
      double now = 0, frag_area = 0, last = 0;
      while (next < jobs.size() || !queue.empty() || !running.empty()) {
        double t_next = 1e300;
        if (next < jobs.size()) t_next = jobs[next].submit;
        for (const auto& [end, p] : running) t_next = std::min(t_next, end);
        frag_area += gpu_fragmentation(t) * (t_next - last);
        now = last = t_next;
        for (auto it = running.begin(); it != running.end();)
          if (it->first <= now)
            release(t, it->second), it = running.erase(it);
          else
            ++it;
        while (next < jobs.size() && jobs[next].submit <= now) queue.push_back(&jobs[next++]);
        // FIFO: the head waits until it fits. Backfill: every queued job that
        // fits starts, in queue order (what Slurm's backfill amounts to when
        // jobs have no time limits to plan with).
        for (auto it = queue.begin(); it != queue.end();) {
          const TraceJob* j = *it;
          const JobShape shape = shape_for(j->gpus, 4);
          const auto p = policy->place(t, shape);
          if (!p) {
            if (!backfill) break;
            ++it;
            continue;
          }
          apply(t, *p, shape);
          running.emplace_back(now + j->duration, *p);
          wait[j->gpus].push_back(now - j->submit);
          it = queue.erase(it);
        }
      }
      auto mean = [](const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0 : s / v.size();
      };
      std::vector<double> all;
      for (const auto& [g, v] : wait) all.insert(all.end(), v.begin(), v.end());
      std::printf("x%-4g %-10s %9.1f %9.1f %9.1f %9.1f %9.1f %11.3f\n", load, name, mean(wait[1]),
                  mean(wait[2]), mean(wait[4]), mean(wait[8]), mean(all), frag_area / now);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "decide";
  if (what == "decide") return decide();
  if (what == "replay") {
    std::vector<double> loads;
    for (int i = 3; i < argc; ++i) loads.push_back(std::stod(argv[i]));
    if (loads.empty()) loads = {1, 4, 8, 16};
    const std::string trace = argc > 2 ? argv[2] : "data/traces/tiresias/60_job.csv";
    return replay(trace, loads, false) || replay(trace, loads, true);
  }
  std::fprintf(stderr, "usage: placement_bench decide | replay TRACE.csv\n");
  return 2;
}
