#include "run_command.hpp"

#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "history/history.hpp"
#include "mpi_runner/messages.hpp"
#include "mpi_runner/runner.hpp"
#include "mpi_runner/trial_process.hpp"
#include "progress_post.hpp"
#include "search/sampler.hpp"
#include "study/gpu_share.hpp"
#include "study/study.hpp"
#include "study/text_input.hpp"
#include "tune_config.h"

namespace tune {
namespace {

namespace fs = std::filesystem;

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void on_stop_signal(int) { g_stop_requested = true; }
void on_drain_signal(int) { g_drain_requested = true; }

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGTERM, SIGINT}) sigaction(s, &sa, nullptr);
  sa.sa_handler = on_drain_signal;
  sigaction(SIGUSR1, &sa, nullptr);
}

// A user error: the message names the input and the fix.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string node_name() {
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return n;
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
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
    throw UsageError("runner " + std::to_string(local_index + 1) + " on " + host + " needs " +
                     std::to_string(gpus_per_trial) + " GPU(s) but the node gave this job " +
                     std::to_string(all.size()) + " (" + (src ? src : "none") +
                     "); ask Slurm for --gres=gpu:<runners per node x --gpus-per-trial>, or fewer runners per node");
  std::string out;
  for (const auto& g : *share) out += (out.empty() ? "" : ",") + g;
  return out;
}

// Where trials find tune_report.py: beside this build, or where make install put it.
std::string python_client_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& dir : {exe.parent_path() / ".." / "client" / "python", fs::path(TUNE_PKGDATADIR) / "python"})
    if (fs::exists(dir / "tune_report.py", ec)) return fs::canonical(dir, ec).string();
  return "";
}

// The program's path, looked up on PATH once (not by every trial), so that a
// typo fails the study at once instead of every trial.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) != 0)
      throw UsageError("the program " + name + " is not an executable file: " + std::strerror(errno));
    return name;
  }
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  throw UsageError("the program '" + name + "' is not on PATH; give its path (./" + name + " if it is here)");
}

class AppCore {
 public:
  AppCore(const RunOptions& o, int world_size) : o_(o), world_size_(world_size) {}

  // Opens or creates the history and the study; throws UsageError/HistoryError.
  void open() {
    const bool exists = fs::exists(o_.history);
    if (o_.resume) {
      history_.emplace(History::resume(o_.history));
      check_resume_flags(history_->study());
    } else {
      if (exists)
        throw UsageError(o_.history + " already holds a study; continue it with --resume, or give another --history");
      history_.emplace(History::create(o_.history, new_study()));
    }
    const StudyInfo& s = history_->study();
    command_ = o_.command.empty() ? split_command(o_.program) : o_.command;
    if (command_.empty()) command_ = split_command(s.command);
    if (command_.empty()) throw UsageError("no program to tune: give it after -- or with --program");
    if (!o_.shell) command_[0] = resolve_program(command_[0]);
    sampler_ = make_sampler(s.sampler, s.space, {.seed = s.seed, .grid_points = s.grid_points, .minimize = s.minimize});
    StudyLimits limits;
    limits.trials = o_.trials;
    if (!o_.time_limit.empty()) limits.time_limit = parse_duration(o_.time_limit, "--time-limit");
    limits.target = o_.target;
    limits.max_failures = o_.max_failures;
    trial_limit_ = o_.trial_time_limit.empty() ? 0 : parse_duration(o_.trial_time_limit, "--trial-time-limit");
    grace_ = parse_duration(o_.grace, "--grace");
    drain_ = parse_duration(o_.drain, "--drain");
    trial_dir_ = !o_.trial_dir.empty() ? o_.trial_dir : fs::path(o_.history).replace_extension(".trials").string();
    // Every placeholder must name a parameter: fail now, not in every trial.
    fill_placeholders(command_, values_of(*sampler_->propose(0, {})));
    study_.emplace(*history_, *sampler_, limits, now_s());
    key_ = study_key(s.name, o_.history);
    post_progress();
    if (history_->recovered())
      say("recovered " + o_.history + " after an unclean stop (the old file is kept as " + o_.history +
          ".before-recovery)");
    say("study '" + s.name + "': " + s.sampler + " search over " + std::to_string(s.space.dimensions()) +
        " parameter(s), " + (s.pruner.rule != "none" ? s.pruner.rule + " pruning on " + s.pruner.metric + ", " : "") + (o_.trials ? std::to_string(*o_.trials) + " trials" : std::string("no trial limit")) +
        ", " + std::to_string(std::max(1, world_size_ - 1)) + " runner(s); history " + o_.history +
        (history_->trials().empty() ? "" : " (" + std::to_string(history_->trials().size()) + " trials so far)"));
  }

