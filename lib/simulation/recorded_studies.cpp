// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/recorded_studies.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>

#include "command/text_input.hpp"
#include "estimators/study_progress.hpp"
#include "history/direction.hpp"
#include "simulation/text.hpp"
#include "simulation/workload.hpp"

namespace tune::sim {
namespace {

double number(const std::string& value, const std::string& key, const std::string& spec, double lo,
              double hi) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
    throw WorkloadError("--study " + spec + ": " + key + "=" + value + " is not a number from " +
                        std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

double duration(const std::string& value, const std::string& key, const std::string& spec) {
  try {
    return parse_duration(value, "--study " + spec + ": " + key);
  } catch (const std::invalid_argument& e) {
    throw WorkloadError(e.what());
  }
}

// The most trials the history had running at once.
int concurrency(const std::vector<Trial>& trials) {
  std::vector<std::pair<double, int>> ev;
  for (const auto& t : trials)
    if (t.end_time > t.start_time && t.start_time > 0)
      ev.push_back({t.start_time, 1}), ev.push_back({t.end_time, -1});
  std::sort(ev.begin(), ev.end());  // an end before a start at the same instant
  int now = 0, most = 0;
  for (const auto& [t, d] : ev) most = std::max(most, now += d);
  return std::max(1, most);
}

}  // namespace

SimStudy study_from_history(const HistorySnapshot& h, const std::string& source) {
  SimStudy s;
  s.name = h.study.name;
  s.source = source;
  s.account = h.study.name.empty() ? "study" : h.study.name;
  s.minimize = h.study.minimize;
  std::vector<Trial> done;
  for (const auto& t : h.trials)
    if (is_final(t.state) && t.end_time >= t.start_time && t.start_time > 0) done.push_back(t);
  std::sort(done.begin(), done.end(), [](const Trial& a, const Trial& b) { return a.id < b.id; });
  for (const auto& t : done) {
    StudyTrial st;
    st.duration = std::max(0.0, t.end_time - t.start_time);
    st.state = t.state;
    if (t.state == TrialState::Ok && t.objective && std::isfinite(*t.objective)) st.objective = t.objective;
    s.trials.push_back(st);
  }
  if (s.trials.empty())
    throw WorkloadError(source +
                        ": the history has no finished trial to replay (run the study first, or pick "
                        "another history)");
  s.parallel = concurrency(done);
  return s;
}

void apply_study_setting(SimStudy& s, const std::string& key, const std::string& value,
                         const std::string& spec) {
  if (key == "target")
    s.target = number(value, key, spec, -1e300, 1e300);
  else if (key == "account" || key == "user") {
    if (value.empty() || value.find_first_of(" \t|,") != std::string::npos)
      throw WorkloadError("--study " + spec + ": " + key +
                          " must be a non-empty name without spaces, '|' or ','");
    (key == "account" ? s.account : s.user) = value;
  } else if (key == "submit")
    s.submit = duration(value, key, spec);
  else if (key == "parallel")
    s.parallel = static_cast<int>(number(value, key, spec, 1, 100000));
  else if (key == "trials-per-job")
    s.trials_per_job = static_cast<int>(number(value, key, spec, 1, 100000));
  else if (key == "cpus")
    s.cpus = static_cast<int>(number(value, key, spec, 1, 1e6));
  else if (key == "gpus")
    s.gpus = static_cast<int>(number(value, key, spec, 0, 1e5));
  else if (key == "mem")
    s.mem_mb = number(value, key, spec, 0, 1e9);
  else if (key == "trial-time-limit") {
    s.trial_time_limit = duration(value, key, spec);
    if (s.trial_time_limit <= 0)
      throw WorkloadError("--study " + spec + ": trial-time-limit must be above 0");
  } else if (key == "time-limit") {
    s.time_limit = s.appcore_time_limit = duration(value, key, spec);
    if (s.time_limit <= 0) throw WorkloadError("--study " + spec + ": time-limit must be above 0");
  } else if (key == "converged" || key == "converged-chance") {
    ConvergenceRule rule = s.converged.value_or(ConvergenceRule{});
    (key == "converged" ? rule.margin : rule.chance) = number(value, key, spec, -1e300, 1e300);
    s.converged = rule;
  } else if (key == "time-scale") {
    const double f = number(value, key, spec, 1e-6, 1e6);
    for (auto& t : s.trials) t.duration *= f;
  } else {
    throw WorkloadError("--study " + spec + ": unknown key '" + key +
                        "': use target, account, user, submit, parallel, trials-per-job, cpus, gpus, mem, "
                        "trial-time-limit, time-limit, time-scale, converged or converged-chance");
  }
}

void check_study_settings(const SimStudy& s, const std::string& spec) {
  if (!s.converged) return;
  if (s.converged->margin == 0)
    throw WorkloadError("--study " + spec + ": converged-chance is for converged: give converged=MARGIN too");
  try {
    check_convergence_rule(*s.converged);
  } catch (const std::invalid_argument& e) {
    std::string why = e.what();  // "--converged: ..." as the flags say it
    if (why.starts_with("--")) why.erase(0, 2);
    throw WorkloadError("--study " + spec + ": " + why);
  }
}

SimStudy read_study(const std::string& spec) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto comma = spec.find(',', start);
    parts.push_back(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const std::string path = trim(parts.front());
  if (path.empty())
    throw WorkloadError("--study " + spec + ": give the history file first: PATH[,key=value...]");
  HistorySnapshot h;
  try {
    h = read_history(path, false);
  } catch (const std::exception& e) {
    throw WorkloadError("--study " + spec + ": cannot read " + path + " as a tune history: " + e.what());
  }
  SimStudy s = study_from_history(h, path);
  // time-scale before trial-time-limit does not matter: the limit is absolute.
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const auto eq = parts[i].find('=');
    if (eq == std::string::npos)
      throw WorkloadError("--study " + spec + ": '" + parts[i] + "' is not key=value");
    apply_study_setting(s, trim(parts[i].substr(0, eq)), trim(parts[i].substr(eq + 1)), spec);
  }
  check_study_settings(s, spec);
  return s;
}

std::optional<std::size_t> StudyReplay::next_trial() {
  if (!again_.empty()) {
    const std::size_t t = again_.back();
    again_.pop_back();
    return t;
  }
  if (next_ < s_->trials.size()) return next_++;
  return std::nullopt;
}

bool StudyReplay::started(std::size_t t) const {
  return t < next_ && std::find(again_.begin(), again_.end(), t) == again_.end();
}

bool StudyReplay::record(std::size_t t, bool timed_out, double now) {
  const StudyTrial& st = s_->trials[t];
  Trial tr;
  tr.id = done_.size();
  tr.state = timed_out ? TrialState::Timeout : st.state;
  tr.end_time = now;  // simulated seconds
  if (!timed_out) tr.objective = st.objective;
  done_.push_back(tr);
  if (tr.state == TrialState::Ok && tr.objective) {
    if (!best_ || better(s_->minimize, *tr.objective, *best_)) best_ = tr.objective;
    if (reached_ < 0 && meets_target(*s_, *tr.objective)) reached_ = now;
  }
  // Judged once per outcome, as Study::on_result judges the live study.
  if (reached_ < 0 && converged_ < 0 && s_->converged) {
    const auto check = convergence_check(progress(StudyRole::Study), *s_->converged);
    if (check && tune::converged(*check, *s_->converged)) converged_ = now;
  }
  return reached_ >= 0 || converged_ >= 0;
}

ProgressRecord StudyReplay::progress(StudyRole role) const {
  ProgressRecord r = progress_of(key_, done_, s_->minimize, {s_->target, s_->trials.size()});
  r.role = role;
  return r;
}

bool meets_target(const SimStudy& s, double best) {
  return s.target && tune::meets_target(s.minimize, best, *s.target);
}

std::optional<double> alone_time_to_target(const SimStudy& s) {
  if (!s.target) return std::nullopt;
  // Slots free at these times; each trial goes to the earliest.
  std::priority_queue<double, std::vector<double>, std::greater<>> slots;
  for (int i = 0; i < s.parallel; ++i) slots.push(s.submit);
  std::optional<double> first;
  for (const auto& t : s.trials) {
    const double from = slots.top();
    slots.pop();
    // Trials that end after the target was met are never started in reality:
    // handing-out stops there, but earlier-started ones may still meet it.
    if (first && from >= *first) break;
    const double end = from + t.duration;
    slots.push(end);
    if (t.objective && meets_target(s, *t.objective) && (!first || end < *first)) first = end;
  }
  if (!first) return std::nullopt;
  return *first - s.submit;
}

}  // namespace tune::sim
