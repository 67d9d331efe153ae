// SPDX-License-Identifier: GPL-2.0-or-later
#include "run_command.hpp"

#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "appcore.hpp"
#include "command/text_input.hpp"
#include "history/history.hpp"
#include "launch/gpu_share.hpp"
#include "libslurm/slurm_reach.hpp"
#include "mpi_runner/messages.hpp"
#include "mpi_runner/runner.hpp"
#include "progress_post.hpp"
#include "search/sampler.hpp"
#include "study/study.hpp"
#include "trial/rank_dispatch.hpp"
#include "trial/trial_json.hpp"
#include "trial/trial_process.hpp"
#include "trial_jobs_loop.hpp"
#include "tune_config.h"

namespace tune {
namespace {

namespace fs = std::filesystem;

void on_stop_signal(int) {
  g_stop_requested = true;
}
void on_drain_signal(int) {
  g_drain_requested = true;
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGTERM, SIGINT}) sigaction(s, &sa, nullptr);
  sa.sa_handler = on_drain_signal;
  sigaction(SIGUSR1, &sa, nullptr);
}

// The GPUs this rank may give its trials: Slurm's binding for the step on this
// node, split between the runners on the node by their index there.
std::string runner_gpus(int gpus_per_trial, int local_index, const std::string& host) {
  if (gpus_per_trial <= 0) return "";
  const char* src = nullptr;
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS"})
    if (const char* v = std::getenv(var); v && *v) {
      src = v;
      break;
    }
  const auto all = split(src ? src : "", ',');
  const auto share = gpu_share(all, local_index, gpus_per_trial);
  if (!share)
    throw UsageError(
        "runner " + std::to_string(local_index + 1) + " on " + host + " needs " +
        std::to_string(gpus_per_trial) + " GPU(s) but the node gave this job " + std::to_string(all.size()) +
        " (" + (src ? src : "none") +
        "); run it from the script tune submit writes (--gpus-per-task, tune wrap --mpi), or with "
        "--gres=gpu:<runners on the node x --gpus-per-trial>");
  std::string out;
  for (const auto& g : *share) out += (out.empty() ? "" : ",") + g;
  return out;
}

// The AppCore's own link when it runs trials itself: a report reaches the
// study at once, and the study's Prune and Interrupt come back the same way;
// between them the AppCore keeps its clock (ticks, signals, progress).
class LocalLink : public RunnerLink, private wire::AppCoreInbox {
 public:
  explicit LocalLink(AppCore& core) : core_(core) {}
  bool send(const wire::Message& m) override {
    wire::deliver(m, *this);
    return true;
  }
  std::optional<wire::Message> poll() override {
    if (inbox_.empty()) {
      if (core_.turn(now_s())) inbox_.push_back(wire::interrupt_message());
    }
    if (inbox_.empty()) return std::nullopt;
    wire::Message m = std::move(inbox_.front());
    inbox_.pop_front();
    return m;
  }

 private:
  // Only reports come this way: run_local records the run run_trial returns.
  void report(std::uint64_t trial, const Report& r) override {
    if (core_.on_report(trial, r)) inbox_.push_back(wire::prune_message(trial));
  }
  void ready(const nlohmann::json&) override {}
  void result(const TrialRun&) override {}
  void malformed(wire::Kind kind, const std::string& why) override {
    throw std::logic_error("a malformed " + std::string(wire::kind_name(kind)) + " (" + why + ")");
  }

  AppCore& core_;
  std::deque<wire::Message> inbox_;
};

// One process: rank 0 runs the trials itself, one after another, through
// the same runner sequence as a runner rank or a trial job.
int run_local(AppCore& core) {
  Study& study = core.study();
  const std::string host = node_name();
  LocalLink link(core);
  while (!study.finished()) {
    (void)core.turn(now_s());  // no trial runs here to interrupt
    const auto trial = study.next_trial(0, host, now_s());
    if (!trial) {  // stopping (finished() turns true), or waiting for the storage
      if (study.storage_waiting()) usleep(100000);
      continue;
    }
    TrialRun run = run_trial(link, core.launch_for(*trial));
    (void)core.turn(now_s());
    attribute_to_stop(run, core.interrupt_running(now_s()));
    core.record(run, 0, host, "rank 0 on " + host);
  }
  return core.finish();
}

// What rank 0's dispatch (trial/rank_dispatch) asks of the AppCore.
class AppCoreHost final : public DispatchHost {
 public:
  explicit AppCoreHost(AppCore& core) : core_(core) {}
  Study& study() override { return core_.study(); }
  double now() const override { return now_s(); }
  bool turn(double now) override { return core_.turn(now); }
  bool on_report(std::uint64_t trial, const Report& r) override { return core_.on_report(trial, r); }
  TrialLaunch launch_for(const Trial& t) override { return core_.launch_for(t); }
  TrialRun attributed(TrialRun run, bool interrupted) const override {
    return core_.attributed(std::move(run), interrupted);
  }
  double grace() const override { return core_.grace(); }
  void record(const TrialRun& run, int rank, const std::string& host, const std::string& where) override {
    core_.record(run, rank, host, where);
  }
  void say(const std::string& line) const override { core_.say(line); }

