// SPDX-License-Identifier: GPL-2.0-or-later
// A job's GPU request as Slurm keeps it (--gpus, --gpus-per-node,
// --gpus-per-task, --gpus-per-socket) and its count, in one order, the same
// for sched/tune, site_factor/tune, select/cons_tres_gang and the simulator:
// per job, else per task x tasks, else per node x nodes, else per socket x
// nodes (a lower bound: one socket a node). Header-only: both plugins link it.
#pragma once

#include <algorithm>

namespace tune {

struct GpuRequest {
  int per_job = 0, per_node = 0, per_task = 0, per_socket = 0;
};

inline int gpu_count(const GpuRequest& r, int nodes, int tasks) {
  if (r.per_job) return r.per_job;
  if (r.per_task) return r.per_task * std::max(1, tasks);
  if (r.per_node) return r.per_node * std::max(1, nodes);
  return r.per_socket * std::max(1, nodes);
}

}  // namespace tune
