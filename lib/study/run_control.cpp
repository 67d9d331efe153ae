// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/run_control.hpp"

#include <algorithm>
#include <cstdio>

namespace tune {

void RunControl::see(const SignalsSeen& seen, double now) {
  seen_.stop = seen_.stop || seen.stop;
  seen_.drain = seen_.drain || seen.drain;
  if (seen_.stop || seen_.drain) study_.stop(StopReason::Signal);
  if (seen_.drain && drain_started_ < 0) {
    drain_started_ = now;
    char window[32];
    std::snprintf(window, sizeof window, "%g", drain_);
    news_ = "SIGUSR1: no new trials; running trials may finish within " + std::string(window) + " s";
  }
}

bool RunControl::turn(const SignalsSeen& seen, double now) {
  see(seen, now);
  study_.tick(now);
  if (interrupted_ || !interrupt_running(now)) return false;
  interrupted_ = true;
  return true;
}

bool RunControl::interrupt_running(double now) const {
  if (!study_.stopping()) return false;
  if (seen_.stop || study_.stop_reason() != StopReason::Signal) return true;
  return drain_started_ >= 0 && now - drain_started_ >= drain_;
}

std::optional<std::string> RunControl::take_news() {
  auto n = std::move(news_);
  news_.reset();
  return n;
}

RunEnd run_end(StopReason reason) {
  switch (reason) {
    case StopReason::Signal: return {kExitInterrupted, "interrupted: run again with --resume to continue"};
    case StopReason::TooManyFailures: return {kExitBrokenProgram, ""};
    case StopReason::Storage:
      return {kExitStorage, "stopped for its storage: once it has room, run again with --resume to continue"};
    case StopReason::Refused: return {kExitUsage, ""};
    default: return {kExitOk, ""};
  }
}

bool drop_checkpoint_on_result(TrialState state, bool keep_checkpoints) {
  return is_final(state) && !keep_checkpoints;
}

std::vector<std::uint64_t> checkpoints_to_drop_at_end(const std::vector<Trial>& trials, StopReason reason,
                                                      bool keep_checkpoints) {
  std::vector<std::uint64_t> out;
  if (keep_checkpoints || !ended_for_good(reason)) return out;
  for (const auto& t : trials)
    if (!is_final(t.state)) out.push_back(t.id);
  return out;
}

std::optional<std::uint64_t> trial_budget(std::optional<std::uint64_t> given, std::uint64_t studys) {
  if (given) return given;
  if (studys) return studys;
  return std::nullopt;
}

bool wants_stand_in(int runners) {
  return runners > 1;
}

double silent_runner_patience(double grace) {
  return 2 * grace + 30;
}

std::vector<int> runners_lost(double now, double asked_at, double grace,
                              const std::map<int, std::uint64_t>& busy, const std::map<int, double>& heard) {
  std::vector<int> lost;
  for (const auto& [rank, trial] : busy) {
    const auto h = heard.find(rank);
    const double since = std::max(asked_at, h == heard.end() ? 0.0 : h->second);
    if (now - since > silent_runner_patience(grace)) lost.push_back(rank);
  }
  return lost;
}

}  // namespace tune
