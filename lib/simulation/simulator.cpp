#include "simulation/simulator.hpp"

#include "simulation/ordering.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "adaptive/progress_record.hpp"
#include "priority/scheduling_pass.hpp"
#include "priority/site_factor.hpp"
#include "study/progress.hpp"
#include "study/trial_jobs_loop.hpp"
#include "study/trial_jobs.hpp"

namespace tune::sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Run {
  Placement placement;
  std::multimap<double, int>::iterator expected;  // in by_expected_end_
  double charged_until = 0;                       // classic fair share
};

struct Reservation {
  std::vector<int> nodes;
  double from, to;
};

// A replayed study while the simulation runs.
// Its jobs; which trial comes next and what the results say is its StudyReplay's.
struct StudyRun {
  StudyRun(StudyReplay r, std::uint32_t u) : replay(std::move(r)), uid(u) {}
  StudyReplay replay;
  std::uint32_t uid = 0;
  int appcore = -1, whole = -1;     // its running or pending AppCore / allocation job
  std::set<int> trial_jobs;         // live trial jobs (pending or running)
  int pending_trial_jobs = 0;
  bool stopped = false;             // target met or every trial replayed
  bool draining = false;            // a whole allocation yielding
  double drain_until = 0;
  std::vector<std::pair<double, std::size_t>> slots;  // a whole allocation's running trials: end, trial
};

class Sim : public OrderingHost {
 public:
  Sim(const Cluster& c, const Workload& w, const SimOptions& o)
      : topo_(c.topology),
        w_(w),
        o_(o),
        s_(c.settings),
        policy_(make_placement(o.placement, o.placement_options)),
        plan_policy_(o.placement == "first-fit" ? make_placement("first-fit") : make_placement("cons_tres")),
        spec_(ordering_policy(o.priority)) {
    for (const auto& n : topo_.nodes) max_gpn_ = std::max(max_gpn_, n.gpus()), max_cores_ = std::max(max_cores_, n.cores);
    hist_.assign(max_gpn_ + 1, 0);
    core_hist_.assign(max_cores_ + 1, 0);
    for (int i = 0; i < static_cast<int>(topo_.nodes.size()); ++i) hist_add(i);
    if (c.settings.weight_age > 0 || c.settings.weight_fairshare > 0)
      o_.weight_age = c.settings.weight_age, o_.weight_fairshare = c.settings.weight_fairshare;
    shapes_.reserve(w.jobs.size());
    for (const auto& j : w.jobs) shapes_.push_back(shape_of(j, max_gpn_, o.cpus_per_gpu));
    res_.assign(w.jobs.size(), {});
    prio_.assign(w.jobs.size(), 0);
    if (o.study_mode != "trials" && o.study_mode != "whole")
      throw std::invalid_argument("unknown study mode '" + o.study_mode + "': use trials or whole");
    std::unordered_map<std::string, int> seen;
    for (const auto& j : w.jobs) seen.emplace(j.account, 0);
    n_trace_ = static_cast<int>(w.jobs.size());
    study_res_.resize(w.studies.size());
    last_judged_.assign(w.studies.size(), -1);
    studies_.reserve(w.studies.size());
    for (std::size_t i = 0; i < w.studies.size(); ++i) {
      const SimStudy& st = w.studies[i];
      seen.emplace(st.account, 0);
      // One history may be replayed twice: the index keeps their keys apart.
      studies_.emplace_back(
          StudyReplay(st, study_key(st.name, st.source + "#" + std::to_string(i))),
          1000 + static_cast<std::uint32_t>(std::hash<std::string>{}(st.user.empty() ? st.account : st.user) % 60000));
      study_res_[i].submitted = st.submit;
      study_order_.push_back(static_cast<int>(i));
      // For the oracles: the final best of a study whose trials never meet its target.
      std::optional<double> best;
      bool meets = false;
      for (const auto& t : st.trials) {
        if (t.state != TrialState::Ok || !t.objective) continue;
        meets = meets || meets_target(st, *t.objective);
        if (!best || (st.minimize ? *t.objective < *best : *t.objective > *best)) best = t.objective;
      }
      plateaus_.push_back(!meets);
      plateau_best_.push_back(best);
    }
    std::stable_sort(study_order_.begin(), study_order_.end(),
                     [&](int a, int b) { return w.studies[a].submit < w.studies[b].submit; });
    // The priority policy, by name, with what it needs of the cluster.
    ordering_.emplace(spec_, o.tune, s_, o_.weight_fairshare, o_.weight_age,
                      Resources{static_cast<double>(c.cpus()), c.mem_mb(), static_cast<double>(c.gpus())},
                      c.gpus() > 0 ? static_cast<double>(c.cpus()) / c.gpus() : 0, static_cast<int>(seen.size()));
    for (std::size_t j = 0; j < w.jobs.size(); ++j) ordering_->add_job();
  }

  SimResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    SimResult r;
    r.priority = o_.priority, r.placement = o_.placement;
    const double prio_period = ordering_->period();
    const double sample_every = o_.sample_every > 0 ? o_.sample_every : s_.bf_interval;
    // slurmctld's timers run from its own start, not from the trace's first
    // submission: timer_phase says how far into their periods they are at 0.
    auto first = [&](double period) { return period - std::fmod(o_.timer_phase, period); };
    double next_main = first(s_.sched_interval), next_bf = first(s_.bf_interval), next_prio = first(prio_period);
    double next_sample = 0;
    double next_event_pass = kNever, last_pass = -kNever;  // event-triggered passes wait for batch_sched_delay
    std::size_t next_job = 0, next_study = 0;
    const std::size_t n = w_.jobs.size(), ns = study_order_.size();
    auto advance = [&](double& timer, double period) {
      timer = (std::floor(now_ / period) + 1) * period;
    };
    while (next_job < n || next_study < ns || !pending_.empty() || !running_.empty()) {
      double t = kNever;
      if (next_job < n) t = w_.jobs[next_job].submit;
      if (next_study < ns) t = std::min(t, w_.studies[study_order_[next_study]].submit);
      if (!study_events_.empty()) t = std::min(t, study_events_.top().first);
      if (!ends_.empty()) t = std::min(t, ends_.top().first);
      if (!pending_.empty()) {
        t = std::min({t, next_main, next_prio, next_event_pass});
        if (s_.backfill) t = std::min(t, next_bf);
      }
      if (!pending_.empty() || !running_.empty()) t = std::min(t, next_sample);
      if (t == kNever) break;
      now_ = std::max(now_, t);
      ++r.events;
      bool triggered = false;
      while (!ends_.empty() && ends_.top().first <= now_) {
        const auto [at, j] = ends_.top();
        ends_.pop();
        if (!running_.count(j) || res_[j].end != at) continue;  // ended earlier by its study
        finish(j);
        triggered = true;
      }
      while (!study_events_.empty() && study_events_.top().first <= now_) {
        const int s = study_events_.top().second;
        study_events_.pop();
        study_event(s);
      }
      while (next_job < n && w_.jobs[next_job].submit <= now_) {
        submit(static_cast<int>(next_job++));
        triggered = true;
      }
      while (next_study < ns && w_.studies[study_order_[next_study]].submit <= now_) {
        submit_study(study_order_[next_study++]);
        triggered = true;
      }
      triggered |= study_submitted_;
      study_submitted_ = false;
      if (now_ >= next_prio) {
        if (!pending_.empty()) {
          const auto p0 = std::chrono::steady_clock::now();
          reprioritise();
          r.priority_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
          ++r.priority_passes;
        }
        advance(next_prio, prio_period);
      }
      if (now_ >= next_main) {
        if (!pending_.empty()) main_pass(0), ++r.main_passes;
        advance(next_main, s_.sched_interval);
        last_pass = std::floor(now_);
        next_event_pass = kNever, triggered = false;
      }
      if (triggered && next_event_pass == kNever && !pending_.empty()) {
        // Once time(NULL) is batch_sched_delay past the last pass's second
        // (slurmctld's background loop checks every 0.1 s).
        next_event_pass = std::max(now_, last_pass + s_.batch_sched_delay);
      }
      if (now_ >= next_event_pass) {
        if (!pending_.empty()) main_pass(s_.default_queue_depth), ++r.main_passes;
        last_pass = std::floor(now_);
        next_event_pass = kNever;
      }
      if (s_.backfill && now_ >= next_bf) {
        if (!pending_.empty()) backfill_pass(), ++r.backfill_passes;
        advance(next_bf, s_.bf_interval);
      }
      if (now_ >= next_sample) {
        r.samples.push_back(sample());
        advance(next_sample, sample_every);
      }
    }
    r.jobs = res_;
    r.study_jobs.assign(extra_.begin(), extra_.end());
    r.studies = study_res_;
    count_false_lowerings(r.studies);
    r.study_mode = o_.study_mode;
    r.never_fit = never_fit_;
    r.placement_calls = placement_calls_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  struct Key {
    double prio, submit;
    int idx;
    bool operator<(const Key& o) const {
      if (prio != o.prio) return prio > o.prio;
      if (submit != o.submit) return submit < o.submit;
      return idx < o.idx;
    }
  };
  Key key(int j) const { return {prio_[j], job(j).submit, j}; }

