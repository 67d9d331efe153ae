// SPDX-License-Identifier: GPL-2.0-or-later
// What a runner observed of one trial, and the policy that turns it into a
// recorded outcome (ok, failed, timeout, invalid, interrupted). A trial the
// storage kept from starting or finishing (storage_wait.hpp) is interrupted,
// with the storage named: never charged to the program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "history/trial.hpp"
#include "study/storage_wait.hpp"

namespace tune {

struct TrialRun {
  std::uint64_t trial = 0;
  std::optional<std::string> launch_error;  // the program could not be started
  // tune could not write what the trial needs (its files, its result): the
  // storage's fault, not the program's; the trial is run again.
  std::optional<StorageFault> storage_fault;
  // Its output could not all be kept (the log's file system): the trial's
  // outcome stands; the AppCore says so and waits for the storage.
  std::optional<StorageFault> output_fault;
  bool exited = false;  // exited normally (else: signalled)
  std::int32_t exit_code = -1;
  std::int32_t signal = 0;
  bool timed_out = false;           // killed for exceeding the trial time limit
  bool interrupted = false;         // killed because the study is stopping
  bool pruned = false;              // killed because a pruner stopped it early
  std::optional<double> objective;  // the last objective reported (may be NaN)
  std::size_t bad_report_lines = 0;
  std::string first_report_error;
  std::int64_t last_step = -1;
  double start_time = 0, end_time = 0;
  std::int64_t peak_rss_kb = -1;
  double time_limit = 0;  // seconds, for the message
};

struct Outcome {
  TrialState state;
  std::optional<double> objective;  // only for ok
  std::string message;              // empty for ok
};

Outcome classify(const TrialRun& run);

// A trial that ended while the study was stopping and did not exit cleanly was
// stopped by the study, not by its program: Slurm signals the whole job step,
// so the trial may die of the same SIGTERM before the runner ends it.
// While the study drains (SIGUSR1: no new trials, running ones may finish), a
// trial that died of that same SIGUSR1 (may_have_died_of_the_drain) was
// stopped by the study too; one that ended otherwise keeps its outcome.
void attribute_to_stop(TrialRun& run, bool study_stopping, bool study_draining = false);
// Whether the program's end could be that same stop arriving first: it died of
// SIGTERM, SIGKILL or SIGINT (or exited 128 + one, as shells do after one) and
// its runner had not ended it itself (interrupt, prune, time limit). Slurm
// signals a job's processes one after another, so the runner may learn of the
// stop only after the program died of it; before attribute_to_stop, such a
// runner gives its own signal a moment to arrive.
bool may_have_died_of_the_stop(const TrialRun& run);
// Whether the program died of SIGUSR1 (or exited 128 + it) and its runner had
// not ended it: the study's drain signal, which mpirun passes to the process
// group of every rank, can reach a trial still being started, before it has
// a process group of its own. Such a trial was stopped by the study.
bool may_have_died_of_the_drain(const TrialRun& run);
// A trial the runner ended (TrialProcess marks that `interrupted`) because the
// pruner asked was pruned; one that ended on its own first keeps its outcome.
void attribute_to_prune(TrialRun& run, bool prune_requested);

// "SIGSEGV" for 11, "signal 64" for unknown numbers.
std::string signal_name(int sig);

}  // namespace tune
