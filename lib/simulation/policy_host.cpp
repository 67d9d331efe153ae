// SPDX-License-Identifier: GPL-2.0-or-later
// What the priority policy (ordering.hpp) sees of the simulated slurmctld:
// the jobs as the plugins copy them out, their Comments, the running jobs it
// charges, the oracles' knowledge, and the levels it reports back.
#include <cmath>

#include "priority/job_facts.hpp"
#include "simulation/sim_engine.hpp"

namespace tune::sim::detail {

bool Sim::plateau_shows(int s, OracleSight sight) const {
  if (!plateaus_[s]) return false;
  if (sight == OracleSight::Fate) return true;
  if (!plateau_best_[s]) return false;  // no result ever: nothing to see
  int seen = 0;
  const auto& replay = studies_[s].replay;
  if (sight == OracleSight::FinalBest || sight == OracleSight::FinalBestLate) {
    int after = -1;  // results since the final best first came
    for (const auto& t : replay.done()) {
      if (t.state != TrialState::Ok || !t.objective) continue;
      if (after >= 0)
        ++after;
      else if (*t.objective == *plateau_best_[s])
        after = 0;
    }
    return after >= (sight == OracleSight::FinalBestLate ? kLateResults : 0);
  }
  if (sight == OracleSight::Results) {
    for (const auto& t : replay.done())
      if (t.state == TrialState::Ok && t.objective && *t.objective == *plateau_best_[s]) ++seen;
  } else {
    const auto& trials = w_.studies[s].trials;
    for (std::size_t t = 0; t < trials.size(); ++t)
      if (replay.started(t) && trials[t].state == TrialState::Ok && trials[t].objective &&
          *trials[t].objective == *plateau_best_[s])
        ++seen;
  }
  return seen >= 2;
}

void Sim::for_each_running(const std::function<void(int, int, int, double&)>& f) {
  for (auto& [j, run] : running_) f(j, cpus_of(run.placement), gpus_of(run.placement), run.charged_until);
}

std::uint32_t Sim::uid_of(int j) const {
  if (job(j).study >= 0) return studies_[job(j).study].uid;
  const auto it = trace_trial_.find(j);
  return it == trace_trial_.end() ? 0 : it->second;
}

std::string Sim::comment_of(int j) const {
  const int s = job(j).study;
  if (s < 0) return trace_trial_.count(j) ? job(j).comment : std::string{};
  if (job(j).kind == SimJob::Kind::Trial) {
    const auto it = trial_comment_.find(j);
    return it == trial_comment_.end() ? std::string{} : it->second;
  }
  return format_progress(studies_[s].replay.progress(
      job(j).kind == SimJob::Kind::AppCore ? StudyRole::AppCore : StudyRole::Study));
}

std::vector<JobView> Sim::views_of(const std::vector<int>& pending) const {
  std::vector<JobView> views;
  views.reserve(pending.size() + running_.size());
  std::vector<std::string> newest(studies_.size());  // each study's record now
  // As the plugins copy a job out of slurmctld (lib/priority/job_facts.hpp):
  // simulated jobs are never held nor set by hand, and wait for nothing else.
  auto view = [&](int j, JobView::State st) {
    JobFacts f;
    f.id = static_cast<std::uint32_t>(j + 1);
    f.account = job(j).account;
    f.accounts_validated = true;  // a trace's accounts are what the site's Slurm recorded
    std::string comment;
    if (trace_trial_.count(j)) {
      f.uid = uid_of(j);
      comment = comment_of(j);
    } else if (const int s = job(j).study; s >= 0) {
      f.uid = studies_[s].uid;
      if (job(j).kind == SimJob::Kind::Trial) {
        comment = comment_of(j);
      } else {
        if (newest[s].empty()) newest[s] = comment_of(j);
        comment = newest[s];
      }
    }
    f.comment = comment;
    f.running = st == JobView::State::Running;
    f.eligible = job(j).submit;
    f.started = res_[j].start;
    f.base_priority = ordering_->base(j);
    if (const double fs = ordering_->terms(j).fairshare; !std::isnan(fs)) f.fairshare = fs;
    const JobShape& s = shapes_[j];
    f.request = {static_cast<double>(s.tasks * s.cpus_per_task), job(j).mem_mb,
                 static_cast<double>(s.total_gpus())};
    views.push_back(job_view(f));
  };
  for (int j : pending) view(j, JobView::State::Pending);
  for (const auto& [j, run] : running_) view(j, JobView::State::Running);
  return views;
}

void Sim::record_levels(const std::map<std::string, StudyState>& levels,
                        const std::vector<LevelChange>& changes) {
  for (std::size_t s = 0; s < studies_.size(); ++s) {
    const std::string id = StudyTracker::study_id(studies_[s].uid, studies_[s].replay.key());
    const auto it = levels.find(id);
    if (it == levels.end()) continue;
    StudyResult& r = study_res_[s];
    level_now_[s] = it->second.yield.level();
    r.max_level = std::max(r.max_level, level_now_[s]);
    if (const auto judged = it->second.yield.trials_judged(); judged != last_judged_[s]) {
      last_judged_[s] = judged;
      ++r.judgements;
    }
    for (const auto& c : changes)
      if (c.study == id && c.judged && c.to > c.from) {
        r.lowered_at.push_back(c.results);
        r.lowered_time.push_back(now_);
      }
  }
}

void Sim::reprioritise() {
  if (!ordering_->reorders()) return;
  std::vector<int> jobs;
  jobs.reserve(pending_.size());
  for (const auto& k : pending_) jobs.push_back(k.idx);
  ordering_->reprioritise(*this, jobs, prio_);
  pending_.clear();
  for (int j : jobs) pending_.insert(key(j));
}

}  // namespace tune::sim::detail