  // --- node bookkeeping: free-GPU histogram for quick "cannot fit" answers ---
  void hist_add(int i) {
    hist_[topo_.nodes[i].free_gpus()]++;
    core_hist_[std::clamp(topo_.nodes[i].free_cores, 0, max_cores_)]++;
    free_cores_ += topo_.nodes[i].free_cores;
  }
  void hist_remove(int i) {
    hist_[topo_.nodes[i].free_gpus()]--;
    core_hist_[std::clamp(topo_.nodes[i].free_cores, 0, max_cores_)]--;
    free_cores_ -= topo_.nodes[i].free_cores;
  }
  void take(int j, const Placement& p) {
    for (const auto& g : p.nodes) hist_remove(g.node);
    apply(topo_, p, shapes_[j]);
    for (const auto& g : p.nodes) hist_add(g.node);
  }
  void give_back(const Placement& p) {
    for (const auto& g : p.nodes) hist_remove(g.node);
    release(topo_, p);
    for (const auto& g : p.nodes) hist_add(g.node);
  }

  // A necessary condition for the job to fit now; the policy decides.
  bool may_fit(int j) const {
    const JobShape& s = shapes_[j];
    if (!s.wants_gpus()) {
      if (s.max_nodes > 0 && s.max_nodes == s.min_nodes) {  // fixed node count: each node must give its share
        const int per_node = s.cpus_per_task * ((s.tasks + s.min_nodes - 1) / s.min_nodes);
        if (per_node > max_cores_) return false;
        int count = 0;
        for (int c = per_node; c <= max_cores_ && count < s.min_nodes; ++c) count += core_hist_[c];
        return count >= s.min_nodes;
      }
      return free_cores_ >= static_cast<long>(s.tasks) * s.cpus_per_task;
    }
    const int per_node = s.gpus_per_node > 0 ? s.gpus_per_node : 1;
    const int nodes = std::max(1, s.min_nodes);
    int count = 0;
    for (int g = std::min(per_node, max_gpn_); g <= max_gpn_; ++g) count += hist_[g];
    return count >= nodes && per_node <= max_gpn_;
  }

  std::optional<Placement> place(int j) {
    if (!may_fit(j)) return std::nullopt;
    ++placement_calls_;
    return policy_->place(topo_, shapes_[j]);
  }

