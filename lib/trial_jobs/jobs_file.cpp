// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/jobs_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "history/place_modes.hpp"
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
  // Others may read it (tune status), never write it: a trial job acts on it.
  return write_whole(path, out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n", 0644) == 0;
}

std::optional<JobsFile> read_jobs_file(const std::string& path, JobsFileUse use, std::string* refused) {
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (use == JobsFileUse::Act ? O_NOFOLLOW : 0));
  if (fd < 0) {
    if (errno == ELOOP && refused) *refused = "the jobs file " + path + " is a symbolic link: not acted on";
    return std::nullopt;
  }
  struct stat st {};
  const bool examined = ::fstat(fd, &st) == 0;
  if (use == JobsFileUse::Act &&
      (!examined || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022))) {
    ::close(fd);
    if (refused)
      *refused = "the jobs file " + path +
                 " is not this user's alone (another user owns it or may write it): not acted on; remove it "
                 "and resume the study's AppCore, which writes it anew";
    return std::nullopt;
  }
  std::string content;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && content.size() < (64u << 20);)
    content.append(buf, n);
  ::close(fd);
  const json j = json::parse(content, nullptr, false);
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
