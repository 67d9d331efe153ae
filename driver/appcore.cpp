// SPDX-License-Identifier: GPL-2.0-or-later
#include "appcore.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "command/study_flags.hpp"
#include "command/text_input.hpp"
#include "estimators/study_progress.hpp"
#include "report/study_report.hpp"
#include "study/resume_check.hpp"
#include "study/study_opening.hpp"
#include "study/warm_start.hpp"
#include "trial/placeholders.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_dir.hpp"
#include "tune_config.h"
#include "writer_owner.hpp"

namespace tune {

namespace fs = std::filesystem;

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

std::string node_name() {
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return n;
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

TrialLaunch AppCore::launch_for(const Trial& t) {
  if (const auto news = study_->take_sampler_news(); news && !news->empty()) say(*news);
  const StudyInfo& s = history_->study();
  const auto values = values_of(t.params);
  TrialLaunch l;
  l.trial = t.id;
  if (options_.shell) {
    std::vector<std::pair<std::string, std::string>> quoted;
    for (const auto& [k, v] : values) quoted.emplace_back(k, shell_quote(v));
    std::string line;
    for (const auto& w : fill_placeholders(command_, quoted)) line += (line.empty() ? "" : " ") + w;
    l.argv = {"/bin/sh", "-c", line};
  } else {
    l.argv = fill_placeholders(command_, values);
  }
  l.trial_dir = trial_files::dir_of(trial_dir_, t.id);
  nlohmann::json params = nlohmann::json::object();
  for (std::size_t i = 0; i < t.params.size(); ++i)
    if (!is_absent(t.params[i])) params[s.space.parameters()[i].name] = to_json(t.params[i]);
  l.params_json = params.dump(2);
  for (const auto& [k, v] : values) l.env.emplace_back("TUNE_PARAM_" + k, v);
  l.env.emplace_back("TUNE_PARAMS_FILE", trial_files::in(l.trial_dir, trial_files::kParams));
  l.env.emplace_back("TUNE_TRIAL_ID", std::to_string(t.id));
  l.env.emplace_back("TUNE_TRIAL_DIR", l.trial_dir);
  l.checkpoint_dir = checkpoint_dir_of(t.id);
  if (t.from) {
    l.checkpoint_from = checkpoint_dir_of(*t.from);
    l.from_trial = t.from;
  }
  if (t.step_limit) l.env.emplace_back("TUNE_STEP_LIMIT", std::to_string(*t.step_limit));
  l.env.emplace_back("TUNE_STUDY", s.name);
  if (!python_dir_.empty()) {
    const char* old = std::getenv("PYTHONPATH");
    l.env.emplace_back("PYTHONPATH", python_dir_ + (old && *old ? std::string(":") + old : ""));
  }
  l.time_limit = trial_limit_;
  l.grace = grace_;
  l.metric_regex = options_.metric_regex;
  return l;
}

namespace {

// Whether the trial directory takes a small file again (16 KiB, synced,
// removed): nothing when it does, else the fault.
std::optional<StorageFault> probe_storage(const std::string& dir) {
  const std::string path = dir + "/.tune-storage-probe-" + std::to_string(getpid());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int error = fd < 0 ? errno : 0;
  if (fd >= 0) {
    static const std::string block(16384, '\0');
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) || fsync(fd) != 0)
      error = errno ? errno : ENOSPC;
    if (close(fd) != 0 && !error) error = errno;
    unlink(path.c_str());
  }
  if (!error) return std::nullopt;
  return StorageFault{error, dir, "a probe of its room"};
}

}  // namespace

bool AppCore::turn(double now) {
  // The history's own writes the storage refused: the same wait, and the
  // queued writes are its probe.
  if (const auto error = history_->stalled(); error && !study_->storage_waiting()) {
    const StorageFault f{*error, fs::absolute(history_->path()).string(), "the history"};
    study_->storage_fault(f, now);
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", study_->storage().max_wait());
    say(describe(f) + ". The history keeps every trial in memory and writes it once it can; the study " +
        "hands out no trial meanwhile (running trials go on), for at most " + bound + " s (--storage-wait)");
  }
  if (study_->storage_probe_due(now)) {
    auto fault = probe_storage(trial_dir_);
    if (!fault && history_->stalled() && !history_->retry())
      fault = StorageFault{*history_->stalled(), fs::absolute(history_->path()).string(), "the history"};
    if (const auto waited = study_->storage_probed(fault, now)) {
      char took[32];
      std::snprintf(took, sizeof took, "%.0f", *waited);
      say("the storage takes writes again after " + std::string(took) +
          " s; the study goes on (the trials it kept from running first)");
    }
  }
  const bool interrupt = control_->turn({g_stop_requested, g_drain_requested}, now);
  if (const auto news = control_->take_news()) say(*news);
  poster_.tick(now);
  return interrupt;
}

// The progress record sched/tune reads (posted at most every 30 s).
ProgressRecord AppCore::progress(StudyRole role) const {
  StudyGoal goal;
  if (study_) goal = {study_->limits().target, study_->limits().trials};
  ProgressRecord r = progress_of(key_, history_->trials(), history_->study().minimize, goal);
  r.role = role;
  return r;
}

void AppCore::post_progress() {
  poster_.changed(now_s());
}

std::string AppCore::checkpoint_dir_of(std::uint64_t trial) const {
  return trial_files::in(trial_files::dir_of(trial_dir_, trial), trial_files::kCheckpoint);
}

bool AppCore::on_report(std::uint64_t trial, const Report& report) {
  return study_->on_report(trial, report, now_s());
}

