// A runner rank (source design: App Runner): asks rank 0 for work when idle,
// runs each trial as a child process, streams its reports back, returns
// its result. A trial's failure never ends the runner.
#pragma once

#include <atomic>
#include <string>

#include "study/outcome.hpp"

namespace tune {

// Set by the driver's SIGTERM/SIGUSR1 handler: end the running trial as
// interrupted and tell rank 0.
extern std::atomic<bool> g_stop_requested;   // SIGTERM/SIGINT: end trials now
extern std::atomic<bool> g_drain_requested;  // SIGUSR1: let running trials finish (rank 0 sets the limit)

// When `run` may have died of a stop signal this process has not received yet
// (may_have_died_of_the_stop), waits up to `grace` for g_stop_requested, so
// that attribute_to_stop records the trial as interrupted, not as failed.
void await_stop_signal(const TrialRun& run, double grace = 2.0);

struct RunnerIdentity {
  int rank = 0;
  std::string host;      // Slurm's node name, or the host name
  std::string gpus;      // CUDA_VISIBLE_DEVICES for this runner's trials, empty for none
};

// Runs until rank 0 says stop. Returns the process exit code.
int run_runner(const RunnerIdentity& me);

}  // namespace tune
