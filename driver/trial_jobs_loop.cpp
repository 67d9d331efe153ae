// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs_loop.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "appcore.hpp"
#include "command/job_script.hpp"
#include "command/text_input.hpp"
#include "estimators/study_progress.hpp"
#include "history/place_modes.hpp"
#include "job_runner/channel.hpp"
#include "libslurm/slurm_trial_jobs.hpp"
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_dir.hpp"
#include "trial/trial_json.hpp"
#include "trial_jobs/jobs_file.hpp"
#include "trial_jobs/trial_job_rules.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

extern char** environ;

namespace tune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string exe_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "tune" : p.string();
}

// Another writer has taken the history over: this AppCore leaves at once
// (TrialJobsLoop::run), from wherever it learns it.
struct HistoryTaken {
  std::string by;
};
void throw_if_taken(const AppCore& core) {
  if (const auto who = core.history_taken()) throw HistoryTaken{*who};
}

// Slurm through libslurm, as the controller's JobQueue: each job the same
// request (the study's trial-job script), carrying the progress record.
class SlurmQueue : public JobQueue {
 public:
  // `after_look_up` runs after every answer from slurmctld, before the
  // controller acts on it: the moment a cut-off AppCore can see again.
  SlurmQueue(TrialJobRequest base, std::function<void()> after_look_up)
      : base_(std::move(base)), after_look_up_(std::move(after_look_up)) {}
  std::uint32_t submit(const std::string& comment) override {
    TrialJobRequest r = base_;
    r.comment = comment;
    try {
      return slurm_.submit(r);
    } catch (const SlurmError& e) {
      throw JobQueueError(e.what(), refusal_cause(e.code), e.user_jobs);
    }
  }
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override {
    std::map<std::uint32_t, TrialJobInfo> info;
    try {
      info = slurm_.look_up(ids);
    } catch (const SlurmError& e) {
      throw JobQueueError(e.what());
    }
    after_look_up_();
    return info;
  }
  bool cancel(std::uint32_t id) override { return slurm_.cancel(id); }

 private:
  TrialJobRequest base_;
  std::function<void()> after_look_up_;
  SlurmTrialJobs slurm_;
};

// A result that came with a hello or from the trial directory, decoded as
// a live one is (wire::deliver): the run, or what is wrong with it.
struct ResultIn : wire::AppCoreInbox {
  explicit ResultIn(const AppCore& core) : core(core) {}
  void ready(const json&) override {}
  void report(std::uint64_t, const Report&) override {}
  void result(const TrialRun& r) override { run = core.attributed(r, false); }
  void malformed(wire::Kind, const std::string& why) override { bad = why; }
  const AppCore& core;
  std::optional<TrialRun> run;
  std::string bad;
};

// The AppCore, as the controller's host.
class CoreHost : public LoopHost {
 public:
  explicit CoreHost(AppCore& core) : core_(core), study_(core.study()) {}
  LoopStudy& study() override { return study_; }
  double now() const override { return now_s(); }
  void record(const TrialRun& run, const std::string& host, const std::string& where) override {
    throw_if_taken(core_);
    core_.record(run, 0, host, where);
  }
  void say(const std::string& line) override { core_.say(line); }
  bool interrupt_running(double now) const override { return core_.interrupt_running(now); }
  std::string trial_comment() override { return format_progress(core_.progress(StudyRole::Trial)); }

 private:
  AppCore& core_;
  LiveStudy study_;
};

class TrialJobsLoop : public JobLinks {
 public:
  TrialJobsLoop(AppCore& core, const RunOptions& o)
      : core_(core),
        options_(o),
        server_(secret_, [this](const std::string& m) { core_.say(m); }),
        host_(core) {
    poll_every_ = parse_duration(o.slurm_poll, "--slurm-poll");
    appcore_wait_ = parse_duration(o.appcore_wait, "--appcore-wait");
    if (poll_every_ < 1)
      throw UsageError("--slurm-poll " + o.slurm_poll + " is below 1 s; slurmctld serves everyone");
  }

