// SPDX-License-Identifier: GPL-2.0-or-later
// `tune wrap -- COMMAND...`: the yield protocol's batch-job side, the one
// wrapper that tune submit's scripts, the examples and the benches run a
// study under (docs/yield-protocol.md). It runs COMMAND, passes SIGUSR1 on
// to it, passes SIGTERM on and remembers it, and when COMMAND exits 75
// without a SIGTERM requeues this Slurm job (scontrol requeue), which then
// resumes the study. Its exit code is COMMAND's.
#pragma once

#include <string>
#include <vector>

namespace tune {

// mpi: set the environment mpirun needs to start an MPI-mode study on the
// job's tasks (lib/launch/mpi_launch).
int wrap_command(const std::vector<std::string>& command, bool mpi = false);

}  // namespace tune