  Study& study() { return *study_; }

  TrialLaunch launch_for(const Trial& t) const {
    const StudyInfo& s = history_->study();
    const auto values = values_of(t.params);
    TrialLaunch l;
    l.trial = t.id;
    if (o_.shell) {
      std::vector<std::pair<std::string, std::string>> quoted;
      for (const auto& [k, v] : values) quoted.emplace_back(k, shell_quote(v));
      std::string line;
      for (const auto& w : fill_placeholders(command_, quoted)) line += (line.empty() ? "" : " ") + w;
      l.argv = {"/bin/sh", "-c", line};
    } else {
      l.argv = fill_placeholders(command_, values);
    }
    l.trial_dir = trial_dir_ + "/" + std::to_string(t.id);
    nlohmann::json params = nlohmann::json::object();
    for (std::size_t i = 0; i < t.params.size(); ++i) params[s.space.parameters()[i].name] = to_json(t.params[i]);
    l.params_json = params.dump(2);
    for (const auto& [k, v] : values) l.env.emplace_back("TUNE_PARAM_" + k, v);
    l.env.emplace_back("TUNE_PARAMS_FILE", fs::absolute(l.trial_dir + "/params.json").string());
    l.env.emplace_back("TUNE_TRIAL_ID", std::to_string(t.id));
    l.env.emplace_back("TUNE_TRIAL_DIR", fs::absolute(l.trial_dir).string());
    l.env.emplace_back("TUNE_STUDY", s.name);
    if (!python_dir_.empty()) {
      const char* old = std::getenv("PYTHONPATH");
      l.env.emplace_back("PYTHONPATH", python_dir_ + (old && *old ? std::string(":") + old : ""));
    }
    l.time_limit = trial_limit_;
    l.grace = grace_;
    l.metric_regex = o_.metric_regex;
    return l;
  }

  // Signals: SIGTERM/SIGINT end running trials now; SIGUSR1 stops handing
  // out trials and lets the running ones finish for --drain first.
  void check_signals(double now) {
    if (g_stop_requested || g_drain_requested) study_->stop(StopReason::Signal);
    if (g_drain_requested && drain_started_ < 0) {
      drain_started_ = now;
      say("SIGUSR1: no new trials; running trials may finish within " + o_.drain + " s");
    }
  }
  // Whether running trials must end now (not merely stop being handed out).
  bool interrupt_running(double now) const {
    if (!study_->stopping()) return false;
    if (g_stop_requested || study_->stop_reason() != StopReason::Signal) return true;
    return drain_started_ >= 0 && now - drain_started_ >= drain_;
  }

  // The progress record sched/tune reads (posted at most every 30 s).
  void post_progress() { poster_.update(progress_of(key_, history_->trials(), history_->study().minimize), now_s()); }
  void tick_progress() { poster_.tick(now_s()); }

  void record(const TrialRun& run, int rank, const std::string& host) {
    const Trial& t = study_->on_result(run, rank, host);
    post_progress();
    if (o_.quiet) return;
    std::ostringstream line;
    line << "trial " << t.id << " " << state_name(t.state);
    if (t.objective) line << " objective=" << to_string(ParamValue{*t.objective});
    if (!t.message.empty()) line << " (" << t.message << ")";
    char took[32];
    std::snprintf(took, sizeof took, "%.1f", t.wall_time());
    line << " [" << took << " s, rank " << rank << " on " << host << "]";
    if (const auto best = study_->best()) line << " best=" << to_string(ParamValue{*best->objective}) << " (trial " << best->id << ")";
    say(line.str());
  }

