// Tuning studies meeting the simulated cluster, as tune run meets the real
// one: an AppCore job and late-bound trial jobs (with the AppCore's
// time-limit rule from lib/study/trial_jobs_loop), or one allocation per
// study that yields, drains and is requeued when the policy asks.
#include "simulation/sim_engine.hpp"

namespace tune::sim::detail {

int Sim::add_job(SimJob sj) {
  const int j = n_trace_ + static_cast<int>(extra_.size());
  shapes_.push_back(shape_of(sj, max_gpn_, o_.cpus_per_gpu));
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
    // A trial job's limit by the AppCore's own rule (lib/study/trial_jobs_loop):
    // its trial's limit plus a minute, so that the trial is ended first.
    j.time_limit = kind == SimJob::Kind::Trial ? trial_job_time_limit(st.trial_time_limit, 1) : st.time_limit;
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
  if (o_.study_mode == "trials") {
    run.appcore = add_job(study_job(s, SimJob::Kind::AppCore));
    // A trial job the cluster can never hold: the study cannot run at all.
    const bool fits = ever_fits(shape_of(study_job(s, SimJob::Kind::Trial), max_gpn_, o_.cpus_per_gpu));
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

double Sim::bind_trial(int j) {
  const int s = job(j).study;
  StudyRun& run = studies_[s];
  --run.pending_trial_jobs;
  const auto t = run.stopped ? std::nullopt : run.replay.next_trial();
  if (!t) return 0;  // nothing left: the trial job ends at once, as it does when told "stop"
  bound_[j] = *t;
  // tune trial-job ends a trial at its time limit (SIGTERM, grace), before the job's.
  const double duration = w_.studies[s].trials[*t].duration, limit = w_.studies[s].trial_time_limit;
  if (duration > limit) trial_timed_out_.insert(j);
  return std::min(duration, limit);
}

bool Sim::record_result(int s, std::size_t t, bool timed_out) {
  StudyReplay& r = studies_[s].replay;
  const bool met = r.record(t, timed_out, now_);
  StudyResult& res = study_res_[s];
  res.trials = r.results(), res.best = r.best(), res.reached = r.reached();
  return met;
}

void Sim::end_now(int j) {
  if (!running_.count(j) || res_[j].end <= now_) return;
  res_[j].end = now_;
  res_[j].timed_out = false;
  res_[j].ended_by_study = true;
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
    } else if (bound_.count(j)) {
      ++study_res_[s].interrupted;
      end_now(j);
    } else {
      end_now(j);
    }
  }
  run.pending_trial_jobs = 0;
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

void Sim::submit_trial_jobs(int s) {
  StudyRun& run = studies_[s];
  if (run.stopped || run.appcore < 0 || res_[run.appcore].start < 0) return;
  const std::uint64_t remaining = run.replay.remaining();
  int n = trial_jobs_to_submit(w_.studies[s].parallel, static_cast<int>(run.trial_jobs.size()),
                               static_cast<std::uint64_t>(run.pending_trial_jobs), remaining, 1);
  if (n > 0 && adaptive()) last_trial_comment_ = format_progress(run.replay.progress(StudyRole::Trial));
  for (; n > 0; --n) {
    const int j = add_job(study_job(s, SimJob::Kind::Trial));
    if (adaptive()) trial_comment_[j] = last_trial_comment_;
    if (!submit(j)) {
      res_[j].cancelled = true;
      stop_study(s);
      return;
    }
    run.trial_jobs.insert(j);
    ++run.pending_trial_jobs;
  }
  if (run.trial_jobs.empty() && remaining == 0) stop_study(s);
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
  run.drain_until = now_ + o_.drain;
  ++study_res_[job(j).study].yields;
  study_events_.emplace(now_, job(j).study);
  study_events_.emplace(run.drain_until, job(j).study);
}

void Sim::study_event(int s) {
  StudyRun& run = studies_[s];
  if (run.stopped) return;
  if (o_.study_mode == "trials") {  // the AppCore is up
    submit_trial_jobs(s);
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
    const bool trial_timed_out = trial_timed_out_.erase(j) > 0;
    const auto b = bound_.find(j);
    if (b != bound_.end() && !res_[j].ended_by_study) {
      const std::size_t t = b->second;
      bound_.erase(b);
      if (record_result(s, t, res_[j].timed_out || trial_timed_out))
        stop_study(s);
      else
        submit_trial_jobs(s);
    } else {
      if (b != bound_.end()) bound_.erase(b);
      if (!run.stopped) submit_trial_jobs(s);
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

void Sim::count_false_lowerings(std::vector<StudyResult>& out) const {
  const double threshold = o_.tune.adaptive.thresholds.empty() ? 0.01 : o_.tune.adaptive.thresholds.front();
  for (std::size_t s = 0; s < out.size(); ++s) {
    const bool minimize = w_.studies[s].minimize;
    std::vector<double> v;
    for (const auto& t : studies_[s].replay.done())
      if (t.state == TrialState::Ok && t.objective) v.push_back(minimize ? -*t.objective : *t.objective);
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

}  // namespace tune::sim::detail
