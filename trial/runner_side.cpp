#include "trial/runner_side.hpp"

#include <chrono>
#include <thread>

#include "trial/trial_json.hpp"

namespace tune {

std::atomic<bool> g_stop_requested{false};
std::atomic<bool> g_drain_requested{false};

void await_stop_signal(const TrialRun& run, double grace) {
  if (!may_have_died_of_the_stop(run)) return;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  while (!g_stop_requested && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

TrialRun run_trial(RunnerLink& link, const TrialLaunch& launch) {
  bool interrupt = false, prune = false;
  TrialRun run = TrialProcess::run(
      launch, [&](const Report& r) { link.send(wire::Kind::Report, wire::to_json(launch.trial, r)); },
      [&] {
        // Only Interrupt and Prune come while a trial runs; the AppCore sends
        // Launch and Stop only in reply to Ready or a Result.
        while (auto m = link.poll()) {
          if (m->kind == wire::Kind::Interrupt) interrupt = true;
          if (m->kind == wire::Kind::Prune && m->body.value("trial", launch.trial + 1) == launch.trial)
            prune = true;
        }
        return interrupt || prune || g_stop_requested.load();
      });
  await_stop_signal(run);  // scancel, a time limit, preemption: Slurm's SIGTERM may reach the program first
  attribute_to_stop(run, interrupt || g_stop_requested.load());
  attribute_to_prune(run, prune);
  return run;
}

}  // namespace tune