  int finish() {
    const auto& s = *study_;
    std::ostringstream out;
    out << "study '" << history_->study().name << "' " << s.stop_message() << ": ";
    for (int st = 1; st < kTrialStates; ++st) {
      const auto n = s.count(static_cast<TrialState>(st));
      if (n) out << n << " " << state_name(static_cast<TrialState>(st)) << ", ";
    }
    out << history_->trials().size() << " trials in " << o_.history;
    say(out.str());
    if (const auto best = s.best()) {
      std::ostringstream b;
      b << "best: trial " << best->id << " objective=" << to_string(ParamValue{*best->objective});
      const auto& ps = history_->study().space.parameters();
      for (std::size_t i = 0; i < ps.size(); ++i) b << " " << ps[i].name << "=" << to_string(best->params[i]);
      say(b.str());
    }
    poster_.flush(now_s());
    history_->close();
    switch (s.stop_reason()) {
      case StopReason::Signal: say("interrupted: run again with --resume to continue"); return kExitInterrupted;
      case StopReason::TooManyFailures: return kExitBrokenProgram;
      default: return kExitOk;
    }
  }

  void say(const std::string& line) const { std::cout << "tune: " << line << std::endl; }

 private:
  std::vector<std::pair<std::string, std::string>> values_of(const Assignment& a) const {
    std::vector<std::pair<std::string, std::string>> out;
    const auto& ps = history_->study().space.parameters();
    for (std::size_t i = 0; i < ps.size() && i < a.size(); ++i) out.emplace_back(ps[i].name, to_string(a[i]));
    return out;
  }

