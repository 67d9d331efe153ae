// SPDX-License-Identifier: GPL-2.0-or-later
// The trial-jobs channel: trial jobs reach their AppCore over TCP on the
// cluster network. A frame is a 4-byte big-endian length and a JSON object
// (kMaxFrame bytes at most, kStrangerFrame before a peer has proved itself).
// Both ends prove they hold the study's secret (the channel file, mode 0600,
// the owner's alone) without sending it, and every frame after that is
// sealed (trial_jobs/channel_handshake, channel_proof): a peer that cannot
// prove itself, sends a frame of the wrong shape, or stays silent past its
// deadline is logged at a bounded rate and closed, and the AppCore goes on;
// a trial job runs nothing from a server that has not proved itself.
// Strangers wait in a bounded room where a newcomer takes the place of the
// oldest of the busiest address (trial_jobs/channel_admission): nobody can
// keep a study's trial jobs out by holding connections. Built on standalone
// Asio, single-threaded: the AppCore's loop polls it between its other duties.
// The frames are authenticated, not encrypted.
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

#include "job_runner/channel_file.hpp"
#include "trial_jobs/channel_admission.hpp"
#include "trial_jobs/channel_proof.hpp"

namespace asio {
class io_context;
}

namespace tune {

constexpr std::size_t kMaxFrame = kMaxChannelText;
constexpr std::size_t kStrangerFrame = 4096;  // a hello, a challenge: short
constexpr double kHelloSeconds = 5;           // from connect to the first frame (a trial job: milliseconds)
constexpr double kProofSeconds = 10;          // from the hello to its proof

class FramedConnection;
class TrialJobEnd;

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

  void accept_later();

  std::unique_ptr<asio::io_context> io_;
  struct Acceptor;
  std::unique_ptr<Acceptor> acceptor_;
  ChannelKey key_;
  NonceLog nonces_;
  Log log_;
  ChannelAdmission admission_;
  RefusalLog refusals_;  // refusals at a bounded rate: one host cannot fill the AppCore's output
  struct Link;
  std::map<ConnId, std::unique_ptr<Link>> conns_;
  std::vector<Event> events_;
  ConnId next_id_ = 1;
  std::size_t refused_ = 0;
};

class ChannelClient {
 public:
  ChannelClient();
  ~ChannelClient();
  // Connects, and once the AppCore has proved itself says `hello` (its
  // "job" also in the first frame); throws ChannelError, naming any server
  // that answered without proving itself.
  void connect(const ChannelAddress& a, nlohmann::json hello, double timeout = 10);
  void send(const nlohmann::json& body);
  // A message from the AppCore if one arrives within `max_wait` seconds;
  // throws ChannelError once the connection is closed.
  std::optional<nlohmann::json> poll(double max_wait);
  bool connected() const;
  void close();

 private:
  void on_frame(const std::string& frame);

  std::unique_ptr<asio::io_context> io_;
  std::shared_ptr<FramedConnection> conn_;
  std::optional<ChannelKey> key_;
  std::unique_ptr<TrialJobEnd> end_;
  bool welcomed_ = false;
  std::vector<nlohmann::json> inbox_;
  std::optional<std::string> error_;
};

}  // namespace tune