  // --- jobs ----------------------------------------------------------------
  bool ever_fits(int j) { return ever_fits(shapes_[j]); }
  bool ever_fits(const JobShape& s) {
    const auto sig = std::make_tuple(s.min_nodes, s.tasks, s.cpus_per_task, s.gpus_per_node, s.mem_per_node_mb,
                                     s.mem_per_cpu_mb);
    const auto it = fits_cache_.find(sig);
    if (it != fits_cache_.end()) return it->second;
    if (!empty_) {
      empty_ = topo_;
      for (auto& c : empty_->nodes) {
        c.free_cores = c.cores, c.free_mem_mb = c.mem_mb;
        c.gpu_free.assign(c.gpus(), true);
      }
    }
    const bool ok = static_cast<bool>(policy_->place(*empty_, s));
    fits_cache_[sig] = ok;
    return ok;
  }

  bool submit(int j) {
    if (!ever_fits(j)) {
      ++never_fit_;
      return false;
    }
    policy_->observe(shapes_[j]);
    prio_[j] = ordering_->on_submit(*this, j);
    pending_.insert(key(j));
    if (shapes_[j].total_gpus() > 1) ++pending_multi_;
    return true;
  }

  void start(int j, const Placement& p, bool backfilled) {
    take(j, p);
    const SimJob& job = this->job(j);
    // A trial job learns its trial when it starts; an AppCore or a whole
    // study runs until its study says so.
    const double runtime = job.kind == SimJob::Kind::Trial ? bind_trial(j)
                           : job.kind == SimJob::Kind::Trace ? job.runtime
                                                             : kNever;
    JobResult& r = res_[j];
    r.start = now_;
    r.timed_out = runtime > job.time_limit;
    r.end = now_ + std::min(runtime, job.time_limit);
    r.backfilled = backfilled;
    for (const auto& g : p.nodes) r.nodes.push_back(g.node);
    Run run;
    run.placement = p;
    run.expected = by_expected_end_.emplace(now_ + job.time_limit, j);
    run.charged_until = now_;
    running_.emplace(j, std::move(run));
    ends_.emplace(r.end, j);
    busy_gpus_ += shapes_[j].total_gpus() > 0 ? gpus_of(p) : 0;
    busy_cpus_ += cpus_of(p);
    if (shapes_[j].total_gpus() > 1) --pending_multi_;
    if (job.kind == SimJob::Kind::AppCore) {
      // The AppCore submits its first trial jobs once `tune run` is up.
      study_res_[job.study].started = now_;
      study_events_.emplace(now_ + kAppCoreStartup, job.study);
    } else if (job.kind == SimJob::Kind::Study) {
      if (study_res_[job.study].started < 0) study_res_[job.study].started = now_;
      fill_slots(job.study);
    }
  }

  void finish(int j) {
    auto it = running_.find(j);
    ordering_->charge(j, job(j), cpus_of(it->second.placement), gpus_of(it->second.placement), now_,
                      it->second.charged_until);
    give_back(it->second.placement);
    busy_gpus_ -= gpus_of(it->second.placement);
    busy_cpus_ -= cpus_of(it->second.placement);
    by_expected_end_.erase(it->second.expected);
    running_.erase(it);
    if (job(j).kind != SimJob::Kind::Trace) study_job_ended(j);
  }

  static int gpus_of(const Placement& p) {
    int g = 0;
    for (const auto& n : p.nodes) g += n.gpus;
    return g;
  }
  static int cpus_of(const Placement& p) {
    int c = 0;
    for (const auto& n : p.nodes) c += n.cpus;
    return c;
  }

