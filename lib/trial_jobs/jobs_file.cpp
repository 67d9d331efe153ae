// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/jobs_file.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {

namespace fs = std::filesystem;
using nlohmann::json;

std::string jobs_file_of(const std::string& history) {
  return fs::path(history).replace_extension(".jobs").string();
}

std::string channel_file_of(const std::string& history) {
  return fs::path(history).replace_extension(".channel").string();
}

JobsFile jobs_file_from(const std::map<std::uint32_t, LiveJob>& jobs, const std::string& held, double now) {
  JobsFile f;
  f.updated = now;
  f.held = held;
  for (const auto& [id, j] : jobs)
    f.jobs.push_back({id, j.state == TrialJobInfo::State::Pending, j.node, j.reason, j.trial});
  return f;
}

bool write_jobs_file(const std::string& path, const JobsFile& file) {
  json list = json::array();
  for (const auto& j : file.jobs) {
    json e = {
        {"id", j.id}, {"state", j.pending ? "PENDING" : "RUNNING"}, {"node", j.node}, {"reason", j.reason}};
    if (j.trial) e["trial"] = *j.trial;
    list.push_back(e);
  }
  json out = {{"updated", file.updated}, {"jobs", list}};
  if (!file.held.empty()) out["held"] = file.held;
  const std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp);
    o << out.dump() << "\n";
    if (!o.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

std::optional<JobsFile> read_jobs_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  const json j = json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("jobs") || !j["jobs"].is_array()) return std::nullopt;
  JobsFile f;
  if (j.contains("updated") && j["updated"].is_number()) f.updated = j["updated"].get<double>();
  if (j.contains("held") && j["held"].is_string()) f.held = j["held"].get<std::string>();
  auto text = [](const json& e, const char* key) {
    return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
  };
  for (const auto& e : j["jobs"]) {
    if (!e.is_object() || !e.contains("id") || !e["id"].is_number_unsigned()) continue;
    JobsFileEntry entry;
    entry.id = e["id"].get<std::uint32_t>();
    entry.pending = text(e, "state") == "PENDING";
    entry.node = text(e, "node");
    entry.reason = text(e, "reason");
    if (e.contains("trial") && e["trial"].is_number_unsigned()) entry.trial = e["trial"].get<std::uint64_t>();
    f.jobs.push_back(std::move(entry));
  }
  return f;
}

}  // namespace tune
