// SPDX-License-Identifier: GPL-2.0-or-later
// When a study stops, and what it says of why: the stop rules Study checks
// after every outcome and tick (a target met, failures in a row,
// convergence, the trial budget, the time and storage limits).
#include <cstdio>
#include <string>

#include "estimators/study_progress.hpp"
#include "history/direction.hpp"
#include "study/study.hpp"

namespace tune {
std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::None: return "running";
    case StopReason::TrialsDone: return "all trials done";
    case StopReason::SpaceExhausted: return "search space exhausted";
    case StopReason::TargetReached: return "target reached";
    case StopReason::Converged: return "converged";
    case StopReason::TimeLimit: return "time limit reached";
    case StopReason::TooManyFailures: return "too many failures";
    case StopReason::Storage: return "storage full or failing";
    case StopReason::Signal: return "interrupted by a signal";
    case StopReason::Refused: return "Slurm refused its trial jobs";
  }
  return "?";
}

bool ended_for_good(StopReason r) {
  return r == StopReason::TargetReached || r == StopReason::Converged || r == StopReason::TrialsDone ||
         r == StopReason::SpaceExhausted;
}

void Study::check_stop_rules() {
  // A study draining after a signal that reaches its target meanwhile is done
  // for good: it need not be requeued and resumed.
  if (stopping() && reason_ != StopReason::Signal) return;
  if (limits_.target && answer_.best() && limits_.targets.empty()) {
    const double b = *history_.trials()[*answer_.best()].objective;
    if (meets_target(history_.study().minimize, b, *limits_.target)) {
      reason_ = StopReason::TargetReached;
      return;
    }
  }
  if (answer_.targets_met()) {
    reason_ = StopReason::TargetReached;
    return;
  }
  if (stopping()) return;
  if (limits_.max_failures > 0 && consecutive_failures_ >= limits_.max_failures)
    return stop(StopReason::TooManyFailures);
  if (auto line = check_convergence()) {
    converged_line_ = std::move(*line);
    return stop(StopReason::Converged);
  }
  if (running_.empty() && rerun_.empty()) {
    if (exhausted_) return stop(StopReason::SpaceExhausted);
    if (limits_.trials && next_id_ >= *limits_.trials) return stop(StopReason::TrialsDone);
  }
}

std::optional<std::string> Study::check_convergence() {
  if (!limits_.converged || history_.study().multi_objective() || judged_at_ == outcomes_)
    return std::nullopt;
  judged_at_ = outcomes_;
  const ProgressRecord r =
      progress_of({}, history_.trials(), history_.study().minimize, {limits_.target, limits_.trials});
  const auto check = convergence_check(r, *limits_.converged);
  if (!check || !converged(*check, *limits_.converged)) return std::nullopt;
  return convergence_line(r, *check, *limits_.converged);
}

void Study::stop(StopReason why) {
  if (!stopping()) reason_ = why;
}

std::optional<double> Study::storage_probed(const std::optional<StorageFault>& fault, double now) {
  if (!storage_.waiting()) return std::nullopt;
  if (fault) {
    storage_.probe_failed(*fault, now);
    tick(now);
    return std::nullopt;
  }
  return storage_.probe_ok(now);
}

void Study::tick(double now) {
  if (limits_.time_limit && now - started_ >= *limits_.time_limit) stop(StopReason::TimeLimit);
  if (storage_.expired(now)) stop(StopReason::Storage);
  check_stop_rules();
}

bool Study::finished() const {
  if (!running_.empty() || worker_.busy()) return false;
  return stopping();
}

std::string Study::stop_message() const {
  if (reason_ == StopReason::Converged) return converged_line_;
  std::string m(stop_reason_name(reason_));
  if (reason_ == StopReason::Storage && storage_.last()) {
    char waited[32];
    std::snprintf(waited, sizeof waited, "%g", storage_.max_wait());
    m += ": " + describe(*storage_.last()) + "; waited " + waited +
         " s for it (--storage-wait); the trials it kept from running are recorded as interrupted and run "
         "again with --resume";
  }
  if (reason_ == StopReason::TooManyFailures)
    m += ": the last " + std::to_string(consecutive_failures_) +
         " trials all failed; the program looks broken (see the trial logs and `tune status`; "
         "--max-failures " +
         "changes the limit)";
  return m;
}

}  // namespace tune
