// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Both ends of one trial-jobs connection, from the first frame to the last,
// without sockets (job_runner/channel moves the bytes): the handshake of
// trial_jobs/channel_proof, then sealed frames. Each end takes a frame's
// bytes and says what to send and whether to close; neither throws, whatever
// the other end sends (tests/fuzz/channel_fuzz drives the AppCore's end).
//   1. trial job: {"type":"hello","version":2,"job":J,"nonce":Nc,"tag":...}
//   2. AppCore:   {"type":"challenge","nonce":Ns,"tag":...}
//   3. trial job, sealed: its hello proper ({"type":"hello","host":...})
//   4. AppCore, sealed: {"type":"welcome"}; then messages both ways, sealed.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "trial_jobs/channel_proof.hpp"

namespace tune {

inline constexpr int kChannelVersion = 2;

// What one frame from the other end comes to.
struct ChannelStep {
  std::vector<std::string> send;          // frames to send back, in order
  std::optional<std::string> refused;     // close the connection, for this reason
  std::optional<nlohmann::json> hello;    // AppCore: the trial job proved itself; what it said of itself
  std::optional<nlohmann::json> message;  // a message of the open channel (its "type" a string)
  bool vouched = false;                   // AppCore: this frame was a hello with a valid tag
  bool welcomed = false;                  // trial job: the AppCore proved itself and let it in
};

class AppCoreEnd {
 public:
  enum class Stage { Hello, Proof, Open, Closed };
  AppCoreEnd(const ChannelKey& key, NonceLog& seen) : key_(key), seen_(seen) {}
  ChannelStep on_frame(const std::string& frame) noexcept;
  // A frame for the open channel; nothing before it is open.
  std::optional<std::string> seal(const nlohmann::json& message);
  Stage stage() const { return stage_; }
  // The job the hello named (once vouched for).
  std::uint32_t job() const { return job_; }

 private:
  ChannelStep hello(const std::string& frame);
  ChannelStep proof(const std::string& frame);
  ChannelStep open(const std::string& frame);
  ChannelStep refuse(std::string why);
  const ChannelKey& key_;
  NonceLog& seen_;
  Stage stage_ = Stage::Hello;
  std::string client_nonce_;
  std::uint32_t job_ = 0;
  std::optional<SealedFrames> sealed_;
};

class TrialJobEnd {
 public:
  enum class Stage { Challenge, Welcome, Open, Closed };
  // `hello`: what the trial job says of itself once the AppCore has proved
  // itself (its "job" is also in the first frame).
  TrialJobEnd(const ChannelKey& key, nlohmann::json hello);
  // The first frame.
  std::string first_frame() const;
  ChannelStep on_frame(const std::string& frame) noexcept;
  std::optional<std::string> seal(const nlohmann::json& message);
  Stage stage() const { return stage_; }

 private:
  ChannelStep refuse(std::string why);
  const ChannelKey& key_;
  nlohmann::json hello_;
  std::uint32_t job_ = 0;
  std::string nonce_ = random_hex();
  Stage stage_ = Stage::Challenge;
  std::optional<SealedFrames> sealed_;
};

}  // namespace tune
