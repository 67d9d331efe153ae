// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/outcome.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace tune {

std::string signal_name(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

void attribute_to_stop(TrialRun& run, bool study_stopping, bool study_draining) {
  // Before the flag is set: may_have_died_of_the_drain asks whether the runner ended it.
  if (study_draining && may_have_died_of_the_drain(run)) run.interrupted = true;
  if (study_stopping && !(run.exited && run.exit_code == 0)) run.interrupted = true;
}

namespace {
// The program's end is one of `signals` (or a shell's exit after one), and its runner did not end it.
bool died_of(const TrialRun& run, std::initializer_list<int> signals) {
  if (run.interrupted || run.pruned || run.timed_out || run.launch_error || run.storage_fault) return false;
  const auto one_of = [&](int s) { return std::find(signals.begin(), signals.end(), s) != signals.end(); };
  return run.exited ? run.exit_code > 128 && one_of(run.exit_code - 128) : one_of(run.signal);
}
}  // namespace

bool may_have_died_of_the_stop(const TrialRun& run) {
  return died_of(run, {SIGTERM, SIGKILL, SIGINT});
}
bool may_have_died_of_the_drain(const TrialRun& run) {
  return died_of(run, {SIGUSR1});
}

void attribute_to_prune(TrialRun& run, bool prune_requested) {
  if (prune_requested && run.interrupted) {
    run.interrupted = false;
    run.pruned = true;
  }
}

Outcome classify(const TrialRun& run) {
  const auto with_report_error = [&](std::string msg) {
    if (run.bad_report_lines > 0)
      msg += "; " + std::to_string(run.bad_report_lines) +
             " malformed report line(s), first: " + run.first_report_error;
    return msg;
  };
  if (run.storage_fault)
    return {TrialState::Interrupted, {}, std::string(kKeptByStorage) + describe(*run.storage_fault)};
  if (run.interrupted) return {TrialState::Interrupted, {}, "interrupted: the study was stopping"};
  if (run.pruned) return {TrialState::Pruned, {}, "pruned: stopped early by the pruner"};
  if (run.launch_error) return {TrialState::Failed, {}, "cannot start the program: " + *run.launch_error};
  if (run.timed_out) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", run.time_limit);
    return {TrialState::Timeout, {}, std::string("exceeded the trial time limit of ") + limit + " s"};
  }
  if (!run.exited) return {TrialState::Failed, {}, with_report_error("killed by " + signal_name(run.signal))};
  if (run.exit_code != 0)
    return {TrialState::Failed, {}, with_report_error("exit code " + std::to_string(run.exit_code))};
  if (!run.objective)
    return {TrialState::Invalid, {}, with_report_error("exited 0 but reported no objective")};
  if (!std::isfinite(*run.objective)) {
    char v[32];
    std::snprintf(v, sizeof v, "%g", *run.objective);
    return {TrialState::Invalid, {}, with_report_error(std::string("objective is ") + v)};
  }
  return {TrialState::Ok, run.objective, ""};
}

}  // namespace tune
