// SPDX-License-Identifier: GPL-2.0-or-later
#include "slurm_reach.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "slurm_compat.hpp"

namespace tune {
namespace {

constexpr int kNoController = 4;  // a configuration, but no slurmctld answered

std::string with_fix(const std::string& what) {
  return "no Slurm cluster is reachable: " + what +
         "\n  On a cluster's login node, set SLURM_CONF to its slurm.conf (ask your admins where it is); "
         "on this machine, start the local test cluster and use it: scripts/cluster start && source "
         ".run/cluster/env";
}

// The last line libslurm printed ("fatal: Could not establish a configuration source").
std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

std::optional<std::string> slurm_unreachable(bool ask_controller) {
  if (const char* conf = std::getenv("SLURM_CONF"); conf && *conf) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(conf, ec))
      return with_fix(std::string("SLURM_CONF names ") + conf + ", which is not a file");
  }
  int err[2];
  if (pipe(err) != 0) return std::nullopt;  // cannot ask: let the real call say what is wrong
  const pid_t pid = fork();
  if (pid < 0) {
    close(err[0]);
    close(err[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    dup2(err[1], 2);
    close(err[0]);
    close(err[1]);
    slurm_init(nullptr);  // fatal() here: exit 1
    slurm_conf_t* conf = nullptr;
    if (ask_controller && slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) {
      const std::string why = slurm_compat::last_error();
      if (write(2, why.data(), why.size()) < 0) _exit(kNoController);
      _exit(kNoController);
    }
    _exit(0);
  }
  close(err[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoController)
    return "no Slurm cluster is reachable: slurmctld did not answer (" + last_line(text) +
           ")\n  Is it running? On this machine: scripts/cluster status, and scripts/cluster start if it is "
           "not";
  std::string why = last_line(text);
  if (why.rfind("tune: ", 0) == 0) why.erase(0, 6);
  return with_fix(why.empty() ? "libslurm found no configuration" : "libslurm says \"" + why + "\"");
}

}  // namespace tune
