// SPDX-License-Identifier: GPL-2.0-or-later
// How mpirun starts an MPI-mode study on its Slurm job. The job's tasks are
// the runners, and only they hold GPUs (--gpus-per-task); the AppCore
// (rank 0) is one more process on the job's first node. mpirun learns its
// slots from SLURM_TASKS_PER_NODE, so the first node is given one more. Its
// daemons start as a step of one task per node, which would inherit the
// per-task GPU count and see one runner's GPUs; they ask for every GPU of the
// job instead (SLURM_GPUS), which Slurm can only grant as each node's whole
// share, and each runner then takes its own part (gpu_share).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tune {

struct EnvChange {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
};

// "2(x3),1" -> "3,2(x2),1": one more slot on the first node. Throws
// std::invalid_argument for what Slurm would not write.
std::string tasks_per_node_with_appcore(const std::string& slurm);

// The changes to the batch job's environment for mpirun, read through `get`
// (getenv). Throws std::invalid_argument, naming the variable, when the job
// lacks SLURM_TASKS_PER_NODE or holds a malformed one.
std::vector<EnvChange> mpi_study_env(const std::function<const char*(const char*)>& get);

}  // namespace tune
