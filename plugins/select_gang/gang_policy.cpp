// The C face of lib/placement's GangPlacement for select/cons_tres_gang.
#include "gang_policy.h"

#include <libconfig.h++>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "placement/gang_placement.hpp"

struct gang_settings {
  bool enabled = true;
  std::set<std::string> partitions;  // empty: all
  tune::PlacementOptions options;
};

namespace {

void say(char* err, std::size_t len, const std::string& what) {
  if (err && len) std::snprintf(err, len, "%s", what.c_str());
}

}  // namespace

extern "C" {

gang_settings_t* gang_settings_load(const char* path, char* err, size_t errlen) {
  auto* s = new gang_settings;
  try {
    libconfig::Config cfg;
    try {
      cfg.readFile(path);
    } catch (const libconfig::FileIOException&) {
      return s;  // no file: the defaults
    }
    const auto& root = cfg.getRoot();
    for (int i = 0; i < root.getLength(); ++i) {
      const auto& x = root[i];
      const std::string name = x.getName();
      auto bad = [&](const std::string& why) {
        throw std::runtime_error(std::string(path) + ":" + std::to_string(x.getSourceLine()) + ": " + why);
      };
      if (name == "enabled") {
        if (x.getType() != libconfig::Setting::TypeBoolean) bad("'enabled' must be true or false");
        s->enabled = x;
      } else if (name == "partitions") {
        if (!x.isArray() && !x.isList()) bad("'partitions' must be a list of names: [\"gpu\"]");
        for (int k = 0; k < x.getLength(); ++k) {
          if (x[k].getType() != libconfig::Setting::TypeString) bad("'partitions' must hold \"names\"");
          s->partitions.insert(static_cast<const char*>(x[k]));
        }
      } else if (name == "cores_per_free_gpu") {
        if (x.getType() != libconfig::Setting::TypeInt || static_cast<int>(x) < 0 || static_cast<int>(x) > 1024)
          bad("'cores_per_free_gpu' must be a whole number from 0 to 1024");
        s->options.cores_per_free_gpu = x;
      } else {
        bad("unknown setting '" + name + "'; see select_cons_tres_gang(8)");
      }
    }
    return s;
  } catch (const libconfig::ParseException& e) {
    say(err, errlen, std::string(e.getFile() ? e.getFile() : path) + ":" + std::to_string(e.getLine()) +
                         ": syntax error: " + e.getError());
  } catch (const std::exception& e) {
    say(err, errlen, e.what());
  } catch (...) {
    say(err, errlen, "unknown error");
  }
  delete s;
  return nullptr;
}

void gang_settings_free(gang_settings_t* s) { delete s; }

int gang_enabled_for(const gang_settings_t* s, const char* partition) {
  if (!s->enabled) return 0;
  return s->partitions.empty() || (partition && s->partitions.count(partition));
}

int gang_place(const gang_settings_t* s, const gang_node_t* nodes, int n, const gang_job_t* job, int* chosen,
               char* err, size_t errlen) {
  try {
    tune::Topology t;
    t.nodes.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      auto& c = t.nodes[static_cast<std::size_t>(i)];
      const auto& g = nodes[i];
      c.name = std::to_string(i);
      c.switch_id = g.switch_id;
      c.cores = g.cores, c.free_cores = std::max(0, g.free_cores);
      c.mem_mb = g.mem_mb, c.free_mem_mb = std::max(0.0, g.free_mem_mb);
      c.gpu_socket.assign(g.gpu_socket, g.gpu_socket + g.gpus);
      c.gpu_free.resize(static_cast<std::size_t>(g.gpus));
      for (int k = 0; k < g.gpus; ++k) c.gpu_free[static_cast<std::size_t>(k)] = g.gpu_free[k] != 0;
    }
    tune::JobShape j;
    j.min_nodes = job->min_nodes, j.max_nodes = job->max_nodes, j.tasks = std::max(1, job->tasks);
    j.cpus_per_task = std::max(1, job->cpus_per_task);
    j.gpus_per_job = job->gpus_per_job, j.gpus_per_node = job->gpus_per_node, j.gpus_per_task = job->gpus_per_task;
    j.cpus_per_gpu = job->cpus_per_gpu;
    j.mem_per_cpu_mb = job->mem_per_cpu_mb, j.mem_per_gpu_mb = job->mem_per_gpu_mb, j.mem_per_node_mb = job->mem_per_node_mb;
    j.exclusive = job->exclusive;
    const auto p = tune::GangPlacement(s->options).place(t, j);
    std::fill(chosen, chosen + n, 0);
    if (!p) return 0;
    for (const auto& g : p->nodes) chosen[g.node] = 1;
    return static_cast<int>(p->nodes.size());
  } catch (const std::exception& e) {
    say(err, errlen, e.what());
  } catch (...) {
    say(err, errlen, "unknown error");
  }
  return -1;
}

}  // extern "C"
