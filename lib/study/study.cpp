// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "history/direction.hpp"
#include "search/pareto.hpp"
#include "study/front.hpp"
#include "study/warm_start.hpp"

namespace tune {

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::None: return "running";
    case StopReason::TrialsDone: return "all trials done";
    case StopReason::SpaceExhausted: return "search space exhausted";
    case StopReason::TargetReached: return "target reached";
    case StopReason::TimeLimit: return "time limit reached";
    case StopReason::TooManyFailures: return "too many failures";
    case StopReason::Signal: return "interrupted by a signal";
    case StopReason::Refused: return "Slurm refused its trial jobs";
  }
  return "?";
}

bool ended_for_good(StopReason r) {
  return r == StopReason::TargetReached || r == StopReason::TrialsDone || r == StopReason::SpaceExhausted;
}

Study::Study(History& history, Sampler& sampler, StudyLimits limits, double now, Sampler* stand_in)
    : history_(history),
      sampler_(sampler),
      stand_in_(stand_in),
      limits_(limits),
      started_(now),
      pruner_(make_pruner(history.study().pruner)) {
  if (pruner_) {
    // The pruner's memory is the reports: every value of its metric, in order.
    const std::string& metric = history_.study().pruner.metric;
    for (const auto& r : history_.reports())
      if (r.metric == metric && r.step >= 0) (void)pruner_->report(r.trial, r.step, r.value);
  }
  // Warm starts: --trials counts the trials this study runs, not the imported ones.
  const StudyInfo& info = history_.study();
  if (!info.enqueued.empty()) enqueued_ = enqueued_from_json(info.enqueued, info.space);
  first_proposal_ = info.imported + enqueued_.size();
  if (limits_.trials) *limits_.trials += info.imported;
  // The finished trials are replayed in the order they finished, the order
  // the samplers learnt them in, each with the results that had finished
  // when it started (an imported trial: with every one before it). With
  // several runners that is what each trial's proposal knew, give or take
  // a result that came while it was being made.
  std::vector<const Trial*> finished;
  for (const auto& t : history_.trials()) {
    if (is_final(t.state))
      finished.push_back(&t);
    else if (!limits_.trials || t.id < *limits_.trials)
      rerun_.push_back(t.id);  // running when the last run died, or interrupted
  }
  const auto imported = [&](const Trial& t) { return t.id < info.imported; };
  std::stable_sort(finished.begin(), finished.end(), [&](const Trial* a, const Trial* b) {
    return !imported(*b) && (imported(*a) || a->end_time < b->end_time);
  });
  std::vector<double> ends;  // when each result replayed so far finished, in order
  const auto known_at = [&](double start) {
    return static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), start) - ends.begin());
  };
  for (const Trial* t : finished) {
    Observation o = observation(*t);
    if (!imported(*t)) o.known = known_at(t->start_time);
    if (counts_as_result(o))
      ends.push_back(imported(*t) ? -std::numeric_limits<double>::infinity() : t->end_time);
    observe(o);
    if (pruner_) pruner_->finished(t->id, t->state == TrialState::Ok);
    if (t->state == TrialState::Ok) note_ok(*t);
  }
  for (const auto id : rerun_) known_at_start_[id] = known_at(history_.trials()[id].start_time);
  next_id_ = history_.trials().size();
  check_stop_rules();
}

std::optional<std::string> Study::take_sampler_news() {
  if (!sampler_note_changed_) return std::nullopt;
  sampler_note_changed_ = false;
  return sampler_note_;
}

Observation Study::observation(const Trial& t) const {
  const bool ok = t.state == TrialState::Ok;
  return {t.id, t.params, ok ? t.objective : std::nullopt, t.state == TrialState::Pruned,
          ok && history_.study().multi_objective() ? t.values : std::vector<double>{}};
}

std::optional<std::vector<double>> Study::named_values(std::uint64_t trial,
                                                       std::vector<std::string>& missing) const {
  std::vector<double> out;
  const auto it = latest_.find(trial);
  for (const auto& o : history_.study().objectives) {
    if (it == latest_.end() || !it->second.count(o.name)) {
      missing.push_back(o.name);
      continue;
    }
    out.push_back(it->second.at(o.name));
  }
  if (!missing.empty()) return std::nullopt;
  return out;
}