  int run() {
    listen();
    queue_.emplace(request(), [this] { check_claim(); });
    TrialJobsRules rules;
    rules.poll_every = poll_every_;
    loop_.emplace(host_, *queue_, *this, options_.parallel, options_.trials_per_job, rules);
    try {
      loop_->adopt(earlier_jobs());
      serve();
      loop_->finish();
      check_claim();
    } catch (const HistoryTaken& t) {
      // An AppCore cut off the network while Slurm requeued its job elsewhere
      // finds its history taken over when it can see again: it leaves before
      // it writes, submits or cancels anything, and leaves the channel and
      // jobs files, now the new AppCore's, alone.
      core_.say(
          "stopping: " + options_.history + " has been taken over by " + t.by +
          " (this AppCore was probably cut off while Slurm requeued its job); the study and its trial " +
          "jobs are that writer's now, and this one leaves them untouched");
      return kExitUsage;
    }
    write_jobs_file();
    say_costs();
    std::error_code ec;
    fs::remove(channel_file_, ec);
    return core_.finish();
  }

  // The loop until the study is done; looks at the writer claim every second.
  void serve() {
    double last_jobs_write = 0, last_claim_check = 0;
    for (;;) {
      const double now = now_s();
      if (now - last_claim_check >= 1) {
        last_claim_check = now;
        check_claim();
        keep_channel_file();
      }
      (void)core_.turn(now);  // the controller asks interrupt_running() itself
      loop_->tick();
      // While the sampler's worker proposes, look for its answer sooner.
      for (auto& ev : server_.poll(core_.study().proposing() ? 0.002 : 0.05)) handle(ev);
      if (changed_ || loop_->take_changed()) {
        changed_ = true;
        if (now - last_jobs_write >= 1) {
          write_jobs_file();
          last_jobs_write = now;
        }
      }
      if (loop_->done()) return;
    }
  }

  void check_claim() const { throw_if_taken(core_); }

