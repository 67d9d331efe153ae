// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The adaptive part shared by sched/tune and site_factor/tune: which jobs
// belong to which study (by the progress record in their Comment, keyed by
// the job owner's uid so nobody can speak for another user's study), each
// study's yield level under Algorithm 1, its relaxation when nobody else
// waits, and whether a running whole-allocation study should be asked to
// yield. What a level does to a job's priority is the host policy's:
// SchedTunePolicy multiplies its own priority, SiteFactorPolicy gives
// priority/multifactor a negative site factor. No Slurm here.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "estimators/progress_record.hpp"
#include "estimators/yield_level.hpp"
#include "fairshare/fair_share.hpp"

namespace tune {

struct JobView {
  enum class State { Pending, Running };
  std::uint32_t id = 0;
  std::uint32_t uid = 0;
  std::string tenant;   // the account, or "user:NAME" when the job has none
  std::string comment;  // untrusted: written by the job's owner
  State state = State::Pending;
  bool may_set = true;  // pending and not held, not set by an admin by hand
  bool waiting = true;  // pending for resources or priority (not dependency, begin time, hold)
  double eligible = 0;  // when the job became eligible to start (submit or begin time)
  double started = 0;   // running jobs: start time
  Resources request;    // what it asks for (pending) or holds (running)
  // site_factor/tune: the job's priority from priority/multifactor without
  // the site term (sched/tune computes its own and ignores this).
  double base_priority = 0;
  // site_factor/tune: multifactor's weighted fair-share term in base_priority.
  double fairshare = 0;
};

struct StudyState {
  YieldLevel yield;
  double last_seen = 0;       // last pass with a job carrying the record
  double last_contended = 0;  // last pass another tenant had work waiting
  double last_change = 0;     // last rise or relaxation
  double last_signal = -1e300;
  // Results the study had when it was last asked to yield (-1: never): it is
  // not asked again before it records a new one, so a study whose trials
  // outlast cooldown - drain still finishes one per yield instead of having
  // the same trial cut at every signal forever.
  std::int64_t signalled_at = -1;
};

struct YieldOptions {
  bool enabled = true;
  int level = 2;          // signal a running study at or above this yield level
  int signal = 10;        // SIGUSR1
  double wait = 300;      // ... when another tenant's job has waited this long
  double cooldown = 900;  // seconds between two signals to one study
};

// A study's yield level changed in an update(): what the plugins log and the
// simulator counts (a rise is a decision to lower the study).
struct LevelChange {
  std::string study;         // "uid:key"
  std::int64_t results = 0;  // n of the record that changed it (relaxation: the last seen)
  int from = 0, to = 0;
  bool judged = false;  // by the estimator judging a new record (else relaxation, or the
                        // tail estimate standing again now that others wait)
  double chance = -1;   // the tail estimator's p when it judged (-1: Algorithm 1, or not judged)
};

class StudyTracker {
 public:
  // A job's study as the last update() saw it (state null: no study).
  struct Membership {
    StudyState* state = nullptr;
    std::string key;
    StudyRole role = StudyRole::Study;
  };

  // Reads every job's newest progress record (when `enabled`), raises yield
  // levels by Algorithm 1, relaxes a level per relax_time in which no other
  // tenant had work waiting, forgets studies unseen for kForgetStudyAfter.
  void update(double now, const std::vector<JobView>& jobs, const AdaptiveOptions& o, bool enabled);

  // After update(): job i's study, and its yield level (0 without one).
  const Membership& of(std::size_t i) const { return of_[i]; }
  int level(std::size_t i) const { return of_[i].state ? of_[i].state->yield.level() : 0; }
  // The signal to send running job i, a whole-allocation study at or above
  // the yield level while another tenant's job has waited y.wait, at most
  // once per cooldown and per new result (0: none). Records the signal.
  int signal_for(std::size_t i, const JobView& job, double now, const YieldOptions& y);

  const std::map<std::string, StudyState>& studies() const { return studies_; }
  // The level changes of the last update(), in the order they happened.
  const std::vector<LevelChange>& changes() const { return changes_; }
  // The studies as JSON (an object by "uid:key"); restore() takes the same
  // and throws std::runtime_error naming what is wrong. Each study's
  // estimator state is the options' estimator's (YieldEstimator::save).
  nlohmann::json save(const AdaptiveOptions& o) const;
  void restore(const nlohmann::json& studies, const AdaptiveOptions& o);

  static std::string study_id(std::uint32_t uid, const std::string& key) {
    return std::to_string(uid) + ":" + key;
  }
  static constexpr std::size_t kMaxStudiesPerUser = 64;
  static constexpr double kForgetStudyAfter = 7 * 86400;

 private:
  std::map<std::string, StudyState> studies_;  // "uid:key"
  std::vector<Membership> of_;
  std::vector<LevelChange> changes_;
  std::unordered_map<std::string, double> oldest_wait_;  // tenant -> longest wait of its waiting jobs
};

}  // namespace tune
