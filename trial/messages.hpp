// SPDX-License-Identifier: GPL-2.0-or-later
// What the AppCore and a runner say to each other, in both modes: one
// vocabulary (Kind), one body per kind (the *_message builders), and one
// decoding of each side's messages (deliver, into an AppCoreInbox or a
// RunnerInbox). Over MPI a message's kind is its tag (kind + 1); over the
// trial-jobs channel it is the frame's "type" field (kind_name). A new
// message is a Kind, its name, its builder and its inbox entry, all here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "trial/trial_process.hpp"

namespace tune::wire {

enum class Kind : int {
  Ready = 0,      // runner -> AppCore: idle, give me work (late binding); its hello
  Launch = 1,     // AppCore -> runner: run this trial
  Stop = 2,       // AppCore -> runner: no more work, leave
  Report = 3,     // runner -> AppCore: an intermediate report of the running trial
  Result = 4,     // runner -> AppCore: the trial ended (over MPI also asks for the next one)
  Interrupt = 5,  // AppCore -> runner: end the running trial, the study is stopping
  Prune = 6,      // AppCore -> runner: end the running trial, the pruner stopped it
  Bye = 7,        // runner -> AppCore: leaving (a trial job that ran its trials)
};
inline constexpr int kKinds = 8;

// "ready", "launch", ...: the channel's "type".
std::string_view kind_name(Kind k);
// The kind a name or an MPI tag stands for; nothing for an unknown one.
std::optional<Kind> kind_of(std::string_view name);
std::optional<Kind> kind_of_tag(int tag);
inline int tag_of(Kind k) {
  return static_cast<int>(k) + 1;
}

struct Message {
  Kind kind;
  nlohmann::json body;
};

// Each kind's message, the same over both transports. `hello` is what a
// runner says of itself (host, gpus; "stopping" once it heard a stop signal);
// a trial job says it when it connects, so its Ready is empty.
Message ready_message(const nlohmann::json& hello = nlohmann::json::object());
Message launch_message(const TrialLaunch& launch);
Message stop_message();
Message report_message(std::uint64_t trial, const Report& report);
// A trial's end; with `next`, also the runner's Ready for its next trial (MPI:
// one message, answered at once).
Message result_message(const TrialRun& run, const std::optional<nlohmann::json>& next = std::nullopt);
// Interrupt without a trial: whatever trial the runner is running.
Message interrupt_message(std::optional<std::uint64_t> trial = std::nullopt);
Message prune_message(std::uint64_t trial);
Message bye_message();

// A trial job that reconnects with a result it could not deliver says it in
// its hello, as a Result message's body (so `hello` is that body plus who
// it is): the Result message, or nothing when the hello has none. With the
// Result message live and the trial directory's saved one
// (trial_files::saved_result), the three ways a result arrives, each
// decoded by `deliver`.
std::optional<Message> result_in_hello(const nlohmann::json& hello);

// A message as a channel frame (its kind in "type"), and back; nothing for a
// frame of no known kind.
nlohmann::json to_frame(const Message& m);
std::optional<Message> from_frame(nlohmann::json frame);

// What the AppCore does with each message a runner sends. `deliver` checks
// and decodes the message once, for both transports, and calls one of these;
// a malformed body goes to `malformed`, naming the kind and what is wrong.
class AppCoreInbox {
 public:
  virtual ~AppCoreInbox() = default;
  virtual void ready(const nlohmann::json& hello) = 0;
  virtual void report(std::uint64_t trial, const Report& report) = 0;
  // Then ready(next) when the result asks for the next trial too.
  virtual void result(const TrialRun& run) = 0;
  virtual void bye() {}
  virtual void malformed(Kind kind, const std::string& why) = 0;
};
// AppCore's own kinds coming from a runner are ignored.
void deliver(const Message& m, AppCoreInbox& to);

// What a runner does with each message its AppCore sends.
class RunnerInbox {
 public:
  virtual ~RunnerInbox() = default;
  virtual void launch(TrialLaunch launch) = 0;
  virtual void stop() = 0;
  virtual void interrupt(std::optional<std::uint64_t> trial) = 0;
  virtual void prune(std::uint64_t trial) = 0;
  virtual void malformed(Kind kind, const std::string& why) = 0;
};
// A runner's own kinds coming from the AppCore are ignored.
void deliver(const Message& m, RunnerInbox& to);

}  // namespace tune::wire