  // --- studies ------------------------------------------------------------------
  int add_job(SimJob sj) {
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

  SimJob study_job(int s, SimJob::Kind kind) const {
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

  void submit_study(int s) {
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

  double bind_trial(int j) {
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

  // One trial's result reaches the study. Returns true when it met its target.
  bool record_result(int s, std::size_t t, bool timed_out) {
    StudyReplay& r = studies_[s].replay;
    const bool met = r.record(t, timed_out, now_);
    StudyResult& res = study_res_[s];
    res.trials = r.results(), res.best = r.best(), res.reached = r.reached();
    return met;
  }

  // Ends a running job now (its study stopped it, or it yields).
  void end_now(int j) {
    if (!running_.count(j) || res_[j].end <= now_) return;
    res_[j].end = now_;
    res_[j].timed_out = false;
    res_[j].ended_by_study = true;
    ends_.emplace(now_, j);
  }

  void cancel_pending(int j) {
    if (res_[j].start >= 0 || res_[j].cancelled) return;
    if (pending_.erase(key(j)) && shapes_[j].total_gpus() > 1) --pending_multi_;
    res_[j].cancelled = true;
  }

  // Target met, every trial replayed, or its AppCore gone: no job of it is left.
  void stop_study(int s) {
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
      if (res_[run.appcore].start < 0) cancel_pending(run.appcore);
      else end_now(run.appcore);
    }
    if (run.whole >= 0) {
      study_res_[s].interrupted += static_cast<int>(run.slots.size());
      run.slots.clear();
      if (res_[run.whole].start < 0) cancel_pending(run.whole);
      else end_now(run.whole);
    }
    if (run.trial_jobs.empty() && run.appcore < 0 && run.whole < 0) study_res_[s].ended = now_;
  }

  // Trial jobs: keep `parallel` live, as the AppCore does.
  void submit_trial_jobs(int s) {
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

  // A whole allocation: hand trials to free slots.
  void fill_slots(int s) {
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

  // A whole study (re)enters the queue with the trials it has left.
  void requeue(int s) {
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

  // sched/tune asked a running job to yield: only a whole study obeys.
  void yield(int j) override {
    if (job(j).kind != SimJob::Kind::Study || !running_.count(j)) return;
    StudyRun& run = studies_[job(j).study];
    if (run.draining || run.stopped) return;
    run.draining = true;
    run.drain_until = now_ + o_.drain;
    ++study_res_[job(j).study].yields;
    study_events_.emplace(now_, job(j).study);
    study_events_.emplace(run.drain_until, job(j).study);
  }

  void study_event(int s) {
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

  void study_job_ended(int j) {
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
        if (record_result(s, t, res_[j].timed_out || trial_timed_out)) stop_study(s);
        else submit_trial_jobs(s);
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
      if (!run.stopped && !run.replay.handed_all()) requeue(s);
      else run.stopped = true;
    }
    if (run.stopped && run.trial_jobs.empty() && run.appcore < 0 && run.whole < 0 && res.ended < 0) res.ended = now_;
  }

  // A lowering at n results was false when the study's best of its results
  // n+1..n+10 (in the order they arrived) beat its best of the first n by
  // more than the first threshold, relative to |best|.
  void count_false_lowerings(std::vector<StudyResult>& out) const {
    const double threshold = o_.tune.adaptive.thresholds.empty() ? 0.01 : o_.tune.adaptive.thresholds.front();
    for (std::size_t s = 0; s < out.size(); ++s) {
      const bool minimize = w_.studies[s].minimize;
      std::vector<double> v;
      for (const auto& t : studies_[s].replay.done())
        if (t.state == TrialState::Ok && t.objective) v.push_back(minimize ? -*t.objective : *t.objective);
      for (const std::int64_t n : out[s].lowered_at) {
        const auto at = static_cast<std::size_t>(std::clamp<std::int64_t>(n, 0, static_cast<std::int64_t>(v.size())));
        if (at == 0 || at >= v.size()) continue;
        const double best = *std::max_element(v.begin(), v.begin() + static_cast<long>(at));
        const double next = *std::max_element(v.begin() + static_cast<long>(at),
                                               v.begin() + static_cast<long>(std::min(v.size(), at + 10)));
        if (next > best + threshold * std::fabs(best)) ++out[s].false_lowerings;
      }
    }
  }

  // --- priorities: what the ordering policy (ordering.hpp) sees ---------------
  bool adaptive() const { return spec_.lowering == Lowering::Tune; }
  double now() const override { return now_; }
  const SimJob& job(int j) const override { return j < n_trace_ ? w_.jobs[j] : extra_[j - n_trace_]; }
  std::uint32_t uid_of(int j) const override { return job(j).study >= 0 ? studies_[job(j).study].uid : 0; }
  // Whether study s never meets its target and, for the evidence oracles,
  // its results so far hold its final best twice.
  bool plateau_shows(int s, bool evidence) const override {
    if (!plateaus_[s]) return false;
    if (!evidence) return true;
    if (!plateau_best_[s]) return false;  // no result ever: nothing to see
    int seen = 0;
    for (const auto& t : studies_[s].replay.done())
      if (t.state == TrialState::Ok && t.objective && *t.objective == *plateau_best_[s]) ++seen;
    return seen >= 2;
  }
  void for_each_running(const std::function<void(int, int, int, double&)>& f) override {
    for (auto& [j, run] : running_) f(j, cpus_of(run.placement), gpus_of(run.placement), run.charged_until);
  }
  // A job's Comment as the plugins read it: a trial job's record from its
  // submission, an AppCore's or whole study's newest.
  std::string comment_of(int j) const override {
    const int s = job(j).study;
    if (s < 0) return {};
    if (job(j).kind == SimJob::Kind::Trial) {
      const auto it = trial_comment_.find(j);
      return it == trial_comment_.end() ? std::string{} : it->second;
    }
    return format_progress(
        studies_[s].replay.progress(job(j).kind == SimJob::Kind::AppCore ? StudyRole::AppCore : StudyRole::Study));
  }

  // Pending then running jobs as the plugins copy them out of slurmctld.
  std::vector<JobView> views_of(const std::vector<int>& pending) const override {
    std::vector<JobView> views;
    views.reserve(pending.size() + running_.size());
    std::vector<std::string> newest(studies_.size());  // each study's record now
    auto view = [&](int j, JobView::State st) {
      JobView v;
      v.id = static_cast<std::uint32_t>(j + 1);
      v.tenant = job(j).account;
      if (const int s = job(j).study; s >= 0) {
        v.uid = studies_[s].uid;
        if (job(j).kind == SimJob::Kind::Trial) {
          v.comment = comment_of(j);
        } else {
          if (newest[s].empty()) newest[s] = comment_of(j);
          v.comment = newest[s];
        }
      }
      v.state = st;
      v.eligible = job(j).submit;
      v.started = res_[j].start;
      v.base_priority = ordering_->base(j);
      const JobShape& s = shapes_[j];
      v.request = {static_cast<double>(s.tasks * s.cpus_per_task), job(j).mem_mb, static_cast<double>(s.total_gpus())};
      views.push_back(std::move(v));
    };
    for (int j : pending) view(j, JobView::State::Pending);
    for (const auto& [j, run] : running_) view(j, JobView::State::Running);
    return views;
  }

  void record_levels(const std::map<std::string, StudyState>& levels, const std::vector<LevelChange>& changes) override {
    for (std::size_t s = 0; s < studies_.size(); ++s) {
      const std::string id = StudyTracker::study_id(studies_[s].uid, studies_[s].replay.key());
      const auto it = levels.find(id);
      if (it == levels.end()) continue;
      StudyResult& r = study_res_[s];
      r.max_level = std::max(r.max_level, it->second.yield.level());
      if (const auto judged = it->second.yield.trials_judged(); judged != last_judged_[s]) {
        last_judged_[s] = judged;
        ++r.judgements;
      }
      for (const auto& c : changes)
        if (c.study == id && c.judged && c.to > c.from) r.lowered_at.push_back(c.results);
    }
  }

  void reprioritise() {
    if (!ordering_->reorders()) return;
    std::vector<int> jobs;
    jobs.reserve(pending_.size());
    for (const auto& k : pending_) jobs.push_back(k.idx);
    ordering_->reprioritise(*this, jobs, prio_);
    pending_.clear();
    for (int j : jobs) pending_.insert(key(j));
  }

  // --- the main scheduler ---------------------------------------------------
  void main_pass(int depth) {
    int looked = 0;
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (depth > 0 && looked++ >= depth) break;
      const int j = it->idx;
      const auto p = place(j);
      if (!p) break;  // the partition is blocked for the rest of this pass
      it = pending_.erase(it);
      start(j, *p, false);
    }
  }

  // --- backfill ---------------------------------------------------------------
  double round_up(double t) const { return std::ceil(t / s_.bf_resolution) * s_.bf_resolution; }

  // The earliest time within bf_window the job can start without touching a
  // reservation, and where; running jobs end at start + time limit.
  std::optional<std::pair<double, Placement>> earliest(int j, const std::vector<Reservation>& resv) {
    const double limit = job(j).time_limit;
    std::vector<double> resv_ends;
    for (const auto& r : resv) resv_ends.push_back(r.to);
    std::sort(resv_ends.begin(), resv_ends.end());
    std::vector<int> released;
    std::optional<std::pair<double, Placement>> found;
    auto it = by_expected_end_.begin();
    std::size_t ri = 0;
    double t = now_;
    std::vector<int> blocked;
    while (true) {
      if (may_fit(j)) {
        for (const auto& r : resv)
          if (r.from < t + limit && t < r.to)
            for (int nd : r.nodes)
              if (topo_.nodes[nd].available) topo_.nodes[nd].available = false, blocked.push_back(nd);
        ++placement_calls_;
        // Starting now, the job's nodes are the policy's (select_p_job_test in
        // SELECT_MODE_RUN_NOW); a later start is planned by cons_tres, since
        // select/cons_tres_gang leaves SELECT_MODE_WILL_RUN to it.
        auto p = (t <= now_ ? *policy_ : *plan_policy_).place(topo_, shapes_[j]);
        for (int nd : blocked) topo_.nodes[nd].available = true;
        blocked.clear();
        if (p) {
          found.emplace(t, std::move(*p));
          break;
        }
      }
      double next = kNever;
      if (it != by_expected_end_.end()) next = std::max(now_, round_up(it->first));
      while (ri < resv_ends.size() && resv_ends[ri] <= t) ++ri;
      if (ri < resv_ends.size()) next = std::min(next, resv_ends[ri]);
      if (next == kNever || next > now_ + s_.bf_window) break;
      while (it != by_expected_end_.end() && std::max(now_, round_up(it->first)) <= next) {
        give_back(running_.at(it->second).placement);
        released.push_back(it->second);
        ++it;
      }
      t = next;
    }
    for (int r : released) take(r, running_.at(r).placement);
    return found;
  }

  void backfill_pass() {
    std::vector<int> order;
    for (const auto& k : pending_) {
      if (static_cast<int>(order.size()) >= s_.bf_max_job_test) break;
      order.push_back(k.idx);
    }
    std::vector<Reservation> resv;
    for (int j : order) {
      auto f = earliest(j, resv);
      if (!f) continue;
      if (f->first <= now_) {
        pending_.erase(key(j));
        start(j, f->second, true);
        continue;
      }
      Reservation r;
      for (const auto& g : f->second.nodes) r.nodes.push_back(g.node);
      r.from = f->first;
      r.to = f->first + job(j).time_limit;
      resv.push_back(std::move(r));
    }
  }

  // --- samples -----------------------------------------------------------------
  Sample sample() const {
    Sample s;
    s.time = now_;
    s.busy_gpus = busy_gpus_;
    s.busy_cpus = busy_cpus_;
    s.pending = static_cast<int>(pending_.size());
    if (pending_multi_ > 0)
      for (const auto& k : pending_) {
        const JobShape& sh = shapes_[k.idx];
        if (sh.total_gpus() <= 1) continue;
        const int need = std::min(max_gpn_, sh.gpus_per_node > 0 ? sh.gpus_per_node : sh.total_gpus());
        double free = 0, stranded = 0;
        for (int g = 1; g <= max_gpn_; ++g) {
          free += static_cast<double>(g) * hist_[g];
          if (g < need) stranded += static_cast<double>(g) * hist_[g];
        }
        s.fragmentation = free > 0 ? stranded / free : 0;
        break;
      }
    return s;
  }

  static constexpr double kAppCoreStartup = 1;  // seconds from an AppCore's start to its first trial jobs

  Topology topo_;
  std::optional<Topology> empty_;
  std::map<std::tuple<int, int, int, int, double, double>, bool> fits_cache_;
  const Workload& w_;
  SimOptions o_;
  SchedulerSettings s_;
  std::unique_ptr<PlacementPolicy> policy_, plan_policy_;
  const OrderingSpec& spec_;           // the priority policy, by name
  std::optional<Ordering> ordering_;   // and what runs it
  std::vector<JobShape> shapes_;
  std::vector<JobResult> res_;
  std::vector<double> prio_;
  std::set<Key> pending_;
  int pending_multi_ = 0;
  std::unordered_map<int, Run> running_;
  std::multimap<double, int> by_expected_end_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> ends_;
  std::vector<int> hist_, core_hist_;  // available nodes by free GPUs, by free cores
  long free_cores_ = 0;
  int max_gpn_ = 0, max_cores_ = 0;
  double busy_gpus_ = 0, busy_cpus_ = 0;
  double now_ = 0;
  long long placement_calls_ = 0;
  int never_fit_ = 0;
  // Studies: their jobs come after the workload's (extra_, indices from n_trace_).
  int n_trace_ = 0;
  std::deque<SimJob> extra_;
  std::vector<StudyRun> studies_;
  std::vector<StudyResult> study_res_;
  std::vector<std::int64_t> last_judged_;  // per study: n of the estimator's last judgement
  std::vector<bool> plateaus_;                        // per study: its trials never meet its target
  std::vector<std::optional<double>> plateau_best_;  // per study: its final best
  std::vector<int> study_order_;  // by submission
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> study_events_;
  std::unordered_map<int, std::size_t> bound_;          // running trial job -> its trial
  std::unordered_set<int> trial_timed_out_;             // trial jobs whose trial outlasts its limit
  std::unordered_map<int, std::string> trial_comment_;  // trial job -> its record at submission
  std::string last_trial_comment_;
  bool study_submitted_ = false;
};

}  // namespace

JobShape shape_of(const SimJob& j, int max_gpus_per_node, int cpus_per_gpu) {
  JobShape s;
  int cpus = j.cpus;
  if (j.gpus > 0 && cpus_per_gpu > 0) cpus = std::max(cpus, j.gpus * cpus_per_gpu);
  if (j.gpus > 0) {
    const int per = std::max(1, max_gpus_per_node);
    const int nodes = j.gpus <= per ? 1 : (j.gpus + per - 1) / per;
    s.min_nodes = s.max_nodes = nodes;
    s.tasks = nodes;
    s.gpus_per_node = nodes == 1 ? j.gpus : per;
    s.cpus_per_task = std::max(1, (cpus + nodes - 1) / nodes);
    s.mem_per_node_mb = j.mem_mb / nodes;
  } else {
    if (j.nodes > 0) {
      s.min_nodes = s.max_nodes = j.nodes;
      s.tasks = j.nodes;
      s.cpus_per_task = std::max(1, (cpus + j.nodes - 1) / j.nodes);
      s.mem_per_node_mb = j.mem_mb / j.nodes;
    } else {
      s.tasks = std::max(1, cpus);
      s.cpus_per_task = 1;
      s.mem_per_cpu_mb = j.mem_mb / std::max(1, cpus);
    }
  }
  return s;
}

SimResult simulate(const Cluster& cluster, const Workload& workload, const SimOptions& options) {
  Sim s(cluster, workload, options);
  return s.run();
}

}  // namespace tune::sim
