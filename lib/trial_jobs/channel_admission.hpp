// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Who the trial-jobs channel (job_runner/channel) lets in, and how it logs
// those it does not. A connection waits for its hello (the secret) for up to
// 10 s; without limits per peer address, one host (a broken node, a port
// scanner) could hold every waiting slot and keep the other hosts' trial
// jobs out until its connections timed out, and fill the AppCore's output
// with a line per refusal. So:
//   - at most `waiting` connections wait for their hello in all, and at
//     most `waiting_per_peer` of them from one address (half of them: a
//     node whose trial jobs all start at once still gets in, and retries
//     when it does not);
//   - at most `open_per_peer` connections from one address at all (trial
//     jobs that said hello included: a node runs at most one per trial it
//     holds);
//   - refusals are logged at most `burst` per `window` seconds; the rest
//     are counted, and the count is logged when the window is over.
// No sockets here: the channel feeds it addresses and times.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tune {

struct AdmissionLimits {
  std::size_t waiting = 64;
  std::size_t waiting_per_peer = 32;  // half: the other hosts always have the rest
  std::size_t open_per_peer = 512;
};

class ChannelAdmission {
 public:
  explicit ChannelAdmission(AdmissionLimits limits = {}) : limits_(limits) {}
  // Why a new connection from `address` is refused, or nullopt when it is
  // admitted (it then counts as waiting for its hello).
  std::optional<std::string> admit(const std::string& address);
  // An admitted connection from `address` said hello with the secret.
  void authenticated(const std::string& address);
  // An admitted connection from `address` ended (`authenticated`: after
  // its hello).
  void closed(const std::string& address, bool authenticated);

  std::size_t waiting() const { return waiting_; }
  std::size_t waiting_from(const std::string& address) const;
  std::size_t open_from(const std::string& address) const;

 private:
  struct Peer {
    std::size_t waiting = 0;
    std::size_t open = 0;  // waiting ones included
  };
  AdmissionLimits limits_;
  std::map<std::string, Peer> peers_;
  std::size_t waiting_ = 0;
};

class RefusalLog {
 public:
  using Log = std::function<void(const std::string&)>;
  RefusalLog(Log log, std::size_t burst = 5, double window = 10)
      : log_(std::move(log)), burst_(burst), window_(window) {}
  // A refusal at `now` (seconds on a monotonic clock): logged, or counted
  // when `burst` were logged in the window under way.
  void refused(const std::string& line, double now);
  // Logs the count of unlogged refusals once their window is over; the
  // channel calls it whenever it is polled.
  void flush(double now);
  std::size_t unlogged() const { return unlogged_; }

 private:
  void open_window(double now);
  Log log_;
  std::size_t burst_;
  double window_;
  std::optional<double> window_start_;
  std::size_t logged_ = 0;    // in the window under way
  std::size_t unlogged_ = 0;  // in the window under way
};

}  // namespace tune
