// SPDX-License-Identifier: GPL-2.0-or-later
// Tuning studies meeting the simulated cluster, as tune run meets the real
// one: an AppCore job and late-bound trial jobs, with the AppCore's own
// TrialJobsController (lib/trial_jobs/trial_jobs_controller) deciding what to submit,
// hand out, interrupt and cancel; or one allocation per study that yields,
// drains and is requeued when the policy asks.
#include "simulation/sim_engine.hpp"

namespace tune::sim::detail {

int Sim::add_job(SimJob sj) {
  const int j = n_trace_ + static_cast<int>(extra_.size());
  shapes_.push_back(shape_of(sj, max_gpn_, options_.cpus_per_gpu));
  extra_.push_back(std::move(sj));
  res_.emplace_back();
  prio_.push_back(0);
  ordering_->add_job();
  ++study_res_[extra_.back().study].jobs;
  study_submitted_ = true;
  return j;
}

SimJob Sim::study_job(int s, SimJob::Kind kind) const {
  const SimStudy& st = w_.studies[s];
  SimJob j;
  j.kind = kind;
  j.study = s;
  j.account = st.account;
  j.user = st.user;
  j.submit = now_;
  const int k = kind == SimJob::Kind::Study ? st.parallel : 1;
  if (kind == SimJob::Kind::AppCore) {
    j.name = st.name + ".appcore";
    j.cpus = 1, j.gpus = 0, j.mem_mb = 0, j.time_limit = st.appcore_time_limit;
  } else {
    j.name = st.name + (kind == SimJob::Kind::Trial ? ".trial" : "");
    j.cpus = k * st.cpus, j.gpus = k * st.gpus, j.mem_mb = k * st.mem_mb;
    // A trial job's limit by the AppCore's own rule (lib/trial_jobs/trial_jobs_controller):
    // its trials' limits plus a minute, so that a trial is ended first.
    j.time_limit = kind == SimJob::Kind::Trial ? trial_job_time_limit(st.trial_time_limit, st.trials_per_job)
                                               : st.time_limit;
  }
  return j;
}

void Sim::submit_study(int s) {
  StudyRun& run = studies_[s];
  if (run.replay.handed_all()) {  // a study with no trials
    run.stopped = true;
    study_res_[s].ended = now_;
    return;
  }
  if (options_.study_mode == "trials") {
    run.appcore = add_job(study_job(s, SimJob::Kind::AppCore));
    // A trial job the cluster can never hold: the study cannot run at all.
    const bool fits = ever_fits(shape_of(study_job(s, SimJob::Kind::Trial), max_gpn_, options_.cpus_per_gpu));
    if (!fits || !submit(run.appcore)) {
      res_[run.appcore].cancelled = true;
      run.appcore = -1;
      run.stopped = true;
      ++never_fit_;
      study_res_[s].ended = now_;
    }
  } else {
    requeue(s);
  }
}

bool Sim::record_result(int s, std::size_t t, bool timed_out) {
  StudyReplay& r = studies_[s].replay;
  const bool met = r.record(t, timed_out, now_);
  StudyResult& res = study_res_[s];
  res.trials = r.results(), res.best = r.best(), res.reached = r.reached(), res.converged = r.converged();
  return met;
}

void Sim::end_now(int j, bool by_study) {
  if (!running_.count(j) || res_[j].end <= now_) return;
  res_[j].end = now_;
  res_[j].timed_out = false;
  res_[j].ended_by_study = by_study;
  ends_.emplace(now_, j);
}

void Sim::cancel_pending(int j) {
  if (res_[j].start >= 0 || res_[j].cancelled) return;
  if (pending_.erase(key(j)) && shapes_[j].total_gpus() > 1) --pending_multi_;
  res_[j].cancelled = true;
}

void Sim::stop_study(int s) {
  StudyRun& run = studies_[s];
  run.stopped = true;
  for (int j : std::vector<int>(run.trial_jobs.begin(), run.trial_jobs.end())) {
    if (res_[j].start < 0) {
      cancel_pending(j);
      run.trial_jobs.erase(j);
    } else {
      if (bound_.erase(j)) ++study_res_[s].interrupted;
      end_now(j);
    }
  }
  if (run.appcore >= 0) {
    if (res_[run.appcore].start < 0)
      cancel_pending(run.appcore);
    else
      end_now(run.appcore);
  }
  if (run.whole >= 0) {
    study_res_[s].interrupted += static_cast<int>(run.slots.size());
    run.slots.clear();
    if (res_[run.whole].start < 0)
      cancel_pending(run.whole);
    else
      end_now(run.whole);
  }
  if (run.trial_jobs.empty() && run.appcore < 0 && run.whole < 0) study_res_[s].ended = now_;
}

void Sim::drive(int s) {
  StudyRun& run = studies_[s];
  if (!run.core || run.stopped) return;
  TrialJobsController& loop = run.core->controller;
  loop.tick();
  if (loop.done()) {  // tune run exits: its AppCore job ends (study_job_ended notes the study's end)
    run.stopped = true;
    end_now(run.appcore);
    return;
  }
  if (const auto at = loop.due()) study_events_.emplace(std::max(now_, *at), s);
}

void Sim::trial_job_started(int j) {
  StudyRun& run = studies_[job(j).study];
  if (!run.core || run.stopped) {  // its AppCore is gone: nobody to connect to
    end_now(j, false);
    return;
  }
  const auto c = static_cast<JobLinks::Conn>(j);
  const std::string& node = res_[j].nodes.empty() ? std::string() : topo_.nodes[res_[j].nodes.front()].name;
  run.core->controller.on_hello(c, static_cast<std::uint32_t>(j + 1), node, node, std::nullopt);
  run.core->controller.on_ready(c);
  // Its AppCore's turn comes with the event, outside the scheduler's pass.
  study_events_.emplace(now_, job(j).study);
}

void Sim::trial_ended(int j) {
  const auto b = bound_.find(j);
  const BoundTrial bt = b->second;
  bound_.erase(b);
  StudyRun& run = studies_[job(j).study];
  if (!run.core || run.stopped) return;
  TrialRun r;
  r.trial = bt.trial;
  r.timed_out = bt.timed_out;
  r.interrupted = bt.interrupted;
  r.exited = !bt.timed_out && !bt.interrupted;
  r.exit_code = r.exited ? 0 : -1;
  r.signal = r.exited ? 0 : 15;
  r.start_time = bt.start, r.end_time = now_;
  r.time_limit = w_.studies[job(j).study].trial_time_limit;
  const auto c = static_cast<JobLinks::Conn>(j);
  run.core->controller.on_result(c, r);
  // tune trial-job asks for its next trial (or hears "stop") at once.
  if (running_.count(j) && res_[j].end > now_) run.core->controller.on_ready(c);
  drive(job(j).study);
}

void Sim::fill_slots(int s) {
  StudyRun& run = studies_[s];
  while (!run.stopped && !run.draining && static_cast<int>(run.slots.size()) < w_.studies[s].parallel) {
    const auto t = run.replay.next_trial();
    if (!t) break;
    const double end = now_ + w_.studies[s].trials[*t].duration;
    run.slots.push_back({end, *t});
    study_events_.emplace(end, s);
  }
  if (run.slots.empty()) stop_study(s);  // every trial replayed
}

void Sim::requeue(int s) {
  StudyRun& run = studies_[s];
  run.draining = false;
  run.whole = add_job(study_job(s, SimJob::Kind::Study));
  if (!submit(run.whole)) {
    res_[run.whole].cancelled = true;
    run.whole = -1;
    run.stopped = true;
    study_res_[s].ended = now_;
  }
}

void Sim::yield(int j) {
  if (job(j).kind != SimJob::Kind::Study || !running_.count(j)) return;
  StudyRun& run = studies_[job(j).study];
  if (run.draining || run.stopped) return;
  run.draining = true;
  run.drain_until = now_ + options_.drain;
  ++study_res_[job(j).study].yields;
  study_events_.emplace(now_, job(j).study);
  study_events_.emplace(run.drain_until, job(j).study);
}

void Sim::study_event(int s) {
  StudyRun& run = studies_[s];
  if (run.stopped) return;
  if (options_.study_mode == "trials") {  // the AppCore's turn
    drive(s);
    return;
  }
  if (run.whole < 0 || res_[run.whole].start < 0 || !running_.count(run.whole)) return;
  for (auto it = run.slots.begin(); it != run.slots.end();) {
    if (it->first > now_) {
      ++it;
      continue;
    }
    const std::size_t t = it->second;
    it = run.slots.erase(it);
    if (record_result(s, t, false)) {
      stop_study(s);
      return;
    }
  }
  if (!run.draining) {
    fill_slots(s);
  } else if (run.slots.empty() || now_ >= run.drain_until) {
    end_now(run.whole);  // drained: study_job_ended() requeues it
  }
}

void Sim::study_job_ended(int j) {
  const SimJob& jb = job(j);
  const int s = jb.study;
  StudyRun& run = studies_[s];
  StudyResult& res = study_res_[s];
  if (jb.kind == SimJob::Kind::Trial) {
    run.trial_jobs.erase(j);
    bound_.erase(j);  // a trial it still held is lost: its AppCore learns so from Slurm
    cut_.erase(j);
    if (run.core && !run.stopped) {
      run.core->controller.on_closed(static_cast<JobLinks::Conn>(j));
      drive(s);
    }
  } else if (jb.kind == SimJob::Kind::AppCore) {
    run.appcore = -1;
    if (!run.stopped) {  // killed at its time limit: the study ends with it
      res.killed = true;
      stop_study(s);
    }
  } else {  // a whole allocation: yielded, drained, killed at its limit, or done
    run.whole = -1;
    for (const auto& [end, t] : run.slots) run.replay.hand_back(t), ++res.interrupted;
    run.slots.clear();
    if (!run.stopped && !run.replay.handed_all())
      requeue(s);
    else
      run.stopped = true;
  }
  if (run.stopped && run.trial_jobs.empty() && run.appcore < 0 && run.whole < 0 && res.ended < 0)
    res.ended = now_;
}

void Sim::judge_lowerings(std::vector<StudyResult>& out) const {
  const double threshold =
      options_.tune.adaptive.thresholds.empty() ? 0.01 : options_.tune.adaptive.thresholds.front();
  for (std::size_t s = 0; s < out.size(); ++s) {
    const bool minimize = w_.studies[s].minimize;
    std::vector<double> v, at_time;
    for (const auto& t : studies_[s].replay.done())
      if (t.state == TrialState::Ok && t.objective) {
        v.push_back(minimize ? -*t.objective : *t.objective);
        at_time.push_back(t.end_time);
      }
    if (!v.empty()) {
      const auto last = std::max_element(v.begin(), v.end()) - v.begin();
      out[s].last_improvement = last + 1;
      out[s].last_improvement_time = at_time[static_cast<std::size_t>(last)];
    }
    for (const std::int64_t n : out[s].lowered_at) {
      const auto at =
          static_cast<std::size_t>(std::clamp<std::int64_t>(n, 0, static_cast<std::int64_t>(v.size())));
      if (at == 0 || at >= v.size()) continue;
      const double best = *std::max_element(v.begin(), v.begin() + static_cast<long>(at));
      const double next = *std::max_element(v.begin() + static_cast<long>(at),
                                            v.begin() + static_cast<long>(std::min(v.size(), at + 10)));
      if (next > best + threshold * std::fabs(best)) ++out[s].false_lowerings;
    }
  }
}

// --- the AppCore's side -------------------------------------------------------

double ReplayHost::now() const {
  return sim_.now_;
}

void ReplayHost::record(const TrialRun& run, const std::string&, const std::string&) {
  --running_;
  if (run.interrupted) {  // the study stopped it: no result
    ++sim_.study_res_[s_].interrupted;
    return;
  }
  if (sim_.record_result(s_, run.trial, run.timed_out) && reason_ == StopReason::None)
    reason_ = sim_.study_res_[s_].reached >= 0 ? StopReason::TargetReached : StopReason::Converged;
}

std::string ReplayHost::trial_comment() {
  return format_progress(sim_.studies_[s_].replay.progress(StudyRole::Trial));
}

bool ReplayHost::stopping() const {
  return reason_ != StopReason::None || (sim_.studies_[s_].replay.handed_all() && running_ == 0);
}

std::optional<std::uint64_t> ReplayHost::remaining() const {
  return sim_.studies_[s_].replay.remaining();
}

std::optional<Trial> ReplayHost::next_trial(const std::string& node, double now) {
  if (reason_ != StopReason::None) return std::nullopt;
  const auto t = sim_.studies_[s_].replay.next_trial();
  if (!t) return std::nullopt;
  ++running_;
  Trial tr;
  tr.id = *t;
  tr.host = node;
  tr.start_time = now;
  return tr;
}

void ReplayHost::on_lost(std::uint64_t trial, TrialState state, const std::string&, double) {
  --running_;
  if (state == TrialState::Interrupted) {  // runs again
    sim_.studies_[s_].replay.hand_back(trial);
    ++sim_.study_res_[s_].interrupted;
  } else if (sim_.record_result(s_, trial, true) && reason_ == StopReason::None) {
    // the job's time limit was the trial's: no objective, but an outcome
    // that may leave the study converged
    reason_ = StopReason::Converged;
  }
}

// --- the cluster's side -------------------------------------------------------

std::uint32_t SimTrialJobs::submit(const std::string& comment) {
  const int j = sim_.add_job(sim_.study_job(s_, SimJob::Kind::Trial));
  if (sim_.adaptive()) sim_.trial_comment_[j] = comment;
  if (!sim_.submit(j)) {
    sim_.res_[j].cancelled = true;
    throw JobQueueError(
        "sbatch: error: Batch job submission failed: Requested node configuration is not available");
  }
  sim_.studies_[s_].trial_jobs.insert(j);
  return static_cast<std::uint32_t>(j + 1);
}

std::map<std::uint32_t, TrialJobInfo> SimTrialJobs::look_up(const std::vector<std::uint32_t>& ids) {
  std::map<std::uint32_t, TrialJobInfo> out;
  for (const std::uint32_t id : ids) {
    const int j = static_cast<int>(id) - 1;
    TrialJobInfo& i = out[id];
    const JobResult& r = sim_.res_[j];
    if (r.cancelled) {
      i.state = TrialJobInfo::State::Ended, i.end = JobEnd::Cancelled;
    } else if (r.start < 0) {
      i.state = TrialJobInfo::State::Pending, i.reason = "Priority";
    } else if (sim_.running_.count(j)) {
      i.state = TrialJobInfo::State::Running;
      if (!r.nodes.empty()) i.nodes = sim_.topo_.nodes[r.nodes.front()].name;
    } else {
      i.state = TrialJobInfo::State::Ended, i.end = r.timed_out ? JobEnd::Timeout : JobEnd::Completed;
    }
  }
  return out;
}

bool SimTrialJobs::cancel(std::uint32_t id) {
  const int j = static_cast<int>(id) - 1;
  if (sim_.res_[j].start < 0 && !sim_.res_[j].cancelled) {
    sim_.cancel_pending(j);
    sim_.studies_[s_].trial_jobs.erase(j);
    return true;
  }
  if (!sim_.running_.count(j)) return false;
  sim_.end_now(j);
  return true;
}

void SimTrialJobs::launch(Conn c, const Trial& t) {
  const int j = static_cast<int>(c);
  const SimStudy& st = sim_.w_.studies[s_];
  const double duration = st.trials[t.id].duration;
  // tune trial-job ends a trial at its time limit (SIGTERM, grace), before the job's.
  BoundTrial b;
  b.trial = t.id;
  b.start = sim_.now_;
  b.end = sim_.now_ + std::min(duration, st.trial_time_limit);
  b.timed_out = duration > st.trial_time_limit;
  sim_.bound_[j] = b;
  sim_.trial_ends_.emplace(b.end, j);
}

void SimTrialJobs::stop(Conn c) {
  const int j = static_cast<int>(c);
  sim_.end_now(j, sim_.cut_.count(j) > 0);
}

void SimTrialJobs::interrupt(Conn c, std::uint64_t) {
  const int j = static_cast<int>(c);
  const auto b = sim_.bound_.find(j);
  if (b == sim_.bound_.end()) return;
  b->second.end = sim_.now_;
  b->second.interrupted = true;
  b->second.timed_out = false;
  sim_.cut_.insert(j);
  sim_.trial_ends_.emplace(sim_.now_, j);
}

}  // namespace tune::sim::detail
