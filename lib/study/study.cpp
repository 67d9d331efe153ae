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

Study::Study(History& history, Sampler& sampler, StudyLimits limits, double now, Sampler* stand_in)
    : history_(history),
      sampler_(sampler),
      stand_in_(stand_in),
      worker_(sampler),
      limits_(limits),
      started_(now),
      answer_(history, limits.targets),
      pruner_(make_pruner(history.study().pruner)),
      storage_(limits.storage_wait) {
  // Warm starts: --trials counts the trials this study runs, not the imported ones.
  const StudyInfo& info = history_.study();
  if (!info.enqueued.empty()) enqueued_ = enqueued_from_json(info.enqueued, info.space);
  first_proposal_ = info.imported + enqueued_.size();
  if (limits_.trials) *limits_.trials += info.imported;
  // The sampler's own trials first, with their lineage (a population's
  // members), then the pruner's and the sampler's memory of running trials,
  // the reports: every value of the metric, in order.
  for (const auto& t : history_.trials())
    if (t.id >= first_proposal_) {
      const Lineage l{t.from, t.member, t.step_limit};
      sampler_.proposed(t.id, t.params, l);
      if (stand_in_) stand_in_->proposed(t.id, t.params, l);
    }
  const std::string& metric = progress_metric();
  for (const auto& r : history_.reports()) {
    if (r.metric != metric || r.step < 0) continue;
    if (pruner_) (void)pruner_->report(r.trial, r.step, r.value);
    if (r.trial < history_.trials().size()) {
      const Progress p{r.trial, r.step, r.value, history_.trials()[r.trial].params};
      worker_.observe_progress(p);
      if (stand_in_) stand_in_->observe_progress(p);
    }
  }
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
    if (t->state == TrialState::Ok) answer_.note_ok(*t);
  }
  for (const auto id : rerun_) known_at_start_[id] = known_at(history_.trials()[id].start_time);
  for (const Trial* t : finished)
    if (sampler_.needs_checkpoint(t->id)) kept_checkpoints_.insert(t->id);
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
  worker_.observe(o);
}

bool Study::may_propose() const {
  return !exhausted_ && !(limits_.trials && next_id_ + (worker_.busy() ? 1 : 0) >= *limits_.trials);
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
  if (t.id >= first_proposal_) {
    Lineage l = by.lineage(t.id - first_proposal_);
    if (l.from && *l.from >= t.id) l.from.reset();  // a lineage runs back in time
    t.from = l.from;
    t.member = l.member;
    t.step_limit = l.step_limit;
    sampler_.proposed(t.id, t.params, l);
    if (stand_in_) stand_in_->proposed(t.id, t.params, l);
  }
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
  if (worker_.busy()) throw std::logic_error("Study::next_trial while offer_trial's proposal is under way");
  tick(now);
  if (stopping() || storage_.waiting()) return std::nullopt;
  if (auto t = start_rerun(rank, host, now)) return t;
  if (!may_propose() || sampler_waits()) return std::nullopt;
  return start_new(propose(sampler_), sampler_, results_seen_, rank, host, now);
}

bool Study::sampler_waits() const {
  return !worker_.busy() && next_id_ >= first_proposal_ && sampler_.waiting();
}

bool Study::holding() const {
  if (storage_.waiting()) return true;
  return !stopping() && rerun_.empty() && may_propose() && sampler_waits();
}

std::optional<Assignment> Study::propose(Sampler& by) {
  if (next_id_ < first_proposal_) return enqueued_[next_id_ - history_.study().imported];
  return by.propose(next_id_ - first_proposal_, pending());
}

bool Study::costly_next() const {
  return next_id_ >= first_proposal_ && sampler_.costly(next_id_ - first_proposal_);
}

Study::Offer Study::offer_trial(int rank, const std::string& host, double now) {
  tick(now);
  if (!stopping() && holding()) return {std::nullopt, false, true};
  if (!stand_in_ || (!worker_.busy() && !costly_next())) return {next_trial(rank, host, now)};
  tick(now);
  if (stopping()) return {};
  if (auto t = start_rerun(rank, host, now)) return {std::move(t)};
  if (!may_propose()) return {};
  if (worker_.busy()) {  // the sampler works for another runner: this one need not wait
    ++stand_in_trials_;
    return {start_new(propose(*stand_in_), *stand_in_, results_seen_, rank, host, now)};
  }
  worker_.start(next_id_ - first_proposal_, pending(), rank, host, results_seen_);
  return {std::nullopt, true};
}

void Study::await_proposal(double seconds) const {
  worker_.wait_for(seconds);
}

