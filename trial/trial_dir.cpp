// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/trial_dir.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>

namespace tune::trial_files {

std::string dir_of(const std::string& root, std::uint64_t trial) {
  return root + "/" + std::to_string(trial);
}

int save_result(const std::string& dir, const TrialRun& run) {
  const std::string path = in(dir, kResult), tmp = path + ".tmp";
  errno = 0;
  bool written;
  {
    std::ofstream out(tmp);
    out << wire::result_message(run).body.dump() << "\n";
    out.flush();
    written = static_cast<bool>(out);
  }
  const int error = errno ? errno : EIO;
  std::error_code ec;
  if (written) std::filesystem::rename(tmp, path, ec);
  if (written && !ec) return 0;
  std::filesystem::remove(tmp, ec);  // never a torn result for an AppCore to collect
  return written ? EIO : error;
}

std::optional<wire::Message> saved_result(const std::string& dir) {
  std::ifstream in_file(in(dir, kResult));
  if (!in_file) return std::nullopt;
  nlohmann::json body = nlohmann::json::parse(in_file, nullptr, false);
  if (body.is_object() && !body.contains("result")) body = {{"result", body}};
  return wire::Message{wire::Kind::Result, std::move(body)};
}

void save_job(const std::string& dir, std::uint32_t job) {
  std::ofstream(in(dir, kJob)) << job << "\n";
}

std::uint32_t saved_job(const std::string& dir) {
  std::ifstream in_file(in(dir, kJob));
  std::uint32_t job = 0;
  return in_file >> job ? job : 0;
}

}  // namespace tune::trial_files
