// SPDX-License-Identifier: GPL-2.0-or-later
#include "job_runner/trial_job.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "history/place_modes.hpp"
#include "job_runner/channel.hpp"
#include "libslurm/slurm_trial_jobs.hpp"
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_dir.hpp"
#include "trial/trial_json.hpp"
#include "trial/trial_process.hpp"
#include "trial_jobs/appcore_watch.hpp"
#include "trial_jobs/jobs_file.hpp"
#include "trial_jobs/trial_job_rules.hpp"

namespace tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void on_stop(int) {
  g_stop_requested = true;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// This trial job's Slurm job (0 outside Slurm).
std::uint32_t own_job() {
  return static_cast<std::uint32_t>(std::strtoul(env_or("SLURM_JOB_ID", "0").c_str(), nullptr, 10));
}

void say(const std::string& line) {
  std::cout << "tune trial-job: " << line << std::endl;
}

// A multi-node or multi-task trial job starts the program on every task with srun.
std::vector<std::string> with_srun(std::vector<std::string> argv) {
  const int nodes = std::atoi(env_or("SLURM_JOB_NUM_NODES", "1").c_str());
  const int tasks = std::atoi(env_or("SLURM_NTASKS", "1").c_str());
  if (nodes <= 1 && tasks <= 1) return argv;
  std::vector<std::string> out = {"srun", "--ntasks=" + std::to_string(tasks),
                                  "--nodes=" + std::to_string(nodes), "--kill-on-bad-exit=1", "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

// What became of the AppCore's Slurm job, asked of slurmctld (one RPC for
// this user's jobs) now and then while the AppCore cannot be reached;
// lib/study's appcore_fate says what it means. The first verdict other than
// MayReturn stands: it also cancels the study's trial jobs still pending.
// Slurm as the AppCore watch asks it (lib/trial_jobs/appcore_watch.hpp).
class SlurmQuery : public JobQuery {
 public:
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override {
    try {
      if (!slurm_) slurm_.emplace();
      return slurm_->look_up(ids);
    } catch (const SlurmError& e) {
      throw JobQueueError(e.what());
    }
  }
  bool cancel(std::uint32_t id) override { return slurm_ && slurm_->cancel(id); }

 private:
  std::optional<SlurmTrialJobs> slurm_;
};

// Whether the AppCore may come back (AppCoreWatch), from the channel file
// (a resumed AppCore's, if one wrote it since) and its jobs file.
class AppCoreCheck {
 public:
  explicit AppCoreCheck(const std::string& channel_file) : channel_file_(channel_file) {}

  AppCoreFate check() {
    const double now =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (!watch_.due(now)) return watch_.fate();
    ChannelAddress a;
    try {
      a = read_channel_file(channel_file_);
    } catch (const ChannelError&) {
      a.job = 0;  // nothing to ask this time
    }
    std::string refused;
    auto jobs = a.job ? read_jobs_file(a.jobs_file, JobsFileUse::Act, &refused) : std::nullopt;
    if (!refused.empty() && refused != said_) say(said_ = refused);
    return watch_.ask(now, a.job, own_job(), std::move(jobs), slurm_, say);
  }

 private:
  std::string channel_file_;
  SlurmQuery slurm_;
  AppCoreWatch watch_;
  std::string said_;  // the last refusal said, not said again at every check
};

// The trial job's link to its AppCore over the channel: the vocabulary's
// kind in each frame's "type"; reconnects (up to --appcore-wait) when the
// AppCore goes away.
class Session : public RunnerLink {
 public:
  explicit Session(const TrialJobOptions& o) : options_(o), watch_(o.channel_file) {
    hello_ = {{"job", own_job()},
              {"host", env_or("SLURMD_NODENAME", env_or("HOSTNAME", "?"))},
              {"gpus", env_or("CUDA_VISIBLE_DEVICES", "")}};
  }

  // Connects (again), retrying until --appcore-wait runs out; `extra` goes
  // into the hello (a trial running, a result to deliver).
  bool connect(const json& extra) {
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.appcore_wait);
    std::string last;
    for (int attempt = 0;; ++attempt) {
      try {
        const ChannelAddress a = read_channel_file(options_.channel_file);
        json hello = hello_;
        for (const auto& [k, v] : extra.items()) hello[k] = v;
        client_.connect(a, hello);
        if (attempt > 0) say("reached the AppCore again at " + a.host + ":" + std::to_string(a.port));
        return true;
      } catch (const ChannelError& e) {
        if (e.what() != last) say(std::string(e.what()) + "; retrying");
        last = e.what();
      }
      if (watch_.check() != AppCoreFate::MayReturn) {
        say("leaving (a resumed study collects any result from the trial directory)");
        return false;
      }
      if (g_stop_requested || std::chrono::steady_clock::now() >= give_up) break;
      std::this_thread::sleep_for(std::chrono::seconds(std::min(10, 1 + attempt)));
    }
    say("no AppCore within " + std::to_string(static_cast<int>(options_.appcore_wait)) +
        " s; leaving (a resumed study collects any result from the trial directory)");
    return false;
  }

  // Sends, or notes that the connection is gone.
  bool send(const wire::Message& m) override {
    try {
      client_.send(wire::to_frame(m));
      return true;
    } catch (const ChannelError&) {
      return false;
    }
  }
  // While a trial runs: the AppCore's Interrupt or Prune, if one came. A lost
  // AppCore does not stop the trial, its result waits for a resumed one;
  // unless Slurm stopped the AppCore's job: then the trial ends, as the
  // AppCore would have ended it (appcore_fate).
  std::optional<wire::Message> poll() override {
    while (!lost()) {
      auto frame = next(0);
      if (!frame) return std::nullopt;
      if (auto m = wire::from_frame(std::move(*frame))) return m;
    }
    if (!interrupted_ && watch_.check() == AppCoreFate::Stopped) {
      interrupted_ = true;
      say("ending the running trial");
      return wire::interrupt_message();
    }
    return std::nullopt;
  }

  // The next message, waiting up to `wait` s; nothing if none came or the connection ended.
  std::optional<json> next(double wait) {
    try {
      return client_.poll(wait);
    } catch (const ChannelError& e) {
      if (!lost_) say(std::string(e.what()));
      lost_ = true;
      return std::nullopt;
    }
  }
  bool lost() const { return lost_ || !client_.connected(); }
  void reset_lost() { lost_ = false; }

 private:
  const TrialJobOptions& options_;
  ChannelClient client_;
  json hello_;
  bool lost_ = false;
  AppCoreCheck watch_;
  bool interrupted_ = false;  // the running trial was ended for a stopped AppCore
};

// The AppCore's answer to Ready: a trial, or stop. A late Interrupt or Prune,
// for a trial already ended, is ignored, even a malformed one; a malformed
// Launch ends the job (no trial to run, and the AppCore's fault).
struct Answer : wire::RunnerInbox {
  void launch(TrialLaunch l) override { trial = std::move(l); }
  void stop() override { stopped = true; }
  void interrupt(std::optional<std::uint64_t>) override {}
  void prune(std::uint64_t) override {}
  void malformed(wire::Kind kind, const std::string& why) override {
    if (kind == wire::Kind::Launch) bad = "a malformed launch from the AppCore (" + why + ")";
  }
  std::optional<TrialLaunch> trial;
  bool stopped = false;
  std::string bad;
};

}  // namespace

int run_trial_job(const TrialJobOptions& o) {
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGTERM, SIGINT, SIGUSR1}) sigaction(s, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  Session session(o);
  if (!session.connect(json::object())) return 1;
  for (int done = 0; done < o.trials && !g_stop_requested;) {
    if (!session.send(wire::ready_message())) {
      session.reset_lost();
      if (!session.connect(json::object())) return 1;
      continue;
    }
    std::optional<json> frame;
    while (!frame && !session.lost() && !g_stop_requested) frame = session.next(1.0);
    if (!frame) {
      if (g_stop_requested) break;
      session.reset_lost();
      if (!session.connect(json::object())) return 1;
      continue;
    }
    const auto msg = wire::from_frame(std::move(*frame));
    if (!msg) continue;
    Answer answer;
    wire::deliver(*msg, answer);
    if (!answer.bad.empty()) {
      say(answer.bad + "; leaving");
      return 1;
    }
    if (answer.stopped) break;
    if (!answer.trial) continue;
    TrialLaunch launch = std::move(*answer.trial);
    const auto direct = launch.argv;
    launch.argv = with_srun(launch.argv);
    // srun's tasks on other nodes cannot inherit a descriptor: they append to a file.
    launch.reports_in_file = launch.argv != direct;
    const int made = make_dirs(launch.trial_dir);
    TrialRun run;
    if (made && is_storage_error(made)) {  // not the program's fault: the AppCore runs it again
      run.trial = launch.trial;
      run.start_time = run.end_time =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      run.storage_fault = StorageFault{made, launch.trial_dir, "the trial's files"};
    } else {
      std::error_code gone;
      fs::remove(trial_files::in(launch.trial_dir, trial_files::kResult), gone);  // an earlier attempt's
      trial_files::save_job(launch.trial_dir, own_job());
      run = run_trial(session, launch);
    }
    // The result lives beside the trial's output until the AppCore has it.
    if (const int error = trial_files::save_result(launch.trial_dir, run))
      say("cannot keep trial " + std::to_string(run.trial) + "'s result beside it: " +
          describe({error, launch.trial_dir, "the result"}) + "; it goes to the AppCore all the same");
    const wire::Message result = wire::result_message(run);
    if (session.lost() || !session.send(result)) {
      session.reset_lost();
      if (!session.connect(result.body)) return 1;  // the hello carries it (wire::result_in_hello)
    }
    ++done;
  }
  session.send(wire::bye_message());
  return 0;
}

}  // namespace tune
