// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// sched_tune.conf: the settings of sched/tune (libconfig format). Every
// setting has a default; an unknown name, a wrong type or a value out of
// range is an error naming the file, the line and the fix.
#include <stdexcept>
#include <string>

#include "estimators/yield_level.hpp"
#include "fairshare/fair_share.hpp"
#include "priority/study_tracker.hpp"

namespace tune {

struct PriorityWeights {
  double fairshare = 100000;   // points for a tenant with no usage
  double age = 10000;          // points for a job that has waited max_age
  double max_age = 7 * 86400;  // seconds; age points grow linearly until then
};

// What a yield level does to a job under priority/multifactor
// (site_factor/tune's `lowering`).
enum class SiteLowering {
  // The job goes below every waiting job of no yielding study, whatever
  // multifactor's weights: priority max_level + 1 - level, or one below the
  // lowest such job's when that is lower (site_factor_policy.hpp).
  Band,
  // priority x yield_factor^level: a share of the job's own priority, which
  // fair share can outweigh.
  Fraction,
};

struct PolicyConfig {
  double interval = 30;    // seconds between passes
  std::string state_file;  // empty: StateSaveLocation/sched_tune.state
  FairShareOptions fairshare;
  PriorityWeights weights;
  bool adaptive_enabled = true;
  AdaptiveOptions adaptive;
  YieldOptions yield;
  SiteLowering lowering = SiteLowering::Band;  // site_factor/tune only
};

struct ConfigError : std::runtime_error {
  ConfigError(const std::string& file, int line, const std::string& reason)
      : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + reason),
        file(file),
        line(line),
        reason(reason) {}
  std::string file;
  int line;
  std::string reason;
};

// What the file may hold as the plugin that reads it says (its entry in
// priority_policies()): site_factor/tune reads the same format but refuses
// the fairshare group (priority/multifactor computes that term).
struct ConfigRules {
  bool fairshare = true;
  bool lowering = false;                         // the `lowering` setting (site_factor/tune's)
  std::string named_by = "SchedulerParameters";  // the slurm.conf parameter that may name the file
};

// Reads and checks the file. Throws ConfigError.
PolicyConfig load_policy_config(const std::string& path, const ConfigRules& rules = {});
// The same from text (tests, fuzzing); `name` stands for the file in messages.
PolicyConfig parse_policy_config(const std::string& text, const std::string& name,
                                 const ConfigRules& rules = {});

// "USR1", "SIGUSR1" or a number -> signal number; -1 if unknown.
int signal_number(const std::string& name);

}  // namespace tune
