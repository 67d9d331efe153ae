// SPDX-License-Identifier: GPL-2.0-or-later
// How a run of a study is steered and ends, the same in both modes (MPI
// ranks and trial jobs): signals to stop reasons, the drain window, one turn
// of the loop's clock, exit codes, which checkpoints are kept, the trial
// budget on resume and whether a stand-in sampler proposes. The driver
// installs the signal handlers and says the lines; the rules are here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "history/trial.hpp"
#include "study/study.hpp"
#include "study/yield_protocol.hpp"

namespace tune {

// tune run's exit codes (kExitInterrupted, 75, is the yield protocol's).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;          // bad input: flags, space, history
constexpr int kExitBrokenProgram = 3;  // --max-failures reached
constexpr int kExitStorage = 4;        // the storage stayed full or failing past --storage-wait

// What the signal handlers saw: SIGTERM/SIGINT (stop: running trials end
// now) and SIGUSR1 (drain: no new trials, running ones may finish within
// the drain window).
struct SignalsSeen {
  bool stop = false;
  bool drain = false;
};

class RunControl {
 public:
  // `drain`: --drain, seconds the running trials may take after SIGUSR1.
  RunControl(Study& study, double drain) : study_(study), drain_(drain) {}

  // One turn of a mode's loop: the signals seen so far, then the study's
  // clock (its time limit, its sampler's news). True on the one turn when
  // running trials must be told to end (a mode sends its interrupts then).
  bool turn(const SignalsSeen& seen, double now);
  // Whether running trials must end now, not merely stop being handed out.
  bool interrupt_running(double now) const;
  // Whether SIGTERM/SIGINT came: a trial that ended during it was cut short.
  bool stop_requested() const { return seen_.stop; }
  // A line to say once (the drain's start), or nothing.
  std::optional<std::string> take_news();

 private:
  void see(const SignalsSeen& seen, double now);

  Study& study_;
  double drain_;
  SignalsSeen seen_;
  double drain_started_ = -1;
  bool interrupted_ = false;
  std::optional<std::string> news_;
};

// How the run ends: its exit code and, for a stop to be resumed, a line.
struct RunEnd {
  int exit_code = kExitOk;
  std::string message;
};
RunEnd run_end(StopReason reason);

// Checkpoints: a finished trial needs its own no more; an interrupted one
// runs again and continues from them, unless the study ended for good.
bool drop_checkpoint_on_result(TrialState state, bool keep_checkpoints);
std::vector<std::uint64_t> checkpoints_to_drop_at_end(const std::vector<Trial>& trials, StopReason reason,
                                                      bool keep_checkpoints);

// The run's trial budget: --trials if given, else (a resumed study) the
// budget the study was created or last resumed with; 0 there means none.
std::optional<std::uint64_t> trial_budget(std::optional<std::uint64_t> given, std::uint64_t studys);

// A stand-in proposes while the sampler fits for another runner or trial
// job, so that the loop never keeps one waiting behind another's proposal:
// whenever more than one trial may run at once, in both modes.
bool wants_stand_in(int runners);

// Runners lost in MPI mode. Once a stopped study has asked its runners to
// end their trials (at `asked_at`), each answers within the trial's grace
// (its program's SIGTERM, then SIGKILL, then a wait for Slurm's signal). A
// runner with a trial (`busy`: rank -> trial) silent for 2 x grace + 30 s
// since the ask or its last message (`heard`: rank -> when) has been lost
// (a node's network gone; in the test suite, Open MPI's TCP links over a
// bridge another test removed): its trial is recorded as interrupted, so
// that --resume runs it again, and it is told to stop, so that the study
// ends instead of waiting for the job's time limit.
double silent_runner_patience(double grace);
std::vector<int> runners_lost(double now, double asked_at, double grace,
                              const std::map<int, std::uint64_t>& busy, const std::map<int, double>& heard);

}  // namespace tune
