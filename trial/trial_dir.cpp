// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/trial_dir.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "history/place_modes.hpp"

namespace tune::trial_files {

std::string dir_of(const std::string& root, std::uint64_t trial) {
  return root + "/" + std::to_string(trial);
}

int save_result(const std::string& dir, const TrialRun& run) {
  // Never a torn result for an AppCore to collect, nor one through a planted link.
  const std::string text =
      wire::result_message(run).body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return write_whole(in(dir, kResult), text);
}

std::optional<wire::Message> saved_result(const std::string& dir) {
  std::ifstream in_file(in(dir, kResult));
  if (!in_file) return std::nullopt;
  nlohmann::json body = nlohmann::json::parse(in_file, nullptr, false);
  if (body.is_object() && !body.contains("result")) body = {{"result", body}};
  return wire::Message{wire::Kind::Result, std::move(body)};
}

void save_job(const std::string& dir, std::uint32_t job) {
  (void)write_whole(in(dir, kJob), std::to_string(job) + "\n");  // a hint for a resumed AppCore, no more
}

std::uint32_t saved_job(const std::string& dir) {
  std::ifstream in_file(in(dir, kJob));
  std::uint32_t job = 0;
  return in_file >> job ? job : 0;
}

}  // namespace tune::trial_files
