// SPDX-License-Identifier: GPL-2.0-or-later
// A trial and its outcome, as the history records it and the driver and
// reports read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/assignment.hpp"

namespace tune {

// The stored values are part of the file format: never renumber.
enum class TrialState : std::uint8_t {
  Running = 0,      // handed to a runner, no result yet
  Ok = 1,           // exited 0 with a finite objective
  Failed = 2,       // non-zero exit or killed by a signal
  Timeout = 3,      // exceeded the per-trial time limit
  Invalid = 4,      // ran, but no objective, NaN/inf, or unparsable output
  Interrupted = 5,  // ended by the study stopping (signal, time limit); runs again on --resume
  Pruned = 6,       // stopped early by an early-stopping rule (step reached is recorded)
};
constexpr int kTrialStates = 7;

std::string_view state_name(TrialState s);
std::optional<TrialState> state_from_name(std::string_view name);
// A finished outcome (anything but Running and Interrupted).
inline bool is_final(TrialState s) {
  return s != TrialState::Running && s != TrialState::Interrupted;
}

struct Trial {
  std::uint64_t id = 0;
  TrialState state = TrialState::Running;
  Assignment params;
  std::optional<double> objective;  // with named objectives: the first one's value
  std::vector<double> values;       // with named objectives: each one's value (ok trials), else empty
  double start_time = 0;            // seconds since the epoch
  double end_time = 0;              // 0 while running
  std::int32_t rank = -1;           // MPI rank that ran it
  std::string host;
  std::int32_t exit_code = -1;  // -1: did not exit normally
  std::int32_t signal = 0;      // signal that ended it, 0 if none
  std::int64_t peak_rss_kb = -1;
  std::int64_t last_step = -1;  // highest step reported
  std::string message;          // why it failed / was invalid, for people
  // Its lineage (Sampler::lineage): the trial whose checkpoint it started
  // from (nothing: from scratch), the population member it continues, and
  // the last step it trains to (nothing: to its own end).
  std::optional<std::uint64_t> from;
  std::optional<std::uint32_t> member;
  std::optional<std::int64_t> step_limit;

  double wall_time() const { return end_time > 0 ? end_time - start_time : 0; }
};

}  // namespace tune
