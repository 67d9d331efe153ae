#include "trial_jobs_loop.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "appcore.hpp"
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_json.hpp"
#include "study/text_input.hpp"
#include "study/trial_jobs.hpp"
#include "trial_jobs/channel.hpp"
#include "trial_jobs/slurm_trial_jobs.hpp"

extern char** environ;

namespace tune {

namespace fs = std::filesystem;
using nlohmann::json;

std::string channel_file_of(const std::string& history) {
  return fs::path(history).replace_extension(".channel").string();
}
std::string jobs_file_of(const std::string& history) { return fs::path(history).replace_extension(".jobs").string(); }

namespace {

std::string exe_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "tune" : p.string();
}

struct LiveJob {
  std::uint32_t id = 0;
  TrialJobInfo::State state = TrialJobInfo::State::Pending;
  std::optional<ChannelServer::ConnId> conn;
  std::optional<std::uint64_t> trial;  // handed out, result not yet here
  int given = 0;                       // trials handed to it so far
  bool signalled = false;              // its trial ended by Slurm's signal: settled when the job has ended
  double submitted = 0, bound = 0;     // when it was submitted, when its current trial was handed to it
  bool leaving = false;                // told "stop" or said "bye": it exits once its connection closes
  std::string node, reason;
};

class TrialJobsLoop {
 public:
  TrialJobsLoop(AppCore& core, const RunOptions& o)
      : core_(core), o_(o), server_(secret_, [this](const std::string& m) { core_.say(m); }) {
    spec_.cpus_per_task = o.cpus_per_trial;
    spec_.mem_mb = parse_megabytes(o.mem_per_trial, "--mem-per-trial");
    spec_.gpus_per_node = o.gpus_per_trial;
    spec_.nodes = o.nodes_per_trial;
    spec_.tasks = std::max(o.tasks_per_trial, o.nodes_per_trial);
    // The job outlives its trials by a minute: tune trial-job ends a trial at its limit first.
    if (!o.trial_time_limit.empty())
      spec_.time_limit_s = parse_duration(o.trial_time_limit, "--trial-time-limit") * o.trials_per_job + 60;
    spec_.partition = o.partition;
    spec_.account = o.account;
    spec_.qos = o.qos;
    spec_.constraint = o.constraint;
    spec_.reservation = o.reservation;
    spec_.nice = o.nice;
    poll_every_ = parse_duration(o.slurm_poll, "--slurm-poll");
    appcore_wait_ = parse_duration(o.appcore_wait, "--appcore-wait");
    if (poll_every_ < 1) throw UsageError("--slurm-poll " + o.slurm_poll + " is below 1 s; slurmctld serves everyone");
  }

