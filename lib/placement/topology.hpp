// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
#include "placement/gpu_request.hpp"
// The cells gang placement reasons about: GPUs (with their socket), nodes
// (free cores, memory, GPUs) and switches. Built by the select plugin from
// slurmctld's node table, or by `tune place` from a description file. No
// Slurm here.
#include <optional>
#include <string>
#include <vector>

namespace tune {

struct NodeCell {
  std::string name;
  int switch_id = 0;
  bool available = true;  // up and not drained
  int cores = 0, free_cores = 0;
  double mem_mb = 0, free_mem_mb = 0;
  std::vector<int> gpu_socket;  // socket of GPU i (from gres.conf Cores=); size = GPUs
  std::vector<bool> gpu_free;   // same size

  int gpus() const { return static_cast<int>(gpu_socket.size()); }
  int free_gpus() const;
  bool fully_free() const { return free_cores == cores && free_gpus() == gpus(); }
};

// A node with nothing allocated; its GPUs split over two sockets (the first
// half on socket 0) when nothing says otherwise.
NodeCell idle_node(const std::string& name, int switch_id, int cores, double mem_mb, int gpus);

struct Topology {
  std::vector<NodeCell> nodes;
  int switches() const;
  int free_gpus() const;
};

// What a job asks for, in Slurm's terms (--nodes, --ntasks, --gpus,
// --gpus-per-node, --gpus-per-task, --cpus-per-task, --cpus-per-gpu, --mem*).
struct JobShape {
  int min_nodes = 1, max_nodes = 0;  // 0: no limit
  int tasks = 1;
  int cpus_per_task = 1;
  int gpus_per_job = 0, gpus_per_node = 0, gpus_per_task = 0;
  int cpus_per_gpu = 0;
  double mem_per_cpu_mb = 0, mem_per_gpu_mb = 0, mem_per_node_mb = 0;
  bool exclusive = false;

  // The request in these fields: per socket counts as per node (one socket).
  void set_gpus(const GpuRequest& r);
  bool wants_gpus() const { return gpus_per_job > 0 || gpus_per_node > 0 || gpus_per_task > 0; }
  int total_gpus() const;  // a lower bound when the count depends on the nodes
};

// Fragmentation: the share of free GPUs that sit on partly used nodes, where a
// job needing a whole node cannot use them. 0 when every free GPU is on a
// fully free node (or none is free).
double gpu_fragmentation(const Topology& t);

}  // namespace tune
