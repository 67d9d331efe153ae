// SPDX-License-Identifier: GPL-2.0-or-later
// The MPI transport of the trial vocabulary (trial/messages.hpp): one JSON
// document per message, its kind the MPI tag. Rank 0 is the AppCore.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "trial/messages.hpp"
#include "trial/rank_dispatch.hpp"
#include "trial/runner_side.hpp"

namespace tune::mpi {

void send(int dest, const wire::Message& m);

// A message waiting from `source` (MPI_ANY_SOURCE for any), received; nothing
// if none is waiting. A message of an unknown tag is received and dropped.
struct Received {
  int source;
  wire::Message message;
};
std::optional<Received> poll(int source);

// A runner rank's link to rank 0.
class RankLink : public RunnerLink {
 public:
  bool send(const wire::Message& m) override;
  std::optional<wire::Message> poll() override;
};

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

// Rank 0's links to its runner ranks (trial/rank_dispatch's RankLinks).
class RunnerRanks final : public RankLinks {
 public:
  void send(int rank, const wire::Message& m) override { mpi::send(rank, m); }
  std::optional<wire::Message> poll(int rank) override;
  void idle() override { backoff_.wait(); }
  void reset() override { backoff_.reset(); }

 private:
  Backoff backoff_;
};

}  // namespace tune::mpi
