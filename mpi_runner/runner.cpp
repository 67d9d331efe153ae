#include "mpi_runner/runner.hpp"

#include <chrono>
#include <thread>

#include "mpi_runner/messages.hpp"
#include "mpi_runner/trial_process.hpp"

namespace tune {

std::atomic<bool> g_stop_requested{false};
std::atomic<bool> g_drain_requested{false};

void await_stop_signal(const TrialRun& run, double grace) {
  if (!may_have_died_of_the_stop(run)) return;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
  while (!g_stop_requested && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

int run_runner(const RunnerIdentity& me) {
  const nlohmann::json hello = {{"host", me.host}, {"gpus", me.gpus}};
  wire::send(0, wire::Ready, hello);
  wire::Backoff backoff;
  for (;;) {
    auto msg = wire::poll(0, MPI_ANY_TAG);
    if (!msg) {
      backoff.wait();
      continue;
    }
    backoff.reset();
    if (msg->tag == wire::Stop) break;
    if (msg->tag != wire::Launch) continue;  // a late Interrupt or Prune for a trial already ended
    TrialLaunch launch = wire::launch_from_json(msg->body);
    if (!me.gpus.empty()) launch.env.emplace_back("CUDA_VISIBLE_DEVICES", me.gpus);
    bool interrupt = false, prune = false;
    TrialRun run = TrialProcess::run(
        launch, [&](const Report& r) { wire::send(0, wire::Report, wire::to_json(launch.trial, r)); },
        [&] {
          if (auto m = wire::poll(0, wire::Interrupt)) interrupt = true;
          if (auto m = wire::poll(0, wire::Prune)) prune = prune || m->body.value("trial", launch.trial + 1) == launch.trial;
          return interrupt || prune || g_stop_requested.load();
        });
    await_stop_signal(run);
    attribute_to_stop(run, interrupt || g_stop_requested.load());
    attribute_to_prune(run, prune);
    // The result asks for the next trial too (one message, answered at once).
    // A signalled runner takes no more work (a draining one lets its trial
    // finish first); rank 0 hears that the job is stopping.
    nlohmann::json result = wire::to_json(run);
    result["ready"] = hello;
    if (g_stop_requested || g_drain_requested) result["ready"]["stopping"] = true;
    wire::send(0, wire::Result, result);
  }
  return 0;
}

}  // namespace tune