  int run() {
    listen();
    adopt_earlier_jobs();
    double last_jobs_write = 0;
    for (;;) {
      const double now = now_s();
      Study& study = core_.study();
      core_.check_signals(now);
      study.tick(now);
      core_.tick_progress();
      if (study.stopping()) wind_down(now);
      else submit_jobs();
      for (auto& ev : server_.poll(0.05)) handle(ev);
      if (now - last_lookup_ >= poll_every_ || (lookup_soon_ && now - last_lookup_ >= 1)) look_up();
      if (changed_ && now - last_jobs_write >= 1) {
        write_jobs_file();
        last_jobs_write = now;
      }
      if (study.finished() && busy() == 0) break;
    }
    cancel_all();
    write_jobs_file();
    say_costs();
    std::error_code ec;
    fs::remove(channel_file_, ec);
    return core_.finish();
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
    channel_file_ = channel_file_of(o_.history);
    write_channel_file(channel_file_, a);
    core_.say("trial jobs reach this AppCore at " + a.host + ":" + std::to_string(port) + " (" + channel_file_ + ")");
  }
  // Trials of an earlier AppCore left running: their jobs may still run them.
  void adopt_earlier_jobs() {
    const auto& trials = core_.history().trials();
    std::vector<std::uint32_t> ids;
    std::map<std::uint32_t, std::optional<std::uint64_t>> earlier;  // job -> trial
    // The jobs file of the earlier AppCore lists its pending and running jobs.
    if (std::ifstream in(jobs_file_of(o_.history)); in) {
      const json j = json::parse(in, nullptr, false);
      if (j.is_object() && j.contains("jobs") && j["jobs"].is_array())
        for (const auto& job : j["jobs"])
          if (job.is_object() && job.contains("id") && job["id"].is_number_unsigned())
            earlier[job["id"].get<std::uint32_t>()] = std::nullopt;
    }
    for (const auto& t : trials) {
      if (t.state != TrialState::Running) continue;
      const std::string dir = core_.trial_dir() + "/" + std::to_string(t.id);
      // A result the job wrote while no AppCore listened.
      if (std::ifstream in(dir + "/result.json"); in) {
        const json r = json::parse(in, nullptr, false);
        try {
          TrialRun run = wire::run_from_json(r);
          if (run.trial == t.id && run.start_time >= t.start_time - 1 && core_.study().adopt(t.id)) {
            core_.record(run, 0, t.host, "collected from " + dir + "/result.json");
            continue;
          }
        } catch (const std::exception&) {
        }
      }
      if (std::ifstream in(dir + "/job"); in) {
        std::uint32_t job = 0;
        if (in >> job && job) earlier[job] = t.id;
      }
    }
    if (earlier.empty()) return;
    for (const auto& [id, trial] : earlier) ids.push_back(id);
    std::map<std::uint32_t, TrialJobInfo> info;
    try {
      info = slurm_.look_up(ids);
    } catch (const SlurmError& e) {
      core_.say(std::string(e.what()) + "; the earlier AppCore's trials run again");
      return;
    }
    int adopted = 0;
    for (const auto& [id, trial] : earlier) {
      const TrialJobInfo& i = info[id];
      if (i.state == TrialJobInfo::State::Ended) continue;
      if (trial && !core_.study().adopt(*trial)) continue;
      LiveJob& j = jobs_[id];
      j.id = id;
      j.state = i.state;
      j.trial = trial;
      j.given = trial ? 1 : 0;
      j.node = i.nodes;
      j.reason = i.reason;
      ++adopted;
    }
    if (adopted) core_.say("adopted " + std::to_string(adopted) + " trial job(s) of the earlier AppCore");
    changed_ = true;
  }

  std::size_t busy() const {
    std::size_t n = 0;
    for (const auto& [id, j] : jobs_) n += j.trial.has_value();
    return n;
  }

  void submit_jobs() {
    if (now_s() < submit_after_) return;
    std::uint64_t unclaimed = 0;
    for (const auto& [id, j] : jobs_) unclaimed += static_cast<std::uint64_t>(std::max(0, o_.trials_per_job - j.given));
    int n = trial_jobs_to_submit(o_.parallel, static_cast<int>(jobs_.size()), unclaimed, core_.study().remaining(),
                                 o_.trials_per_job);
    for (; n > 0; --n) {
      TrialJobRequest r;
      r.spec = spec_;
      r.name = core_.history().study().name + ".trial";
      r.comment = format_progress(core_.progress(StudyRole::Trial));
      r.workdir = fs::current_path().string();
      fs::create_directories(core_.trial_dir());
      r.output = fs::absolute(core_.trial_dir()).string() + "/job-%j.out";
      r.script = "#!/bin/sh\n# A trial job of study " + core_.history().study().name +
                 " (tune run --trial-jobs): it asks the study's AppCore for its trial when it starts.\nexec " +
                 shell_quote(exe_path()) + " trial-job --channel " + shell_quote(fs::absolute(channel_file_).string()) +
                 " --trials " + std::to_string(o_.trials_per_job) + " --appcore-wait " +
                 std::to_string(static_cast<long>(appcore_wait_)) + "\n";
      std::vector<std::string> env;
      for (char** e = environ; *e; ++e) env.emplace_back(*e);
      r.environment = trial_job_environment(env, {});
      try {
        const std::uint32_t id = slurm_.submit(r);
        jobs_[id].id = id;
        jobs_[id].submitted = now_s();
        ++submitted_;
        submitted_any_ = true;
        changed_ = true;
      } catch (const SlurmError& e) {
        if (!submitted_any_) {
          core_.say(std::string(e.what()) + "; check --partition, --account, --qos, --constraint, --reservation and the trial's size");
          core_.study().stop(StopReason::Refused);
          return;
        }
        core_.say(std::string(e.what()) + "; trying again in 10 s");
        submit_after_ = now_s() + 10;
        return;
      }
    }
  }

