// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial/runner_side.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "trial/trial_json.hpp"

namespace tune {

std::atomic<bool> g_stop_requested{false};
std::atomic<bool> g_drain_requested{false};

void await_stop_signal(const TrialRun& run, double grace) {
  const bool stop = may_have_died_of_the_stop(run), drain = may_have_died_of_the_drain(run);
  if (!stop && !drain) return;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  while (!(stop ? g_stop_requested.load() : g_drain_requested.load()) &&
         std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

namespace {

// What may come while a trial runs: Interrupt and Prune, for this trial (a
// late one for a trial already ended is ignored). The AppCore sends Launch
// only in reply to Ready or a Result; a Stop comes then too, or when the
// AppCore has given up waiting for this trial's result: kept for after it.
class WhileRunning : public wire::RunnerInbox {
 public:
  explicit WhileRunning(std::uint64_t trial) : trial_(trial) {}
  void launch(TrialLaunch) override {}
  void stop() override { stop_heard = true; }
  void interrupt(std::optional<std::uint64_t> trial) override { interrupted |= !trial || *trial == trial_; }
  void prune(std::uint64_t trial) override { pruned |= trial == trial_; }
  void malformed(wire::Kind kind, const std::string& why) override {
    std::cerr << "tune: ignored a malformed " << wire::kind_name(kind) << " from the AppCore (" << why
              << ")\n";
  }
  bool interrupted = false, pruned = false, stop_heard = false;

 private:
  std::uint64_t trial_;
};

}  // namespace

TrialRun run_trial(RunnerLink& link, const TrialLaunch& launch, bool* stop_heard) {
  WhileRunning inbox(launch.trial);
  TrialRun run = TrialProcess::run(
      launch, [&](const Report& r) { link.send(wire::report_message(launch.trial, r)); },
      [&] {
        while (auto m = link.poll()) wire::deliver(*m, inbox);
        return inbox.interrupted || inbox.pruned || g_stop_requested.load();
      });
  await_stop_signal(run);  // scancel, a time limit, preemption: Slurm's SIGTERM may reach the program first
  // The study's own SIGUSR1 may reach a program while it is being started.
  attribute_to_stop(run, inbox.interrupted || g_stop_requested.load(), g_drain_requested.load());
  attribute_to_prune(run, inbox.pruned);
  if (stop_heard) *stop_heard = inbox.stop_heard;
  return run;
}

}  // namespace tune