  StudyInfo new_study() const {
    if (o_.space_file.empty()) throw UsageError("--space FILE is required for a new study");
    std::ifstream in(o_.space_file);
    if (!in) throw UsageError("--space " + o_.space_file + ": cannot read the file");
    std::stringstream text;
    text << in.rdbuf();
    StudyInfo s;
    s.space = SearchSpace::parse(text.str(), o_.space_file);
    s.name = !o_.name.empty() ? o_.name : fs::path(o_.history).stem().string();
    s.sampler = o_.algo;
    s.seed = o_.seed.value_or(static_cast<std::uint64_t>(std::time(nullptr)) ^ (static_cast<std::uint64_t>(getpid()) << 32));
    s.grid_points = o_.grid_points;
    s.minimize = o_.direction == "min";
    s.pruner = o_.prune;
    s.pruner.minimize = s.minimize;
    try {
      s.pruner.validate();
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    const auto words = o_.command.empty() ? split_command(o_.program) : o_.command;
    for (const auto& w : words) s.command += (s.command.empty() ? "" : " ") + shell_quote(w);
    if (o_.shell) s.command = "/bin/sh -c " + shell_quote(s.command);
    s.program_version = o_.program_version;
    s.created = iso_now();
    s.tune_version = PACKAGE_VERSION;
    // A bad sampler name or grid fails here, before a file exists.
    (void)make_sampler(s.sampler, s.space, {.seed = s.seed, .grid_points = s.grid_points, .minimize = s.minimize});
    return s;
  }

  void check_resume_flags(const StudyInfo& s) const {
    if (!o_.space_file.empty()) {
      std::ifstream in(o_.space_file);
      std::stringstream text;
      text << in.rdbuf();
      if (SearchSpace::parse(text.str(), o_.space_file).to_json() != s.space.to_json())
        throw UsageError("--space " + o_.space_file + " differs from the space of the study in " + o_.history +
                         "; drop --space to continue that study, or start a new study in another --history");
    }
    PrunerOptions given = o_.prune;
    given.minimize = s.minimize;  // the direction is checked below, on its own
    if (o_.prune.rule != "none" && given.to_json() != s.pruner.to_json())
      throw UsageError("the --prune settings differ from the study in " + o_.history + " (" + s.pruner.to_json().dump() +
                       "); drop them to continue with the study's own");
    if ((o_.direction == "min") != s.minimize)
      throw UsageError("--direction " + o_.direction + " differs from the study in " + o_.history + " (" +
                       (s.minimize ? "min" : "max") + ")");
  }

  const RunOptions& o_;
  int world_size_;
  std::optional<History> history_;
  std::unique_ptr<Sampler> sampler_;
  std::optional<Study> study_;
  std::vector<std::string> command_;
  std::string trial_dir_;
  double trial_limit_ = 0, grace_ = 10, drain_ = 60, drain_started_ = -1;
  std::string key_;
  ProgressPoster poster_;
  std::string python_dir_ = python_client_dir();
};

// One process: rank 0 runs the trials itself, one after another.
int run_local(AppCore& core) {
  Study& study = core.study();
  const std::string host = node_name();
  while (!study.finished()) {
    core.check_signals(now_s());
    const auto trial = study.next_trial(0, host, now_s());
    if (!trial) continue;  // stopping: finished() turns true
    const TrialLaunch launch = core.launch_for(*trial);
    bool pruned = false;
    TrialRun run = TrialProcess::run(
        launch, [&](const Report& r) { pruned = study.on_report(trial->id, r, now_s()) || pruned; },
        [&] {
          const double now = now_s();
          study.tick(now);
          core.check_signals(now);
          core.tick_progress();
          return pruned || core.interrupt_running(now);
        });
    attribute_to_stop(run, core.interrupt_running(now_s()));
    attribute_to_prune(run, pruned);
    core.record(run, 0, host);
  }
  return core.finish();
}

// Rank 0 with runners: late binding, never blocking on one runner.
int run_appcore(AppCore& core, int world_size) {
  Study& study = core.study();
  std::map<int, std::uint64_t> busy;         // rank -> trial
  std::map<int, std::string> hosts;          // rank -> node
  int active = world_size - 1;
  bool interrupted_busy = false;
  wire::Backoff backoff;
  while (active > 0) {
    const double now = now_s();
    core.check_signals(now);
    study.tick(now);
    core.tick_progress();
    if (core.interrupt_running(now) && !interrupted_busy) {
      for (const auto& [rank, id] : busy) wire::send(rank, wire::Interrupt, {{"trial", id}});
      interrupted_busy = true;
    }
    auto msg = wire::poll(MPI_ANY_SOURCE, MPI_ANY_TAG);
    if (!msg) {
      backoff.wait();
      continue;
    }
    backoff.reset();
    const int rank = msg->source;
    switch (msg->tag) {
      case wire::Ready: {
        hosts[rank] = msg->body.value("host", "?");
        // Slurm and mpirun signal every rank; one that heard it means the job is stopping.
        if (msg->body.value("stopping", false)) study.stop(StopReason::Signal);
        const auto trial = study.next_trial(rank, hosts[rank], now_s());
        if (trial) {
          wire::send(rank, wire::Launch, wire::to_json(core.launch_for(*trial)));
          busy[rank] = trial->id;
        } else {
          wire::send(rank, wire::Stop, nlohmann::json::object());
          --active;
        }
        break;
      }
      case wire::Report: {
        const auto trial = msg->body.at("trial").get<std::uint64_t>();
        if (study.on_report(trial, wire::report_from_json(msg->body), now_s()))
          wire::send(rank, wire::Prune, {{"trial", trial}});
        break;
      }
      case wire::Result: {
        TrialRun run = wire::run_from_json(msg->body);
        attribute_to_stop(run, interrupted_busy || g_stop_requested);
        busy.erase(rank);
        core.record(run, rank, hosts[rank]);
        break;
      }
      default: break;
    }
  }
  return core.finish();
}

bool started_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

}  // namespace

int run_study(const RunOptions& o) {
  install_signal_handlers();
  int rank = 0, size = 1;
  const bool mpi = started_by_mpi();
  if (mpi) {
    MPI_Init(nullptr, nullptr);
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
    if (rank == 0) std::cerr << "tune run: error: runners lack GPUs (see above); nothing was run" << std::endl;
    if (mpi) MPI_Finalize();
    return kExitUsage;
  }
  int code = kExitOk;
  try {
    if (rank > 0) {
      code = run_runner({rank, host, gpus});
    } else {
      AppCore core(o, size);
      try {
        core.open();
      } catch (const std::exception& e) {
        // Bad input: say so, release the runners waiting for work, end cleanly.
        std::cerr << "tune run: error: " << e.what() << std::endl;
        for (int r = 1; r < size; ++r) wire::send(r, wire::Stop, nlohmann::json::object());
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