bool Study::meets_targets(const Trial& t) const {
  const auto& objectives = history_.study().objectives;
  if (t.state != TrialState::Ok || t.values.size() != objectives.size() ||
      limits_.targets.size() != objectives.size())
    return false;
  for (std::size_t i = 0; i < objectives.size(); ++i)
    if (!meets_target(objectives[i].minimize, t.values[i], limits_.targets[i])) return false;
  return true;
}

// The worker's proposal refers to the sampler, which outlives the study: wait for it.
Study::~Study() {
  if (job_.valid()) job_.wait();
}

bool Study::counts_as_result(const Observation& o) {
  return o.objective && std::isfinite(*o.objective) && !o.pruned;
}

void Study::observe(Observation o) {
  if (const auto it = known_at_start_.find(o.trial); it != known_at_start_.end()) {
    if (!o.known) o.known = it->second;
    known_at_start_.erase(it);
  }
  if (counts_as_result(o)) ++results_seen_;
  if (stand_in_) stand_in_->observe(o);
  if (job_.valid())
    held_.push_back(o);  // the worker is inside the sampler
  else
    sampler_.observe(o);
}

bool Study::may_propose() const {
  return !exhausted_ && !(limits_.trials && next_id_ + (job_.valid() ? 1 : 0) >= *limits_.trials);
}

std::vector<Assignment> Study::pending() const {
  std::vector<Assignment> out;
  for (const auto& [id, params] : running_) out.push_back(params);
  return out;
}

std::optional<Trial> Study::start_new(std::optional<Assignment> params, Sampler& by, std::size_t known,
                                      int rank, const std::string& host, double now) {
  if (!params) {
    exhausted_ = true;
    check_stop_rules();
    return std::nullopt;
  }
  Trial t;
  t.id = next_id_++;
  t.params = std::move(*params);
  known_at_start_[t.id] = known;
  if (&by == &sampler_) {
    if (auto note = sampler_.note(); note != sampler_note_) {
      sampler_note_ = std::move(note);
      sampler_note_changed_ = true;
    }
  }
  return start(std::move(t), rank, host, now);
}

std::optional<Trial> Study::start(Trial t, int rank, const std::string& host, double now) {
  t.state = TrialState::Running;
  t.objective.reset();
  t.start_time = now;
  t.end_time = 0;
  t.rank = rank;
  t.host = host;
  t.exit_code = -1;
  t.signal = 0;
  t.peak_rss_kb = -1;
  t.last_step = -1;
  t.message.clear();
  history_.put(t);
  running_[t.id] = t.params;
  return t;
}

std::optional<Trial> Study::start_rerun(int rank, const std::string& host, double now) {
  if (rerun_.empty()) return std::nullopt;
  const std::uint64_t id = rerun_.front();
  rerun_.erase(rerun_.begin());
  return start(history_.trials()[id], rank, host, now);
}

std::optional<Trial> Study::next_trial(int rank, const std::string& host, double now) {
  if (job_.valid()) throw std::logic_error("Study::next_trial while offer_trial's proposal is under way");
  tick(now);
  if (stopping()) return std::nullopt;
  if (auto t = start_rerun(rank, host, now)) return t;
  if (!may_propose()) return std::nullopt;
  return start_new(propose(sampler_), sampler_, results_seen_, rank, host, now);
}

std::optional<Assignment> Study::propose(Sampler& by) {
  if (next_id_ < first_proposal_) return enqueued_[next_id_ - history_.study().imported];
  return by.propose(next_id_ - first_proposal_, pending());
}

bool Study::costly_next() const {
  return next_id_ >= first_proposal_ && sampler_.costly(next_id_ - first_proposal_);
}

Study::Offer Study::offer_trial(int rank, const std::string& host, double now) {
  if (!stand_in_ || (!job_.valid() && !costly_next())) return {next_trial(rank, host, now)};
  tick(now);
  if (stopping()) return {};
  if (auto t = start_rerun(rank, host, now)) return {std::move(t)};
  if (!may_propose()) return {};
  if (job_.valid()) {  // the sampler works for another runner: this one need not wait
    ++stand_in_trials_;
    return {start_new(propose(*stand_in_), *stand_in_, results_seen_, rank, host, now)};
  }
  waiting_rank_ = rank;
  waiting_host_ = host;
  job_known_ = results_seen_;
  job_ = std::async(std::launch::async, [this, id = next_id_ - first_proposal_, p = pending()] {
    return sampler_.propose(id, p);
  });
  return {std::nullopt, true};
}

