// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_runner/channel_file.hpp"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ip/address.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "history/place_modes.hpp"
#include "trial_jobs/channel_proof.hpp"

namespace tune {

using nlohmann::json;

void write_channel_file(const std::string& path, const ChannelAddress& a) {
  const json j = {{"host", a.host}, {"addresses", a.addresses}, {"port", a.port}, {"secret", a.secret},
                  {"job", a.job},   {"jobs", a.jobs_file}};
  // Mode 0600 whatever the directory lends: the secret is the owner's alone.
  if (const int e = write_whole(path, j.dump() + "\n", 0600))
    throw ChannelError("cannot write the channel file " + path + ": " + std::strerror(e));
}

ChannelAddress read_channel_file(const std::string& path) {
  // Opened without following a link, then judged by what was opened: a
  // file swapped in between a check and the read cannot slip through.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP)
      throw ChannelError("the channel file " + path +
                         " is a symbolic link, which tune does not follow (another user may have put it "
                         "there); remove it and resume the study's AppCore, which writes it anew");
    throw ChannelError(
        "cannot read the channel file " + path + " (" + std::strerror(e) +
        "); it is written by the study's AppCore beside its history, readable by the study's owner only");
  }
  struct stat st {};
  std::string problem;
  if (::fstat(fd, &st) != 0)
    problem = std::string("cannot be examined: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    problem = "is not a regular file";
  else if (st.st_uid != ::geteuid())
    problem = "belongs to uid " + std::to_string(st.st_uid) + ", not to this job's user (uid " +
              std::to_string(::geteuid()) + ")";
  else if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    problem = std::string("is open to other users (mode ") + mode + "; the AppCore writes it 0600)";
  }
  if (!problem.empty()) {
    ::close(fd);
    throw ChannelError("the channel file " + path + " " + problem +
                       ", so it is not believed (another user may have put it there); remove it and resume "
                       "the study's AppCore, which writes it anew with mode 0600");
  }
  std::string text;
  char buf[4096];
  for (ssize_t n; text.size() < kMaxChannelText && (n = ::read(fd, buf, sizeof buf)) > 0;)
    text.append(buf, n);
  ::close(fd);
  const json j = json::parse(text, nullptr, false);
  ChannelAddress a;
  try {
    if (!j.is_object()) throw std::invalid_argument("not a JSON object");
    a.host = j.at("host").get<std::string>();
    a.addresses = j.value("addresses", std::vector<std::string>{});
    a.port = j.at("port").get<int>();
    a.secret = j.at("secret").get<std::string>();
    a.job = j.value("job", std::uint32_t{0});
    a.jobs_file = j.value("jobs", std::string());
  } catch (const std::exception& e) {
    throw ChannelError("the channel file " + path + " is damaged (" + e.what() +
                       "); resume the study's AppCore, which writes it anew");
  }
  if (a.port <= 0 || a.port > 65535 || a.secret.size() < 32)
    throw ChannelError("the channel file " + path +
                       " holds no usable port and secret; resume the study's AppCore");
  return a;
}

std::vector<std::string> local_ipv4_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    const auto ip = asio::ip::address_v4(ntohl(in->sin_addr.s_addr));
    if (!ip.is_loopback()) out.push_back(ip.to_string());
  }
  ::freeifaddrs(list);
  return out;
}

std::vector<std::string> channel_endpoints(const ChannelAddress& a, const std::string& here) {
  const bool same_host = !here.empty() && here == a.host;
  std::vector<std::string> out;
  asio::error_code ec;
  for (const auto& addr : a.addresses) {
    const auto ip = asio::ip::make_address(addr, ec);
    if (ec || (ip.is_loopback() && !same_host)) continue;  // an older AppCore listed 127.0.0.1 too
    if (std::find(out.begin(), out.end(), addr) == out.end()) out.push_back(addr);
  }
  if (same_host && std::find(out.begin(), out.end(), "127.0.0.1") == out.end()) out.push_back("127.0.0.1");
  return out;
}

std::string random_secret() {
  try {
    return random_hex(32);
  } catch (const ChannelProofError& e) {
    throw ChannelError(std::string(e.what()) + ", so the study has no secret for its channel");
  }
}

}  // namespace tune
