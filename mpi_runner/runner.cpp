#include "mpi_runner/runner.hpp"

#include "mpi_runner/messages.hpp"
#include "trial/trial_json.hpp"

namespace tune {

int run_runner(const RunnerIdentity& me) {
  const nlohmann::json hello = {{"host", me.host}, {"gpus", me.gpus}};
  mpi::RankLink link;
  link.send(wire::Kind::Ready, hello);
  mpi::Backoff backoff;
  for (;;) {
    auto msg = link.poll();
    if (!msg) {
      backoff.wait();
      continue;
    }
    backoff.reset();
    if (msg->kind == wire::Kind::Stop) break;
    if (msg->kind != wire::Kind::Launch) continue;  // a late Interrupt or Prune for a trial already ended
    TrialLaunch launch = wire::launch_from_json(msg->body);
    if (!me.gpus.empty()) launch.env.emplace_back("CUDA_VISIBLE_DEVICES", me.gpus);
    const TrialRun run = run_trial(link, launch);
    // The result asks for the next trial too (one message, answered at once).
    // A signalled runner takes no more work (a draining one lets its trial
    // finish first); rank 0 hears that the job is stopping.
    nlohmann::json result = wire::to_json(run);
    result["ready"] = hello;
    if (g_stop_requested || g_drain_requested) result["ready"]["stopping"] = true;
    link.send(wire::Kind::Result, result);
  }
  return 0;
}

}  // namespace tune