void Study::await_proposal(double seconds) const {
  if (job_.valid()) job_.wait_for(std::chrono::duration<double>(seconds));
}

std::optional<Study::Collected> Study::collect(double now) {
  if (!job_.valid() || job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return std::nullopt;
  auto params = job_.get();  // rethrows what the sampler threw
  for (const auto& o : held_) sampler_.observe(o);
  held_.clear();
  Collected out{waiting_rank_, std::nullopt};
  waiting_rank_ = -1;
  tick(now);
  if (!stopping() && may_propose())
    out.trial = start_new(std::move(params), sampler_, job_known_, out.rank, waiting_host_, now);
  check_stop_rules();
  return out;
}

std::optional<double> Study::pruning_value(const Report& report) const {
  const std::string& metric = history_.study().pruner.metric;
  if (metric == "objective") return report.objective;
  for (const auto& [key, value] : report.metrics)
    if (key == metric) return value;
  return std::nullopt;
}

bool Study::on_report(std::uint64_t trial, const Report& report, double now) {
  if (!running_.count(trial)) return false;  // a late report of a trial already ended
  history_.add_report(trial, report, now);
  for (const auto& o : history_.study().objectives) {
    if (o.name == "objective" && report.objective) latest_[trial][o.name] = *report.objective;
    for (const auto& [key, value] : report.metrics)
      if (key == o.name) latest_[trial][o.name] = value;
  }
  if (!pruner_ || !report.step || prune_reason_.count(trial) || stopping()) return false;
  const auto value = pruning_value(report);
  if (!value) return false;
  auto why = pruner_->report(trial, *report.step, *value);
  if (!why) return false;
  prune_reason_[trial] = std::move(*why);
  return true;
}

const Trial& Study::on_result(const TrialRun& run, int rank, const std::string& host) {
  Trial t = history_.trials().at(run.trial);
  const auto& objectives = history_.study().objectives;
  TrialRun r = run;
  std::vector<std::string> missing;
  std::optional<std::vector<double>> values;
  if (!objectives.empty()) {
    // Named objectives: the last value reported under each name.
    values = named_values(run.trial, missing);
    r.objective = values ? std::optional<double>((*values)[0]) : std::nullopt;
    if (values)
      for (double v : *values)
        if (!std::isfinite(v)) r.objective = v;  // NaN or inf: invalid
  }
  const Outcome o = classify(r);
  t.state = o.state;
  t.objective = o.objective;
  t.message = o.message;
  t.values = t.state == TrialState::Ok && values ? *values : std::vector<double>{};
  if (!missing.empty() && t.state == TrialState::Invalid &&
      o.message.rfind("exited 0 but reported no objective", 0) == 0) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    t.message = "exited 0 but reported no " + names + " (the study's objectives: report each as name=value)" +
                o.message.substr(std::string("exited 0 but reported no objective").size());
  }
  latest_.erase(run.trial);
  t.start_time = run.start_time > 0 ? run.start_time : t.start_time;
  t.end_time = run.end_time;
  t.rank = rank;
  t.host = host;
  t.exit_code = run.exited ? run.exit_code : -1;
  t.signal = run.exited ? 0 : run.signal;
  t.peak_rss_kb = run.peak_rss_kb;
  t.last_step = run.last_step;
  if (t.state == TrialState::Pruned && prune_reason_.count(t.id)) t.message = prune_reason_[t.id];
  prune_reason_.erase(t.id);
  history_.put(t);
  running_.erase(t.id);
  if (t.state == TrialState::Interrupted) {
    if (!stopping()) rerun_.push_back(t.id);
  } else {
    observe(observation(t));
    if (pruner_) pruner_->finished(t.id, t.state == TrialState::Ok);
    if (t.state == TrialState::Ok) {
      consecutive_failures_ = 0;
      note_ok(history_.trials()[t.id]);
    } else if (t.state == TrialState::Pruned) {
      consecutive_failures_ = 0;  // the program works; this trial was just not promising
    } else {
      ++consecutive_failures_;
    }
  }
  check_stop_rules();
  return history_.trials()[t.id];
}

