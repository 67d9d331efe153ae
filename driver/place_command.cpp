// SPDX-License-Identifier: GPL-2.0-or-later
#include "place_command.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "placement/description.hpp"
#include "placement/placements.hpp"
#include "run_command.hpp"

namespace tune {
namespace {

std::string read_file(const std::string& path, const char* flag) {
  std::ifstream in(path);
  if (!in) throw DescriptionError(std::string(flag) + " " + path + ": cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string where(const Topology& t, const NodeGrant& g) {
  std::string s = t.nodes[g.node].name;
  if (!g.gpu_indices.empty()) {
    s += "[";
    for (std::size_t i = 0; i < g.gpu_indices.size(); ++i)
      s += (i ? "," : "") + std::to_string(g.gpu_indices[i]);
    s += "]";
  }
  return s;
}

}  // namespace

int show_placement(const std::string& cluster_file, const std::string& jobs_file,
                   const std::string& policy_name, bool json) {
  Topology t;
  std::vector<NamedJob> jobs;
  std::unique_ptr<PlacementPolicy> policy;
  try {
    t = parse_topology(read_file(cluster_file, "--cluster"), cluster_file);
    jobs = parse_jobs(read_file(jobs_file, "--jobs"), jobs_file);
    policy = make_placement(policy_name);
  } catch (const std::exception& e) {
    std::cerr << "tune place: error: " << e.what() << "\n";
    return kExitUsage;
  }
  const double before = gpu_fragmentation(t);
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    std::printf("cluster: %zu nodes, %d switch(es), %d free GPUs; policy %s; fragmentation %.3f\n",
                t.nodes.size(), t.switches(), t.free_gpus(), policy->name().c_str(), before);
    std::printf("%-12s %5s %5s %-8s %9s  %s\n", "JOB", "GPUS", "CPUS", "SWITCHES", "FRAG", "NODES[GPUS]");
  }
  int placed = 0;
  // A policy that learns the workload's mix (fgd) learns it from this job list.
  for (const auto& j : jobs) policy->observe(j.shape);
  for (const auto& j : jobs) {
    const auto p = policy->place(t, j.shape);
    nlohmann::json row = {{"job", j.name}, {"placed", static_cast<bool>(p)}};
    if (p) {
      apply(t, *p, j.shape);
      ++placed;
      int gpus = 0, cpus = 0;
      std::string nodes;
      nlohmann::json grants = nlohmann::json::array();
      for (const auto& g : p->nodes) {
        gpus += g.gpus, cpus += g.cpus;
        nodes += (nodes.empty() ? "" : " ") + where(t, g);
        grants.push_back(
            {{"node", t.nodes[g.node].name}, {"tasks", g.tasks}, {"cpus", g.cpus}, {"gpus", g.gpu_indices}});
      }
      row["nodes"] = grants, row["switches"] = p->switches, row["fragmentation"] = gpu_fragmentation(t);
      if (!json)
        std::printf("%-12.12s %5d %5d %-8d %9.3f  %s\n", j.name.c_str(), gpus, cpus, p->switches,
                    gpu_fragmentation(t), nodes.c_str());
    } else if (!json) {
      std::printf("%-12.12s %5d %5s %-8s %9s  does not fit now (would wait)\n", j.name.c_str(),
                  j.shape.total_gpus(), "-", "-", "-");
    }
    out.push_back(row);
  }
  if (json) {
    std::cout << nlohmann::json{{"policy", policy->name()},
                                {"fragmentation_before", before},
                                {"fragmentation_after", gpu_fragmentation(t)},
                                {"jobs", out}}
                     .dump(2)
              << "\n";
  } else {
    std::printf("placed %d of %zu jobs; fragmentation before %.3f, after %.3f\n", placed, jobs.size(), before,
                gpu_fragmentation(t));
  }
  return kExitOk;
}

}  // namespace tune