 private:
  AppCore& core_;
};

int run_appcore(AppCore& core, int world_size) {
  AppCoreHost host(core);
  mpi::RunnerRanks ranks;
  RankDispatch(host, ranks, world_size).run();
  return core.finish();
}

bool started_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

void add_run_options(CLI::App& r, RunOptions& o) {
  r.add_option("--history", o.history, "HDF5 trial history to create (or continue with --resume)")
      ->capture_default_str();
  r.add_option("--time-limit", o.time_limit, "stop dispatching after this long (90s, 15m, 2h, HH:MM:SS)");
  r.add_option("--trial-dir", o.trial_dir, "per-trial logs and params.json (default: HISTORY.trials/)");
  r.add_flag("--resume", o.resume,
             "continue the study in --history: keep done trials, rerun interrupted ones");
  r.add_flag("-q,--quiet", o.quiet, "print only the summary");
  CLI::Option* tj = add_study_flags(r, o, StudyCommand::Run);
  r.add_option(
       "--appcore-wait", o.appcore_wait,
       "trial jobs: how long a job whose AppCore is gone waits for a resumed one (none once Slurm says "
       "the AppCore's job has ended)")
      ->needs(tj)
      ->capture_default_str();
  r.add_option("--slurm-poll", o.slurm_poll,
               "trial jobs: time between looks at the study's jobs in slurmctld")
      ->needs(tj)
      ->capture_default_str();
}

int run_study(const RunOptions& o) {
  install_signal_handlers();
  if (o.trial_jobs) {
    if (started_by_mpi() && std::getenv("OMPI_COMM_WORLD_SIZE") &&
        std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1") {
      std::cerr << "tune run: error: --trial-jobs runs the AppCore alone; start it without mpirun (trials "
                   "are Slurm jobs of their own)\n";
      return kExitUsage;
    }
    // Before a history exists: a machine without a Slurm configuration gets a
    // plain answer (a slurmctld that is down is waited for, as in the loop).
    if (const auto why = slurm_unreachable(/*ask_controller=*/false)) {
      std::cerr << "tune run: error: --trial-jobs submits every trial to Slurm, but " << *why << "\n";
      return kExitUsage;
    }
    try {
      AppCore core(o, o.parallel);
      core.open();
      return run_trial_jobs(core, o);
    } catch (const std::exception& e) {
      std::cerr << "tune run: error: " << e.what() << std::endl;
      return kExitUsage;
    }
  }
  int rank = 0, size = 1;
  const bool mpi = started_by_mpi();
  if (mpi) {
    // Only this thread calls MPI; the study's worker thread (a model's
    // proposal) does not.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  const std::string host = node_name();
  // Each runner's index among the runners on its node, for splitting GPUs.
  int local_index = 0;
  if (mpi && size > 1) {
    constexpr int kLen = 128;
    std::vector<char> all(static_cast<std::size_t>(size) * kLen, 0);
    char mine[kLen] = {};
    std::snprintf(mine, sizeof mine, "%s", host.c_str());
    MPI_Allgather(mine, kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 1; r < rank; ++r)
      if (std::string(&all[static_cast<std::size_t>(r) * kLen]) == host) ++local_index;
  }
  // Every runner checks its GPUs before any work starts; if one cannot have
  // its share, all ranks leave cleanly and the failing ones say why.
  std::string gpus;
  int gpu_error = 0;
  if (rank > 0) {
    try {
      gpus = runner_gpus(o.gpus_per_trial, local_index, host);
    } catch (const std::exception& e) {
      std::cerr << "tune run: error: " << e.what() << std::endl;
      gpu_error = 1;
    }
  }
  if (mpi) MPI_Allreduce(MPI_IN_PLACE, &gpu_error, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (gpu_error) {
    if (rank == 0)
      std::cerr << "tune run: error: runners lack GPUs (see above); nothing was run" << std::endl;
    if (mpi) MPI_Finalize();
    return kExitUsage;
  }
  int code = kExitOk;
  try {
    if (rank > 0) {
      code = run_runner({rank, host, gpus});
    } else {
      AppCore core(o, size - 1);
      try {
        core.open();
      } catch (const std::exception& e) {
        // Bad input: say so, release the runners waiting for work, end cleanly.
        std::cerr << "tune run: error: " << e.what() << std::endl;
        for (int r = 1; r < size; ++r) mpi::send(r, wire::stop_message());
        if (mpi) MPI_Finalize();
        return kExitUsage;
      }
      code = size > 1 ? run_appcore(core, size) : run_local(core);
    }
  } catch (const std::exception& e) {
    std::cerr << "tune run: error: " << e.what() << std::endl;
    if (mpi) MPI_Abort(MPI_COMM_WORLD, kExitUsage);
    return kExitUsage;
  }
  if (mpi) MPI_Finalize();
  return code;
}

}  // namespace tune
