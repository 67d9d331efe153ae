// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Who the trial-jobs channel (job_runner/channel) lets in, and how it logs
// those it does not. A connection is a stranger until its first frame is a
// hello made with the study's secret (trial_jobs/channel_proof); strangers
// wait in a bounded room for at most a few seconds. Anyone who can reach
// the port can fill that room, so a newcomer is never refused for want of
// room: it takes the place of the oldest stranger of the address that holds
// the most places (its own oldest when its address is at its share). A
// trial job's hello follows its connect within milliseconds, so it is let in
// however many silent connections other hosts keep opening, and one host
// cannot keep the others out:
//   - at most `waiting` strangers in all, `waiting_per_peer` from one address;
//   - at most `open_per_peer` connections from one address at all (trial
//     jobs that proved themselves included: a node runs one per trial it holds);
//   - refusals are logged at most `burst` per `window` seconds; the rest
//     are counted, and the count is logged when the window is over.
// No sockets here: the channel feeds it connections, addresses and times.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tune {

struct AdmissionLimits {
  std::size_t waiting = 64;
  std::size_t waiting_per_peer = 16;
  std::size_t open_per_peer = 512;
};

class ChannelAdmission {
 public:
  using Conn = std::uint64_t;
  struct Verdict {
    std::optional<std::string> refused;  // why `c` is not let in
    std::optional<Conn> evict;           // the stranger whose place it takes
  };
  explicit ChannelAdmission(AdmissionLimits limits = {}) : limits_(limits) {}
  // A new connection `c` from `address` at `now` (seconds, monotonic): let
  // in as a stranger, perhaps in another's place, or refused.
  Verdict admit(Conn c, const std::string& address, double now);
  // `c`'s first frame was a hello of this study: it leaves the waiting room.
  void vouched(Conn c);
  // `c` ended (whatever its stage); unknown connections are ignored.
  void closed(Conn c);
  // The stranger to let go first when room is needed (the AppCore has no
  // file descriptor left): the oldest of the address with the most.
  std::optional<Conn> next_to_evict() const;

  std::size_t waiting() const { return strangers_.size(); }
  std::size_t waiting_from(const std::string& address) const;
  std::size_t open_from(const std::string& address) const;

 private:
  struct Stranger {
    std::string address;
    double since = 0;
  };
  struct Peer {
    std::size_t waiting = 0;
    std::size_t open = 0;  // waiting ones included
  };
  std::optional<Conn> oldest_from(const std::string& address) const;
  AdmissionLimits limits_;
  std::map<Conn, Stranger> strangers_;
  std::map<Conn, std::string> open_;  // every admitted connection's address
  std::map<std::string, Peer> peers_;
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