std::optional<Study::Collected> Study::collect(double now) {
  auto done = worker_.take();  // rethrows what the sampler threw
  if (!done) return std::nullopt;
  Collected out{done->rank, std::nullopt};
  tick(now);
  if (!stopping() && may_propose())
    out.trial = start_new(std::move(done->params), sampler_, done->known, out.rank, done->host, now);
  check_stop_rules();
  return out;
}

const std::string& Study::progress_metric() const {
  static const std::string objective = "objective";
  const std::string& metric = history_.study().pruner.metric;
  return metric.empty() ? objective : metric;
}

std::optional<double> Study::pruning_value(const Report& report) const {
  const std::string& metric = progress_metric();
  if (metric == "objective") return report.objective;
  for (const auto& [key, value] : report.metrics)
    if (key == metric) return value;
  return std::nullopt;
}

bool Study::on_report(std::uint64_t trial, const Report& report, double now) {
  const auto running = running_.find(trial);
  if (running == running_.end()) return false;  // a late report of a trial already ended
  history_.add_report(trial, report, now);
  answer_.note_report(trial, report);
  if (!report.step) return false;
  const auto value = pruning_value(report);
  if (value) {
    const Progress p{trial, *report.step, *value, running->second};
    worker_.observe_progress(p);
    if (stand_in_) stand_in_->observe_progress(p);
  }
  if (prune_reason_.count(trial) || stopping()) return false;
  if (past_step_limit(trial, *report.step)) return true;
  if (!pruner_ || !value) return false;
  auto why = pruner_->report(trial, *report.step, *value);
  if (!why) return false;
  prune_reason_[trial] = std::move(*why);
  return true;
}

bool Study::past_step_limit(std::uint64_t trial, std::int64_t step) {
  const auto& limit = history_.trials()[trial].step_limit;
  if (!limit || step <= *limit) return false;
  // Its segment's steps are done (Lineage::step_limit): the checkpoint of
  // step `limit` was written before this step's report.
  prune_reason_[trial] =
      "trained to step " + std::to_string(*limit) + ", its segment's end (TUNE_STEP_LIMIT)";
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
    values = answer_.take_values(run.trial, missing);
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
  answer_.forget(run.trial);
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
    if (run.storage_fault) {  // first again once the storage has room
      storage_.fault(*run.storage_fault, std::max(run.end_time, run.start_time));
      if (!stopping()) rerun_.insert(rerun_.begin(), t.id);
    } else if (!stopping()) {
      rerun_.push_back(t.id);
    }
  } else {
    ++outcomes_;
    observe(observation(t));
    if (pruner_) pruner_->finished(t.id, t.state == TrialState::Ok);
    if (t.state == TrialState::Ok) {
      consecutive_failures_ = 0;
      answer_.note_ok(history_.trials()[t.id]);
    } else if (t.state == TrialState::Pruned) {
      consecutive_failures_ = 0;  // the program works; this trial was just not promising
    } else {
      ++consecutive_failures_;
    }
  }
  check_stop_rules();
  return history_.trials()[t.id];
}

bool Study::checkpoint_needed(std::uint64_t trial) {
  // While the worker is inside the sampler, ask again later (take_released_checkpoints).
  if (!worker_.busy() && !sampler_.needs_checkpoint(trial)) return false;
  kept_checkpoints_.insert(trial);
  return true;
}

std::vector<std::uint64_t> Study::take_released_checkpoints() {
  std::vector<std::uint64_t> out;
  if (worker_.busy()) return out;
  for (auto it = kept_checkpoints_.begin(); it != kept_checkpoints_.end();) {
    if (sampler_.needs_checkpoint(*it)) {
      ++it;
    } else {
      out.push_back(*it);
      it = kept_checkpoints_.erase(it);
    }
  }
  return out;
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
  answer_.forget(trial);
  if (state == TrialState::Interrupted) {
    if (!stopping()) rerun_.insert(rerun_.begin(), trial);
  } else {
    ++outcomes_;
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

std::optional<Trial> Study::best() const {
  if (!answer_.best() || history_.study().multi_objective()) return std::nullopt;
  return history_.trials()[*answer_.best()];
}

std::vector<Trial> Study::front() const {
  std::vector<Trial> out;
  out.reserve(answer_.front().size());
  for (const auto& member : answer_.front()) out.push_back(history_.trials()[member.first]);
  return out;
}

std::uint64_t Study::count(TrialState s) const {
  std::uint64_t n = 0;
  for (const auto& t : history_.trials()) n += t.state == s;
  return n;
}

}  // namespace tune
