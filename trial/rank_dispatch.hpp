// SPDX-License-Identifier: GPL-2.0-or-later
// Rank 0's side of MPI mode, with runners: late binding, never blocking on
// one runner. Each runner's messages are read in turn (a runner never waits
// behind another's stream of reports), each delivered as the vocabulary of
// trial/messages says; a runner asking for work gets a trial now, later (its
// proposal under way on the study's worker) or once the storage has room
// again; a runner silent after the study asked it to end its trial is given
// up on (runners_lost, lib/study/run_control). MPI and the AppCore are behind
// the two interfaces below: mpi_runner/ and driver/ give the real ones, the
// unit tests fakes.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "study/study.hpp"
#include "trial/messages.hpp"

namespace tune {

// How rank 0 reaches its runner ranks 1..N.
class RankLinks {
 public:
  virtual ~RankLinks() = default;
  virtual void send(int rank, const wire::Message& m) = 0;
  // A message waiting from `rank`, or nothing. Never blocks.
  virtual std::optional<wire::Message> poll(int rank) = 0;
  // Nothing came: wait a little (MPI: a growing nap); `reset` once something did.
  virtual void idle() = 0;
  virtual void reset() {}
};

// What the dispatch asks of its AppCore.
class DispatchHost {
 public:
  virtual ~DispatchHost() = default;
  virtual Study& study() = 0;
  virtual double now() const = 0;
  // One turn of the AppCore's clock (signals, limits, progress); true when the
  // running trials are to be interrupted now.
  virtual bool turn(double now) = 0;
  // A running trial's report; true when the pruner stops it.
  virtual bool on_report(std::uint64_t trial, const Report& r) = 0;
  virtual TrialLaunch launch_for(const Trial& t) = 0;
  // The run as the study counts it (interrupted by the study, not the program).
  virtual TrialRun attributed(TrialRun run, bool interrupted) const = 0;
  virtual double grace() const = 0;
  virtual void record(const TrialRun& run, int rank, const std::string& host, const std::string& where) = 0;
  virtual void say(const std::string& line) const = 0;
};

class RankDispatch : private wire::AppCoreInbox {
 public:
  // `world_size`: rank 0 and its runners.
  RankDispatch(DispatchHost& host, RankLinks& links, int world_size);

  // Until every runner was told to stop. Returns nothing: the AppCore's
  // finish() says how the study ended.
  void run();

 private:
  std::optional<std::pair<int, wire::Message>> poll_runners();
  bool give_up_on_silent_runners();
  void offer_to(int rank);
  void offer_to_held();
  void hand_out(int rank, const std::optional<Trial>& trial);

  void ready(const nlohmann::json& hello) override;
  void report(std::uint64_t trial, const Report& r) override;
  void result(const TrialRun& run) override;
  void malformed(wire::Kind kind, const std::string& why) override;

  DispatchHost& host_;
  RankLinks& links_;
  Study& study_;
  std::map<int, std::uint64_t> busy_;  // rank -> trial
  std::map<int, std::string> hosts_;   // rank -> node
  std::map<int, double> heard_;        // rank -> when its last message came
  std::set<int> lost_;                 // ranks given up on (give_up_on_silent_runners)
  std::set<int> held_;                 // ranks idle while the study holds (Study::holding)
  int runners_;
  int active_;
  int next_poll_ = 0;
  double interrupted_at_ = 0;
  bool interrupted_busy_ = false;
  int from_ = 0;
};

}  // namespace tune
