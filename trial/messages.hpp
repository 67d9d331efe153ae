// What the AppCore and a runner say to each other, in both modes: one
// vocabulary. Over MPI a message's kind is its tag (kind + 1); over the
// trial-jobs channel it is the frame's "type" field (kind_name). The bodies
// are the JSON of trial_json.hpp.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

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

}  // namespace tune::wire
