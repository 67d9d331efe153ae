// SPDX-License-Identifier: GPL-2.0-or-later
// Runs one trial as a child process and watches it: the runner's mechanism
// (the policy that judges the result lives in lib/study/outcome).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "study/outcome.hpp"
#include "trial_output/report_parser.hpp"

namespace tune {

struct TrialLaunch {
  std::uint64_t trial = 0;
  std::vector<std::string> argv;  // the program with {name} placeholders already filled in
  std::vector<std::pair<std::string, std::string>> env;  // added to the runner's environment
  std::string trial_dir;                                 // gets params.json, stdout, stderr
  std::string params_json;                               // contents of params.json
  double time_limit = 0;                                 // seconds; 0 = none
  double grace = 10;                                     // seconds between SIGTERM and SIGKILL
  std::string metric_regex;                              // read the objective from stdout when set
  // Reports go to TUNE_REPORT_FILE (trial_dir/reports, read as it grows)
  // instead of a descriptor: for a program that srun starts on other nodes.
  bool reports_in_file = false;
  // Kept across attempts of the trial (TUNE_CHECKPOINT_DIR); created if
  // missing. An attempt that finds it non-empty is told TUNE_CHECKPOINT_RESTORED=1.
  std::string checkpoint_dir;
  // Another trial's checkpoint directory this trial starts from (a sampler's
  // Lineage::from): copied into checkpoint_dir when that is missing or
  // empty, through a temporary directory renamed into place, so an attempt
  // that finds checkpoint_dir non-empty (the copy, or what it wrote since)
  // copies nothing again. The program is told TUNE_CHECKPOINT_FROM=trial.
  std::string checkpoint_from;
  std::optional<std::uint64_t> from_trial;
};

class TrialProcess {
 public:
  // Called as reports arrive.
  using ReportSink = std::function<void(const Report&)>;
  // Called about every 20 ms while the trial runs; returning true ends the
  // trial as interrupted (the study is stopping).
  using Poll = std::function<bool()>;

  // Runs the trial to its end. Never throws for anything the program does.
  static TrialRun run(const TrialLaunch& launch, const ReportSink& on_report, const Poll& poll);
};

}  // namespace tune
