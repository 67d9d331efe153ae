// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// HISTORY.channel: where a study's AppCore listens and the secret of its
// channel (job_runner/channel), written by the AppCore, mode 0600, and read
// by its trial jobs, which believe it only when it is theirs alone.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tune {

// The largest channel file (and frame) read.
constexpr std::size_t kMaxChannelText = 1 << 20;

struct ChannelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the AppCore listens, and the secret: the channel file beside the history.
struct ChannelAddress {
  std::string host;                    // the AppCore's host name
  std::vector<std::string> addresses;  // and its IPv4 addresses, tried after the name
  int port = 0;
  std::string secret;
  // The AppCore's Slurm job (0: it runs outside one) and its jobs file: a
  // trial job that cannot reach the AppCore asks Slurm whether that job has
  // ended for good, and then cancels the pending trial jobs the file lists.
  std::uint32_t job = 0;
  std::string jobs_file;
};
// Written atomically with mode 0600 (the owner alone may read the secret).
void write_channel_file(const std::string& path, const ChannelAddress& a);
// Believed only when it is a regular file (not a symbolic link) of this
// user's that nobody else may read or write; else, or when it is damaged,
// throws ChannelError naming the file and the fix.
ChannelAddress read_channel_file(const std::string& path);
// This host's IPv4 addresses, loopback left out: a trial job on the
// AppCore's own host adds 127.0.0.1 itself (channel_endpoints).
std::vector<std::string> local_ipv4_addresses();
// Where a trial job on host `here` tries to reach the AppCore: the AppCore's
// name and addresses, and 127.0.0.1 only when `here` is the AppCore's host
// (anyone may listen on another node's loopback).
std::vector<std::string> channel_endpoints(const ChannelAddress& a, const std::string& here);
// 32 random bytes (OpenSSL's generator, seeded by the kernel), as hex.
std::string random_secret();

}  // namespace tune