void Study::on_lost(std::uint64_t trial, TrialState state, const std::string& message, double now) {
  if (!running_.count(trial)) return;
  Trial t = history_.trials().at(trial);
  t.state = state;
  t.objective.reset();
  t.message = message;
  t.end_time = now;
  history_.put(t);
  running_.erase(trial);
  prune_reason_.erase(trial);
  latest_.erase(trial);
  if (state == TrialState::Interrupted) {
    if (!stopping()) rerun_.insert(rerun_.begin(), trial);
  } else {
    observe({t.id, t.params, std::nullopt, false});
    if (pruner_) pruner_->finished(t.id, false);
    ++consecutive_failures_;
  }
  check_stop_rules();
}

bool Study::adopt(std::uint64_t trial) {
  const auto it = std::find(rerun_.begin(), rerun_.end(), trial);
  if (it == rerun_.end()) return false;
  rerun_.erase(it);
  running_[trial] = history_.trials().at(trial).params;
  return true;
}

std::optional<std::uint64_t> Study::remaining() const {
  if (stopping()) return 0;
  if (exhausted_) return rerun_.size();
  if (!limits_.trials) return std::nullopt;
  return rerun_.size() + (*limits_.trials > next_id_ ? *limits_.trials - next_id_ : 0);
}

std::vector<std::uint64_t> Study::running_ids() const {
  std::vector<std::uint64_t> out;
  for (const auto& [id, params] : running_) out.push_back(id);
  return out;
}

void Study::check_stop_rules() {
  // A study draining after a signal that reaches its target meanwhile is done
  // for good: it need not be requeued and resumed.
  if (stopping() && reason_ != StopReason::Signal) return;
  if (limits_.target && best_ && limits_.targets.empty()) {
    const double b = *history_.trials()[*best_].objective;
    if (meets_target(history_.study().minimize, b, *limits_.target)) {
      reason_ = StopReason::TargetReached;
      return;
    }
  }
  if (targets_met_) {
    reason_ = StopReason::TargetReached;
    return;
  }
  if (stopping()) return;
  if (limits_.max_failures > 0 && consecutive_failures_ >= limits_.max_failures)
    return stop(StopReason::TooManyFailures);
  if (running_.empty() && rerun_.empty()) {
    if (exhausted_) return stop(StopReason::SpaceExhausted);
    if (limits_.trials && next_id_ >= *limits_.trials) return stop(StopReason::TrialsDone);
  }
}

void Study::stop(StopReason why) {
  if (!stopping()) reason_ = why;
}

void Study::tick(double now) {
  if (limits_.time_limit && now - started_ >= *limits_.time_limit) stop(StopReason::TimeLimit);
  check_stop_rules();
}

bool Study::finished() const {
  if (!running_.empty() || job_.valid()) return false;
  return stopping();
}

std::string Study::stop_message() const {
  std::string m(stop_reason_name(reason_));
  if (reason_ == StopReason::TooManyFailures)
    m += ": the last " + std::to_string(consecutive_failures_) +
         " trials all failed; the program looks broken (see the trial logs and `tune status`; "
         "--max-failures " +
         "changes the limit)";
  return m;
}

std::optional<Trial> Study::best() const {
  if (!best_ || history_.study().multi_objective()) return std::nullopt;
  return history_.trials()[*best_];
}

void Study::note_ok(const Trial& t) {
  if (t.objective &&
      (!best_ || better(history_.study().minimize, *t.objective, *history_.trials()[*best_].objective)))
    best_ = t.id;
  if (!limits_.targets.empty() && meets_targets(t)) targets_met_ = true;
  const StudyInfo& info = history_.study();
  if (!info.multi_objective() || t.values.size() != info.objectives.size()) return;
  // The front changes only by this trial: kept out if a member dominates
  // it, else in, and the members it dominates out.
  auto p = minimisation_form(info, t.values);
  for (const auto& [id, q] : front_)
    if (dominates(q, p)) return;
  std::erase_if(front_, [&](const auto& member) { return dominates(p, member.second); });
  const auto at =
      std::find_if(front_.begin(), front_.end(), [&](const auto& member) { return member.first > t.id; });
  front_.emplace(at, t.id, std::move(p));
}

std::vector<Trial> Study::front() const {
  std::vector<Trial> out;
  out.reserve(front_.size());
  for (const auto& member : front_) out.push_back(history_.trials()[member.first]);
  return out;
}

std::uint64_t Study::count(TrialState s) const {
  std::uint64_t n = 0;
  for (const auto& t : history_.trials()) n += t.state == s;
  return n;
}

}  // namespace tune
