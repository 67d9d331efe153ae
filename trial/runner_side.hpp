// SPDX-License-Identifier: GPL-2.0-or-later
// The runner's side of a trial, the same in both modes: an MPI runner rank
// (mpi_runner/) and a trial job (job_runner/) each give it a RunnerLink to
// their AppCore and get the trial's run back to send as its result.
#pragma once

#include <atomic>
#include <optional>

#include "trial/messages.hpp"
#include "trial/trial_process.hpp"

namespace tune {

// Set by the process's signal handlers: SIGTERM/SIGINT end trials now
// (g_stop_requested), SIGUSR1 lets them finish (g_drain_requested, the AppCore
// sets the limit).
extern std::atomic<bool> g_stop_requested;
extern std::atomic<bool> g_drain_requested;

// When `run` may have died of a stop signal this process has not received yet
// (may_have_died_of_the_stop), waits up to `grace` for g_stop_requested, so
// that attribute_to_stop records the trial as interrupted, not as failed; one
// that died of SIGUSR1 (may_have_died_of_the_drain) waits for g_drain_requested.
void await_stop_signal(const TrialRun& run, double grace = 2.0);

// The runner's end of a transport to its AppCore.
class RunnerLink {
 public:
  virtual ~RunnerLink() = default;
  // Sends a message; false when the AppCore cannot be reached now.
  virtual bool send(const wire::Message& m) = 0;
  // A message from the AppCore waiting now, if any (never blocks).
  virtual std::optional<wire::Message> poll() = 0;
};

// Runs `launch` to its end: streams its reports as Report messages, ends it
// when an Interrupt comes, a Prune for this trial, or a stop signal, waits
// for a stop signal its death may foretell, and attributes the outcome
// (interrupted, pruned). The caller sends the run as the Result. A Stop that
// comes meanwhile (the AppCore giving up on an answer) sets `*stop_heard`.
TrialRun run_trial(RunnerLink& link, const TrialLaunch& launch, bool* stop_heard = nullptr);

}  // namespace tune