TrialRun AppCore::attributed(TrialRun run, bool interrupted) const {
  attribute_to_stop(run, interrupted || g_stop_requested || control_->stop_requested());
  return run;
}

void AppCore::record(const TrialRun& run, int rank, const std::string& host, const std::string& where) {
  const bool waited = study_->storage_waiting();
  const Trial& t = study_->on_result(run, rank, host);
  if (run.output_fault) {  // the trial stands; the storage is waited for as when it keeps one from running
    say("trial " + std::to_string(t.id) + "'s output could not all be kept in " + run.output_fault->path +
        " (its outcome stands)");
    study_->storage_fault(*run.output_fault, now_s());
  }
  if ((run.storage_fault || run.output_fault) && !waited && study_->storage_waiting()) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", study_->storage().max_wait());
    say(describe(run.storage_fault ? *run.storage_fault : *run.output_fault) +
        ". The study hands out no trial until it has room (running trials go " +
        "on), trying again with a growing pause for at most " + bound + " s (--storage-wait)");
  }
  if (!options_.keep_checkpoints) {
    std::vector<std::uint64_t> drop = study_->take_released_checkpoints();
    if (drop_checkpoint_on_result(t.state, false) && !study_->checkpoint_needed(t.id)) drop.push_back(t.id);
    for (const auto id : drop) {
      std::error_code ec;
      fs::remove_all(checkpoint_dir_of(id), ec);
    }
  }
  post_progress();
  if (options_.quiet) return;
  std::ostringstream line;
  line << "trial " << t.id << " " << state_name(t.state);
  const auto& objectives = history_->study().objectives;
  if (!t.values.empty() && history_->study().multi_objective()) {
    line << objective_values(history_->study(), t);
  } else if (t.objective) {
    line << " " << (objectives.empty() ? "objective" : objectives[0].name) << "=" << brief(*t.objective);
  }
  if (!t.message.empty()) line << " (" << t.message << ")";
  char took[32];
  std::snprintf(took, sizeof took, "%.1f", t.wall_time());
  line << " [" << took << " s, " << where << "]";
  if (const auto best = study_->best())
    line << " best=" << brief(*best->objective) << " (trial " << best->id << ")";
  if (history_->study().multi_objective()) line << " front=" << study_->front().size() << " trial(s)";
  say(line.str());
}

int AppCore::finish() {
  const auto& s = *study_;
  std::ostringstream out;
  out << "study '" << history_->study().name << "' " << s.stop_message() << ": ";
  for (int st = 1; st < kTrialStates; ++st) {
    const auto n = s.count(static_cast<TrialState>(st));
    if (n) out << n << " " << state_name(static_cast<TrialState>(st)) << ", ";
  }
  out << history_->trials().size() << " trials in " << options_.history;
  say(out.str());
  if (const auto n = s.stand_in_trials())
    say(std::to_string(n) + " of this run's trials were proposed by " + std::string(study_->stand_in_name()) +
        " while " + history_->study().sampler +
        " was busy proposing for another runner (runners asked faster than its model " +
        "proposes: short trials or many runners)");
  const StudyInfo& info = history_->study();
  if (info.multi_objective()) {
    const auto front = s.front();
    say("Pareto front: " + std::to_string(front.size()) +
        " trial(s) no other trial beats in every objective" +
        (front.size() > 10 ? " (the first 10; tune status and tune report show all)" : std::string()));
    for (std::size_t k = 0; k < front.size() && k < 10; ++k)
      say("  trial " + std::to_string(front[k].id) + objective_values(info, front[k]) +
          parameter_values(info, front[k]));
  }
  if (const auto best = s.best())
    say("best: trial " + std::to_string(best->id) + " objective=" + brief(*best->objective) +
        parameter_values(info, *best));
  const auto reason = s.stop_reason();
  auto at_end = checkpoints_to_drop_at_end(history_->trials(), reason, options_.keep_checkpoints);
  // Those kept for trials to come: none come now.
  if (!options_.keep_checkpoints && ended_for_good(reason))
    for (const auto id : s.kept_checkpoints()) at_end.push_back(id);
  for (const auto id : at_end) {
    std::error_code ec;
    fs::remove_all(checkpoint_dir_of(id), ec);
  }
  poster_.flush(now_s());
  try {
    if (const auto lost = history_->close_ended(ended_for_good(reason) ? s.stop_message() : std::string()))
      say(*lost);
  } catch (const HistoryError& e) {
    if (!storage_errno(e.error())) throw;
    say(describe({e.error(), fs::absolute(history_->path()).string(), "the history"}) + ": " + e.what());
    const RunEnd end = run_end(StopReason::Storage);
    say(end.message);
    return end.exit_code;
  }
  const RunEnd end = run_end(reason);
  if (!end.message.empty()) say(end.message);
  return end.exit_code;
}

void AppCore::say(const std::string& line) const {
  std::cout << "tune: " << line << std::endl;
}

std::vector<std::pair<std::string, std::string>> AppCore::values_of(const Assignment& a) const {
  return values_of(history_->study().space, a);
}

std::vector<std::pair<std::string, std::string>> AppCore::values_of(const SearchSpace& space,
                                                                    const Assignment& a) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& ps = space.parameters();
  for (std::size_t i = 0; i < ps.size() && i < a.size(); ++i)
    if (!is_absent(a[i]))
      out.emplace_back(ps[i].name, to_string(a[i]));  // an inactive parameter does not exist
  return out;
}

}  // namespace tune
