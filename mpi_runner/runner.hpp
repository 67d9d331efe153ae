// SPDX-License-Identifier: GPL-2.0-or-later
// A runner rank (source design: App Runner): asks rank 0 for work when idle,
// runs each trial through trial/runner_side (the same sequence a trial job
// runs), returns its result. A trial's failure never ends the runner.
#pragma once

#include <string>

#include "trial/runner_side.hpp"

namespace tune {

struct RunnerIdentity {
  int rank = 0;
  std::string host;  // Slurm's node name, or the host name
  std::string gpus;  // CUDA_VISIBLE_DEVICES for this runner's trials, empty for none
};

// Runs until rank 0 says stop. Returns the process exit code.
int run_runner(const RunnerIdentity& me);

}  // namespace tune
