// What rank 0 (AppCore) and the runner ranks say to each other over MPI:
// small JSON documents, one per message, tagged by kind.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mpi_runner/trial_json.hpp"
#include "mpi_runner/trial_process.hpp"

namespace tune::wire {

enum Tag : int {
  Ready = 1,      // runner -> 0: idle, give me work (late binding)
  Launch = 2,     // 0 -> runner: run this trial
  Stop = 3,       // 0 -> runner: no more work, leave
  Report = 4,     // runner -> 0: an intermediate report of the running trial
  Result = 5,     // runner -> 0: the trial ended; with "ready", also asks for the next one
  Interrupt = 6,  // 0 -> runner: end the running trial, the study is stopping
  Prune = 7,      // 0 -> runner: end the running trial, the pruner stopped it
};

void send(int dest, Tag tag, const nlohmann::json& body);
// A message waiting from `source` (MPI_ANY_SOURCE for any) with `tag`
// (MPI_ANY_TAG for any), received; nothing if none is waiting.
struct Message {
  int source;
  Tag tag;
  nlohmann::json body;
};
std::optional<Message> poll(int source, int tag);

// How an idle rank waits for the next message: MPI's blocking calls spin a
// core, which the trials need. Naps stay short (<= 100 us) while a reply is
// due, and grow to 2 ms once nothing has come for 20 ms, so a rank waiting
// out a long trial costs almost nothing.
class Backoff {
 public:
  void reset();
  void wait();

 private:
  long us_ = 10;
  long idle_us_ = 0;
};

}  // namespace tune::wire
