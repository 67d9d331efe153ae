// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel: trial jobs reach their AppCore over TCP on the
// cluster network. A frame is a 4-byte big-endian length and a JSON object of
// at most kMaxFrame bytes. A connection's first frame must be
// {"type":"hello","secret":S,...} within kHelloSeconds, S being the secret
// in the channel file that only the study's owner can read; a wrong secret,
// a malformed or oversized frame, or a silent peer is logged and the
// connection closed, and the AppCore goes on. Connections waiting for their
// hello are bounded in all and per peer address, and refusals are logged at
// a bounded rate (trial_jobs/channel_admission): one bad host can neither keep
// the others' trial jobs out nor fill the AppCore's output. Built on standalone Asio,
// single-threaded: the AppCore's loop polls it between its other duties.
// The secret authenticates; it does not encrypt (the frames are plain JSON).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "trial_jobs/channel_admission.hpp"

namespace asio {
class io_context;
}

namespace tune {

constexpr std::size_t kMaxFrame = 1 << 20;
constexpr double kHelloSeconds = 10;

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
// Throws ChannelError naming the file and the fix.
ChannelAddress read_channel_file(const std::string& path);
// This host's IPv4 addresses, loopback last.
std::vector<std::string> local_ipv4_addresses();
// 32 random bytes from the kernel, as hex.
std::string random_secret();

class FramedConnection;

class ChannelServer {
 public:
  using ConnId = std::uint64_t;
  struct Event {
    enum Kind { Hello, Message, Closed } kind;
    ConnId conn;
    nlohmann::json body;  // the hello (without its secret) or the message
    std::string peer;     // address:port
  };
  using Log = std::function<void(const std::string&)>;

  // `limits`: how many connections may wait for their hello, in all and per
  // peer address, and be open per peer address (trial_jobs/channel_admission).
  ChannelServer(std::string secret, Log log, AdmissionLimits limits = {});
  ~ChannelServer();
  // Listens on all addresses, on `port` (0: any free one); returns the port.
  int listen(int port = 0);
  // Waits up to `max_wait` seconds for something to happen; returns what did.
  std::vector<Event> poll(double max_wait);
  // Queues a message (never blocks); false if the connection is gone.
  bool send(ConnId conn, const nlohmann::json& body);
  void close(ConnId conn);
  std::size_t connections() const { return conns_.size(); }
  std::size_t refused() const { return refused_; }

 private:
  void accept_next();
  void on_frame(ConnId id, std::string frame);
  void on_error(ConnId id, const std::string& why);
  void drop(ConnId id, const std::string& why, bool log);
  static double now();

  std::unique_ptr<asio::io_context> io_;
  struct Acceptor;
  std::unique_ptr<Acceptor> acceptor_;
  std::string secret_;
  Log log_;
  ChannelAdmission admission_;
  RefusalLog refusals_;  // refusals at a bounded rate: one host cannot fill the AppCore's output
  std::map<ConnId, std::shared_ptr<FramedConnection>> conns_;
  std::map<ConnId, bool> authenticated_;
  std::vector<Event> events_;
  ConnId next_id_ = 1;
  std::size_t refused_ = 0;
};

class ChannelClient {
 public:
  ChannelClient();
  ~ChannelClient();
  // Connects and says hello ({"type":"hello","secret":...} plus `hello`);
  // throws ChannelError.
  void connect(const ChannelAddress& a, nlohmann::json hello, double timeout = 10);
  void send(const nlohmann::json& body);
  // A message from the AppCore if one arrives within `max_wait` seconds;
  // throws ChannelError once the connection is closed.
  std::optional<nlohmann::json> poll(double max_wait);
  bool connected() const;
  void close();

 private:
  std::unique_ptr<asio::io_context> io_;
  std::shared_ptr<FramedConnection> conn_;
  std::vector<nlohmann::json> inbox_;
  std::optional<std::string> error_;
};

}  // namespace tune
