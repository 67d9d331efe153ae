// SPDX-License-Identifier: GPL-2.0-or-later
#include "mpi_runner/runner.hpp"

#include <stdexcept>

#include "mpi_runner/messages.hpp"

namespace tune {

namespace {

// What rank 0 says to an idle runner: a trial to run, or stop. An Interrupt
// or Prune can come late, for a trial already ended: ignored.
class IdleRunner : public wire::RunnerInbox {
 public:
  IdleRunner(const RunnerIdentity& me, mpi::RankLink& link)
      : me_(me), link_(link), hello_{{"host", me.host}, {"gpus", me.gpus}} {}

  int run() {
    link_.send(wire::ready_message(hello_));
    mpi::Backoff backoff;
    while (!stopped_) {
      auto msg = link_.poll();
      if (!msg) {
        backoff.wait();
        continue;
      }
      backoff.reset();
      wire::deliver(*msg, *this);
    }
    return 0;
  }

  void launch(TrialLaunch launch) override {
    if (!me_.gpus.empty()) launch.env.emplace_back("CUDA_VISIBLE_DEVICES", me_.gpus);
    bool stop_heard = false;
    const TrialRun run = run_trial(link_, launch, &stop_heard);
    // The result asks for the next trial too (one message, answered at once).
    // A signalled runner takes no more work (a draining one lets its trial
    // finish first); rank 0 hears that the job is stopping.
    nlohmann::json next = hello_;
    if (g_stop_requested || g_drain_requested) next["stopping"] = true;
    link_.send(wire::result_message(run, next));
    stopped_ = stop_heard;
  }
  void stop() override { stopped_ = true; }
  void interrupt(std::optional<std::uint64_t>) override {}
  void prune(std::uint64_t) override {}
  // Rank 0 runs the same binary: a malformed message is a bug, not input.
  void malformed(wire::Kind kind, const std::string& why) override {
    throw std::logic_error("runner " + std::to_string(me_.rank) + ": a malformed " +
                           std::string(wire::kind_name(kind)) + " from rank 0 (" + why + ")");
  }

 private:
  const RunnerIdentity& me_;
  mpi::RankLink& link_;
  const nlohmann::json hello_;
  bool stopped_ = false;
};

}  // namespace

int run_runner(const RunnerIdentity& me) {
  mpi::RankLink link;
  return IdleRunner(me, link).run();
}

}  // namespace tune