  void handle(const ChannelServer::Event& ev) {
    switch (ev.kind) {
      case ChannelServer::Event::Hello: return hello(ev);
      case ChannelServer::Event::Closed: {
        const auto it = conn_job_.find(ev.conn);
        if (it == conn_job_.end()) return;
        if (auto j = jobs_.find(it->second); j != jobs_.end()) {
          j->second.conn.reset();
          if (j->second.trial) lookup_soon_ = true;  // did the cluster end it?
          // Its process has exited (the job's batch script exec'd it): the
          // job is ending, and its slot can go to a new one now rather than
          // at the next look-up.
          else if (j->second.leaving) jobs_.erase(j), changed_ = true;
        }
        conn_job_.erase(it);
        return;
      }
      case ChannelServer::Event::Message: return message(ev);
    }
  }

  void hello(const ChannelServer::Event& ev) {
    std::uint32_t id = 0;
    if (ev.body.contains("job") && ev.body["job"].is_number_unsigned()) id = ev.body["job"].get<std::uint32_t>();
    auto it = jobs_.find(id);
    if (!id || it == jobs_.end()) {
      core_.say("closed the connection of " + ev.peer + ": job " + std::to_string(id) + " is not a trial job of this study");
      server_.close(ev.conn);
      return;
    }
    LiveJob& j = it->second;
    if (j.conn) server_.close(*j.conn);
    j.conn = ev.conn;
    j.state = TrialJobInfo::State::Running;
    j.node = ev.body.value("host", j.node);
    conn_job_[ev.conn] = id;
    changed_ = true;
    if (ev.body.contains("result")) deliver(j, ev.body["result"]);
  }

  void message(const ChannelServer::Event& ev) {
    const auto cj = conn_job_.find(ev.conn);
    if (cj == conn_job_.end()) return;
    LiveJob& j = jobs_.at(cj->second);
    const auto kind = wire::kind_of(ev.body.value("type", ""));
    if (!kind) return;
    Study& study = core_.study();
    const auto send = [&](wire::Kind k, json body) { send_to(ev.conn, k, std::move(body)); };
    switch (*kind) {
      case wire::Kind::Ready: {
        if (j.trial) return;  // a job asks again while its trial is open: ignore
        std::optional<Trial> t;
        if (j.given < o_.trials_per_job) t = study.next_trial(0, j.node, now_s());
        if (!t) {
          send(wire::Kind::Stop, json::object());
          j.leaving = true;
          return;
        }
        j.trial = t->id;
        j.bound = now_s();
        ++j.given;
        send(wire::Kind::Launch, {{"launch", wire::to_json(core_.launch_for(*t))}});
        changed_ = true;
        return;
      }
      case wire::Kind::Report:
        try {
          if (!j.trial) return;
          if (const auto prune = core_.on_report(ev.body, j.trial)) send(wire::Kind::Prune, {{"trial", *prune}});
        } catch (const std::exception& e) {
          core_.say("closed the connection of job " + std::to_string(j.id) + ": a malformed report (" + e.what() + ")");
          server_.close(ev.conn);
        }
        return;
      case wire::Kind::Result: deliver(j, ev.body.value("result", json())); return;
      case wire::Kind::Bye: j.leaving = true; return;  // its connection closes as it exits
      default: return;  // an AppCore's kind from a job: ignored
    }
  }

