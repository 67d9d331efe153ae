// SPDX-License-Identifier: GPL-2.0-or-later
// A trial's directory, the same in both modes: STUDY.trials/ID/ with the
// files below. The AppCore names it (TrialLaunch::trial_dir); the trial
// process writes the program's files; a trial job adds the last two, so a
// result survives an AppCore that is not listening. Every name is here
// and nowhere else.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trial/messages.hpp"
#include "trial/trial_process.hpp"

namespace tune::trial_files {

inline constexpr const char* kParams = "params.json";  // the trial's parameters (TUNE_PARAMS_FILE)
inline constexpr const char* kStdout = "stdout";       // the program's output, from its first byte
inline constexpr const char* kStderr = "stderr";
inline constexpr const char* kReports = "reports";        // reports appended by srun's tasks on other nodes
inline constexpr const char* kCheckpoint = "checkpoint";  // TUNE_CHECKPOINT_DIR
inline constexpr const char* kResult = "result.json";     // trial jobs: the result, until the AppCore has it
inline constexpr const char* kJob = "job";                // trial jobs: the Slurm job that ran it

// ROOT/ID, and a file in a trial's directory.
std::string dir_of(const std::string& root, std::uint64_t trial);
inline std::string in(const std::string& dir, const char* file) {
  return dir + "/" + file;
}

// The result a trial job keeps beside the trial's output (the Result
// message's body, written whole or not at all), and the one it kept,
// as that Result message for wire::deliver; nothing when there is none.
// An older tune's file held the bare run: read as the same message.
// Written whole or not at all (a temporary file renamed); the errno when the
// storage refused it (the result still goes to the AppCore), else 0.
int save_result(const std::string& dir, const TrialRun& run);
std::optional<wire::Message> saved_result(const std::string& dir);

// The Slurm job a trial job wrote into the trial's directory (0: none).
void save_job(const std::string& dir, std::uint32_t job);
std::uint32_t saved_job(const std::string& dir);

}  // namespace tune::trial_files