  // The channel file as this AppCore wrote it, or written again: in a
  // directory others may write, one of them may remove it or put theirs in
  // its place (which the trial jobs refuse, channel.hpp); the study's later
  // trial jobs must still find their way here.
  void keep_channel_file() {
    struct stat st {};
    const bool ours = ::lstat(channel_file_.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                      st.st_uid == ::geteuid() && st.st_ino == channel_inode_ && !(st.st_mode & 077);
    if (ours) return;
    const std::string what = ::lstat(channel_file_.c_str(), &st) != 0
                                 ? "was removed"
                                 : "was replaced (now uid " + std::to_string(st.st_uid) + "'s)";
    try {
      write_channel();
      core_.say("the channel file " + channel_file_ + " " + what + "; written again");
    } catch (const ChannelError& e) {
      core_.say(std::string(e.what()) + " (it " + what +
                "); trial jobs that start now cannot reach this AppCore");
    }
  }

  // JobLinks: the trial vocabulary over the channel.
  void launch(Conn c, const Trial& t) override { send_to(c, wire::launch_message(core_.launch_for(t))); }
  void stop(Conn c) override { send_to(c, wire::stop_message()); }
  void interrupt(Conn c, std::uint64_t trial) override { send_to(c, wire::interrupt_message(trial)); }
  void prune(Conn c, std::uint64_t trial) override { send_to(c, wire::prune_message(trial)); }
  void close(Conn c) override { server_.close(c); }
  void pump(double seconds) override {
    for (auto& ev : server_.poll(seconds)) handle(ev);
  }

 private:
  void listen() {
    const int port = server_.listen(0);
    ChannelAddress a;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    a.host = host;
    a.addresses = local_ipv4_addresses();
    a.port = port;
    a.secret = secret_;
    if (const char* job = std::getenv("SLURM_JOB_ID"))
      a.job = static_cast<std::uint32_t>(std::strtoul(job, nullptr, 10));
    a.jobs_file = fs::absolute(jobs_file_of(options_.history)).string();
    channel_file_ = channel_file_of(options_.history);
    address_ = a;
    write_channel();
    core_.say("trial jobs reach this AppCore at " + a.host + ":" + std::to_string(port) + " (" +
              channel_file_ + ")");
  }

  void write_channel() {
    write_channel_file(channel_file_, address_);
    struct stat st {};
    channel_inode_ = ::stat(channel_file_.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  // What every trial job of this study asks Slurm for, and runs.
  TrialJobRequest request() const {
    TrialJobRequest r;
    r.spec.cpus_per_task = options_.cpus_per_trial;
    r.spec.mem_mb = parse_megabytes(options_.mem_per_trial, "--mem-per-trial");
    r.spec.gpus_per_node = options_.gpus_per_trial;
    r.spec.nodes = options_.nodes_per_trial;
    r.spec.tasks = std::max(options_.tasks_per_trial, options_.nodes_per_trial);
    r.spec.time_limit_s = trial_job_time_limit(
        options_.trial_time_limit.empty() ? 0
                                          : parse_duration(options_.trial_time_limit, "--trial-time-limit"),
        options_.trials_per_job);
    r.spec.partition = options_.partition;
    r.spec.account = options_.account;
    r.spec.qos = options_.qos;
    r.spec.constraint = options_.constraint;
    r.spec.reservation = options_.reservation;
    r.spec.nice = options_.nice;
    r.name = core_.history().study().name + ".trial";
    r.workdir = fs::current_path().string();
    if (const int e = make_dirs(core_.trial_dir()))
      throw fs::filesystem_error("cannot make the trials' directory", core_.trial_dir(),
                                 std::error_code(e, std::generic_category()));
    r.output = fs::absolute(core_.trial_dir()).string() + "/job-%j.out";
    TrialJobScript script;
    script.study = core_.history().study().name;
    if (!options_.setup.empty()) {
      try {
        script.setup_file = options_.setup;
        script.setup = setup_lines(options_.setup);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
    }
    script.tune_binary = exe_path();
    script.channel_file = fs::absolute(channel_file_).string();
    script.trials_per_job = options_.trials_per_job;
    script.appcore_wait_s = static_cast<long>(appcore_wait_);
    r.script = trial_job_script(script);
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    r.environment = trial_job_environment(env, {});
    return r;
  }

  // Trials of an earlier AppCore left running: their jobs may still run
  // them. Results the jobs wrote while no AppCore listened are collected
  // here; the rest goes to the controller to adopt.
  std::map<std::uint32_t, std::optional<std::uint64_t>> earlier_jobs() {
    std::map<std::uint32_t, std::optional<std::uint64_t>> earlier;  // job -> trial
    // The jobs file of the earlier AppCore lists its pending and running jobs.
    std::string refused;
    if (const auto file = read_jobs_file(jobs_file_of(options_.history), JobsFileUse::Act, &refused))
      for (const auto& job : file->jobs) earlier[job.id] = std::nullopt;
    if (!refused.empty()) core_.say(refused);
    for (const auto& t : core_.history().trials()) {
      if (t.state != TrialState::Running) continue;
      const std::string dir = trial_files::dir_of(core_.trial_dir(), t.id);
      // A result the job wrote while no AppCore listened (one that does not
      // decode is left to the job, adopted below).
      if (const auto saved = trial_files::saved_result(dir)) {
        ResultIn got(core_);
        wire::deliver(*saved, got);
        if (got.run && saved_result_counts(*got.run, t) && core_.study().adopt(t.id)) {
          core_.record(*got.run, 0, t.host, "collected from " + trial_files::in(dir, trial_files::kResult));
          continue;
        }
      }
      if (const std::uint32_t job = trial_files::saved_job(dir)) earlier[job] = t.id;
    }
    return earlier;
  }

  // The channel's events, read and handed to the controller.
  void handle(const ChannelServer::Event& ev) {
    switch (ev.kind) {
      case ChannelServer::Event::Hello: {
        std::uint32_t id = 0;
        if (ev.body.contains("job") && ev.body["job"].is_number_unsigned())
          id = ev.body["job"].get<std::uint32_t>();
        ResultIn got(core_);
        if (const auto m = wire::result_in_hello(ev.body)) wire::deliver(*m, got);
        const std::string host =
            ev.body.contains("host") && ev.body["host"].is_string() ? ev.body["host"].get<std::string>() : "";
        loop_->on_hello(ev.conn, id, host, ev.peer, got.run);
        if (!got.bad.empty()) loop_->on_bad_result(ev.conn, got.bad);
        return;
      }
      case ChannelServer::Event::Closed: return loop_->on_closed(ev.conn);
      case ChannelServer::Event::Message: return message(ev);
    }
  }

  // A job's message, delivered to the controller (a frame of no known kind,
  // or from a connection that is no job's, is dropped).
  void message(const ChannelServer::Event& ev) {
    const auto job = loop_->job_of(ev.conn);
    if (!job) return;
    if (const auto m = wire::from_frame(ev.body)) {
      FromJob inbox{*this, ev.conn, *job};
      wire::deliver(*m, inbox);
    }
  }

  // What one job's message means to the controller.
  struct FromJob : wire::AppCoreInbox {
    FromJob(TrialJobsLoop& l, Conn c, std::uint32_t j) : loop(l), conn(c), job(j) {}
    void ready(const json&) override { loop.loop_->on_ready(conn); }
    void report(std::uint64_t trial, const Report& r) override { loop.loop_->on_report(conn, trial, r); }
    void result(const TrialRun& run) override {
      loop.loop_->on_result(conn, loop.core_.attributed(run, false));
    }
    void bye() override { loop.loop_->on_bye(conn); }
    void malformed(wire::Kind kind, const std::string& why) override {
      if (kind == wire::Kind::Result) return loop.loop_->on_bad_result(conn, why);
      loop.core_.say("closed the connection of job " + std::to_string(job) + ": a malformed " +
                     std::string(wire::kind_name(kind)) + " (" + why + ")");
      loop.server_.close(conn);
    }
    TrialJobsLoop& loop;
    Conn conn;
    std::uint32_t job;
  };

  // A message of the trial vocabulary to a job, as a channel frame.
  void send_to(Conn conn, const wire::Message& m) { server_.send(conn, wire::to_frame(m)); }

  void say_costs() const {
    const Spread start = spread_of(loop_->slurm_start()), bind = spread_of(loop_->binding()),
                 back = spread_of(loop_->result_back());
    if (!bind.n) return;
    char line[400];
    std::snprintf(
        line, sizeof line,
        "trial jobs: %zu submitted; submission to program start median %.2f s, p95 %.2f s (n=%zu); "
        "trial handed out to program start median %.0f ms, p95 %.0f ms; program exit to result recorded "
        "median %.0f ms, p95 %.0f ms (n=%zu)",
        loop_->submitted(), start.median, start.p95, start.n, 1e3 * bind.median, 1e3 * bind.p95,
        1e3 * back.median, 1e3 * back.p95, back.n);
    core_.say(line);
  }

  void write_jobs_file() {
    tune::write_jobs_file(jobs_file_of(options_.history),
                          jobs_file_from(loop_->jobs(), loop_->held(), now_s()));
    changed_ = false;
  }

  AppCore& core_;
  const RunOptions& options_;
  std::string secret_ = random_secret();  // before server_, which is built with it
  ChannelServer server_;
  CoreHost host_;
  std::optional<SlurmQueue> queue_;
  std::optional<TrialJobsController> loop_;
  std::string channel_file_;
  ChannelAddress address_;  // what the channel file says
  ino_t channel_inode_ = 0;
  double poll_every_ = 10, appcore_wait_ = 300;
  bool changed_ = true;
};

}  // namespace

int run_trial_jobs(AppCore& core, const RunOptions& o) {
  TrialJobsLoop loop(core, o);
  return loop.run();
}

}  // namespace tune