  // A message of the trial vocabulary to a job: its kind in "type".
  void send_to(ChannelServer::ConnId conn, wire::Kind kind, json body) {
    body["type"] = wire::kind_name(kind);
    server_.send(conn, body);
  }

  void deliver(LiveJob& j, const json& body) {
    TrialRun run;
    try {
      run = core_.result_of(body, interrupted_);
    } catch (const std::exception& e) {
      core_.say("job " + std::to_string(j.id) + " sent a malformed result (" + e.what() + "); its trial runs again");
      if (j.trial) core_.study().on_lost(*j.trial, TrialState::Interrupted, "a malformed result from its job", now_s());
      j.trial.reset();
      return;
    }
    if (!j.trial || run.trial != *j.trial) return;  // not the trial it holds: stale
    if (run.interrupted && !core_.study().stopping()) {
      // Slurm signalled the job (scancel, a node failure, preemption, its
      // time limit): what to make of it waits for Slurm's word on the job.
      j.signalled = true;
      lookup_soon_ = true;
      return;
    }
    core_.record(run, 0, j.node, "job " + std::to_string(j.id) + " on " + j.node);
    // What the job cost, measured here: Slurm's start, late binding, the result's way back.
    if (run.start_time > 0 && j.bound > 0) {
      if (j.given == 1 && j.submitted > 0) slurm_start_.push_back(run.start_time - j.submitted);
      binding_.push_back(run.start_time - j.bound);
      result_.push_back(now_s() - run.end_time);
    }
    j.trial.reset();
    changed_ = true;
  }

  // Asks slurmctld about this study's jobs (one RPC) and settles those that ended.
  void look_up() {
    last_lookup_ = now_s();
    lookup_soon_ = false;
    if (jobs_.empty()) return;
    std::vector<std::uint32_t> ids;
    for (const auto& [id, j] : jobs_) ids.push_back(id);
    std::map<std::uint32_t, TrialJobInfo> info;
    try {
      info = slurm_.look_up(ids);
      if (slurm_down_) core_.say("slurmctld answers again");
      slurm_down_ = false;
    } catch (const SlurmError& e) {
      if (!slurm_down_) core_.say(std::string(e.what()) + "; trying again in " + o_.slurm_poll + " s");
      slurm_down_ = true;
      return;
    }
    for (auto& [id, i] : info) {
      LiveJob& j = jobs_.at(id);
      if (i.state != TrialJobInfo::State::Ended) {
        if (j.reason != i.reason || j.node != i.nodes || (j.state != i.state && !j.conn)) changed_ = true;
        if (!j.conn) j.state = i.state;
        j.reason = i.reason;
        if (!i.nodes.empty()) j.node = i.nodes;
        continue;
      }
      if (j.conn && !j.signalled) continue;  // still talking: its last words are on the way
      if (j.trial) {
        const LostTrial lost = lost_trial(i.end, id, i.reason);
        core_.say("trial " + std::to_string(*j.trial) + ": " + lost.message);
        core_.study().on_lost(*j.trial, lost.state, lost.message, now_s());
      }
      jobs_.erase(id);
      changed_ = true;
    }
  }

  // The study is stopping: cancel jobs that have no trial; end running
  // trials when the study says so (target, time limit, SIGTERM, --drain over).
  void wind_down(double now) {
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      LiveJob& j = it->second;
      if (j.trial) {
        ++it;
        continue;
      }
      if (j.conn) send_to(*j.conn, wire::Kind::Stop, json::object());
      else if (j.state == TrialJobInfo::State::Pending) slurm_.cancel(j.id);
      else {
        ++it;  // started but not yet connected: it hears "stop" when it asks
        continue;
      }
      if (j.conn) conn_job_.erase(*j.conn);
      it = jobs_.erase(it);
      changed_ = true;
    }
    if (core_.interrupt_running(now) && !interrupted_) {
      interrupted_ = true;
      interrupted_at_ = now;
      for (auto& [id, j] : jobs_)
        if (j.conn && j.trial) send_to(*j.conn, wire::Kind::Interrupt, {{"trial", *j.trial}});
    }
    // A job that does not end its trial within the grace (or cannot hear): scancel.
    if (interrupted_ && now - interrupted_at_ > 30) {
      for (auto& [id, j] : jobs_)
        if (j.trial && slurm_.cancel(id)) {
          core_.study().on_lost(*j.trial, TrialState::Interrupted, "its job " + std::to_string(id) + " was cancelled as the study stopped", now);
          j.trial.reset();
        }
      changed_ = true;
    }
  }

