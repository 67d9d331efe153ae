// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/rank_dispatch.hpp"

#include <stdexcept>
#include <vector>

#include "study/run_control.hpp"

namespace tune {

RankDispatch::RankDispatch(DispatchHost& host, RankLinks& links, int world_size)
    : host_(host), links_(links), study_(host.study()), runners_(world_size - 1), active_(world_size - 1) {}

void RankDispatch::run() {
  while (active_ > 0) {
    if (host_.turn(host_.now())) {
      for (const auto& [rank, id] : busy_) links_.send(rank, wire::interrupt_message(id));
      interrupted_busy_ = true;
      interrupted_at_ = host_.now();
    }
    if (auto done = study_.collect(host_.now())) hand_out(done->rank, done->trial);
    if (!held_.empty() && (!study_.holding() || study_.stopping())) offer_to_held();
    auto msg = poll_runners();
    if (!msg) {
      if (give_up_on_silent_runners()) continue;
      if (study_.proposing())
        study_.await_proposal(1e-3);  // woken by the proposal, or polls again
      else
        links_.idle();
      continue;
    }
    links_.reset();
    from_ = msg->first;
    if (lost_.count(from_)) continue;  // its trial is recorded already
    heard_[from_] = host_.now();
    wire::deliver(msg->second, *this);
  }
}

// Each runner's messages in turn, from the one after the last heard.
std::optional<std::pair<int, wire::Message>> RankDispatch::poll_runners() {
  for (int k = 1; k <= runners_; ++k) {
    const int rank = 1 + (next_poll_ + k - 1) % runners_;
    if (auto m = links_.poll(rank)) {
      next_poll_ = rank % runners_;
      return std::make_pair(rank, std::move(*m));
    }
  }
  return std::nullopt;
}

// A runner lost after the study asked its runners to end their trials: its
// trial recorded as interrupted, the rank told to stop.
bool RankDispatch::give_up_on_silent_runners() {
  if (!interrupted_busy_ || busy_.empty()) return false;
  const double now = host_.now(), patience = silent_runner_patience(host_.grace());
  const std::vector<int> lost = runners_lost(now, interrupted_at_, host_.grace(), busy_, heard_);
  for (int rank : lost) {
    const std::uint64_t trial = busy_.at(rank);
    busy_.erase(rank);
    lost_.insert(rank);
    host_.say("rank " + std::to_string(rank) + " has sent nothing for " +
              std::to_string(static_cast<int>(patience)) + " s since the study asked it to end trial " +
              std::to_string(trial) +
              "; recorded as interrupted (--resume runs it again), and the rank is told to stop");
    TrialRun run;
    run.trial = trial;
    run.interrupted = true;
    run.start_time = run.end_time = now;
    host_.record(host_.attributed(run, true), rank, hosts_[rank], "rank " + std::to_string(rank) + ", lost");
    links_.send(rank, wire::stop_message());
    --active_;
  }
  return !lost.empty();
}

// A runner asking for work (its first Ready, or the Ready inside a Result).
void RankDispatch::ready(const nlohmann::json& hello) {
  hosts_[from_] = hello.value("host", "?");
  // Slurm and mpirun signal every rank; one that heard it means the job is stopping.
  if (hello.value("stopping", false)) study_.stop(StopReason::Signal);
  offer_to(from_);
}

// A trial for `rank` now, later (its proposal under way: collect()), or once
// the study stops holding (its storage has room again, its sampler a proposal).
void RankDispatch::offer_to(int rank) {
  const auto offer = study_.offer_trial(rank, hosts_[rank], host_.now());
  if (offer.held)
    held_.insert(rank);
  else if (!offer.wait)
    hand_out(rank, offer.trial);
}

void RankDispatch::offer_to_held() {
  const std::set<int> ranks = std::move(held_);
  held_.clear();
  for (const int rank : ranks) offer_to(rank);
}

void RankDispatch::report(std::uint64_t trial, const Report& r) {
  if (host_.on_report(trial, r)) links_.send(from_, wire::prune_message(trial));
}

void RankDispatch::result(const TrialRun& run) {
  busy_.erase(from_);
  host_.record(host_.attributed(run, interrupted_busy_), from_, hosts_[from_],
               "rank " + std::to_string(from_) + " on " + hosts_[from_]);
}

// Runners run this binary: a malformed message is a bug, not input.
void RankDispatch::malformed(wire::Kind kind, const std::string& why) {
  throw std::logic_error("rank " + std::to_string(from_) + " sent a malformed " +
                         std::string(wire::kind_name(kind)) + " (" + why + ")");
}

// A trial, or the end, for a runner.
void RankDispatch::hand_out(int rank, const std::optional<Trial>& trial) {
  if (trial) {
    links_.send(rank, wire::launch_message(host_.launch_for(*trial)));
    busy_[rank] = trial->id;
  } else {
    links_.send(rank, wire::stop_message());
    --active_;
  }
}

}  // namespace tune