  // No job left behind: cancel what remains, and check slurmctld agrees.
  void cancel_all() {
    for (int round = 0; round < 20; ++round) {
      std::vector<std::uint32_t> ids;
      for (const auto& [id, j] : jobs_) ids.push_back(id);
      for (auto& [id, j] : jobs_)
        if (j.conn) send_to(*j.conn, wire::Kind::Stop, json::object());
      server_.poll(0.2);
      if (ids.empty()) return;
      try {
        for (const auto& [id, i] : slurm_.look_up(ids)) {
          if (i.state == TrialJobInfo::State::Ended) jobs_.erase(id);
          else if (round > 0 || !jobs_.at(id).conn) slurm_.cancel(id);
        }
      } catch (const SlurmError& e) {
        core_.say(std::string(e.what()) + " while cancelling the study's trial jobs");
      }
      changed_ = true;
      if (jobs_.empty()) return;
      server_.poll(0.5);
    }
    std::string left;
    for (const auto& [id, j] : jobs_) left += " " + std::to_string(id);
    core_.say("could not confirm that these trial jobs ended:" + left + " (scancel them if squeue still shows them)");
  }

  void say_costs() const {
    const Spread start = spread_of(slurm_start_), bind = spread_of(binding_), back = spread_of(result_);
    if (!bind.n) return;
    char line[400];
    std::snprintf(line, sizeof line,
                  "trial jobs: %zu submitted; submission to program start median %.2f s, p95 %.2f s (n=%zu); "
                  "trial handed out to program start median %.0f ms, p95 %.0f ms; program exit to result recorded "
                  "median %.0f ms, p95 %.0f ms (n=%zu)",
                  submitted_, start.median, start.p95, start.n, 1e3 * bind.median, 1e3 * bind.p95, 1e3 * back.median,
                  1e3 * back.p95, back.n);
    core_.say(line);
  }

  void write_jobs_file() {
    json list = json::array();
    for (const auto& [id, j] : jobs_) {
      json e = {{"id", id},
                {"state", j.state == TrialJobInfo::State::Pending ? "PENDING" : "RUNNING"},
                {"node", j.node},
                {"reason", j.reason}};
      if (j.trial) e["trial"] = *j.trial;
      list.push_back(e);
    }
    const std::string path = jobs_file_of(o_.history), tmp = path + ".tmp";
    {
      std::ofstream out(tmp);
      out << json{{"updated", now_s()}, {"jobs", list}}.dump() << "\n";
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    changed_ = false;
  }

  AppCore& core_;
  const RunOptions& o_;
  std::string secret_ = random_secret();  // before server_, which is built with it
  ChannelServer server_;
  SlurmTrialJobs slurm_;
  TrialJobSpec spec_;
  std::string channel_file_;
  std::map<std::uint32_t, LiveJob> jobs_;
  std::map<ChannelServer::ConnId, std::uint32_t> conn_job_;
  std::vector<double> slurm_start_, binding_, result_;
  std::size_t submitted_ = 0;
  double poll_every_ = 10, appcore_wait_ = 300, last_lookup_ = 0, submit_after_ = 0, interrupted_at_ = 0;
  bool lookup_soon_ = false, changed_ = true, submitted_any_ = false, slurm_down_ = false,
       interrupted_ = false;
};

}  // namespace

int run_trial_jobs(AppCore& core, const RunOptions& o) {
  TrialJobsLoop loop(core, o);
  return loop.run();
}

}  // namespace tune
