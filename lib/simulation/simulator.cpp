// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/direction.hpp"
#include "simulation/sim_engine.hpp"

namespace tune::sim {
namespace detail {
namespace {

// A user's (or account's) uid in a replay: stable, above the system range.
std::uint32_t uid_for(const std::string& who) {
  return 1000 + static_cast<std::uint32_t>(std::hash<std::string>{}(who) % 60000);
}

}  // namespace

Sim::Sim(const Cluster& c, const Workload& w, const SimOptions& o)
    : topo_(c.topology),
      w_(w),
      options_(o),
      s_(c.settings),
      policy_(make_placement(o.placement, o.placement_options)),
      plan_policy_(o.placement == "first-fit" ? make_placement("first-fit") : make_placement("cons_tres")),
      spec_(ordering_policy(o.priority)) {
  for (const auto& n : topo_.nodes)
    max_gpn_ = std::max(max_gpn_, n.gpus()), max_cores_ = std::max(max_cores_, n.cores);
  hist_.assign(max_gpn_ + 1, 0);
  core_hist_.assign(max_cores_ + 1, 0);
  for (int i = 0; i < static_cast<int>(topo_.nodes.size()); ++i) hist_add(i);
  if (c.settings.weight_age > 0 || c.settings.weight_fairshare > 0)
    options_.weight_age = c.settings.weight_age, options_.weight_fairshare = c.settings.weight_fairshare;
  shapes_.reserve(w.jobs.size());
  for (const auto& j : w.jobs) shapes_.push_back(shape_of(j, max_gpn_, o.cpus_per_gpu));
  res_.assign(w.jobs.size(), {});
  prio_.assign(w.jobs.size(), 0);
  if (o.study_mode != "trials" && o.study_mode != "whole")
    throw std::invalid_argument("unknown study mode '" + o.study_mode + "': use trials or whole");
  std::unordered_map<std::string, int> seen;
  for (const auto& j : w.jobs) seen.emplace(j.account, 0);
  n_trace_ = static_cast<int>(w.jobs.size());
  // A history's trial jobs (their Comment a trial job's progress record, as
  // sacct keeps it): the adaptive policies read them as the plugins did.
  for (int j = 0; j < n_trace_; ++j)
    if (const auto& c = w.jobs[j].comment; !c.empty())
      if (const auto r = parse_progress(c); r && r->role == StudyRole::Trial)
        trace_trial_.emplace(j, uid_for(w.jobs[j].user.empty() ? w.jobs[j].account : w.jobs[j].user));
  study_res_.resize(w.studies.size());
  last_judged_.assign(w.studies.size(), -1);
  level_now_.assign(w.studies.size(), 0);
  studies_.reserve(w.studies.size());
  for (std::size_t i = 0; i < w.studies.size(); ++i) {
    const SimStudy& st = w.studies[i];
    seen.emplace(st.account, 0);
    // One history may be replayed twice: the index keeps their keys apart.
    studies_.emplace_back(StudyReplay(st, study_key(st.name, st.source + "#" + std::to_string(i))),
                          uid_for(st.user.empty() ? st.account : st.user));
    study_res_[i].submitted = st.submit;
    study_order_.push_back(static_cast<int>(i));
    // For the oracles: the final best of a study whose trials never meet its target.
    std::optional<double> best;
    bool meets = false;
    for (const auto& t : st.trials) {
      if (t.state != TrialState::Ok || !t.objective) continue;
      meets = meets || meets_target(st, *t.objective);
      if (!best || better(st.minimize, *t.objective, *best)) best = t.objective;
    }
    plateaus_.push_back(!meets);
    plateau_best_.push_back(best);
  }
  std::stable_sort(study_order_.begin(), study_order_.end(),
                   [&](int a, int b) { return w.studies[a].submit < w.studies[b].submit; });
  // The priority policy, by name, with what it needs of the cluster.
  OrderingSetup setup;
  setup.tune = o.tune;
  setup.settings = s_;
  setup.weight_fairshare = options_.weight_fairshare, setup.weight_age = options_.weight_age;
  setup.capacity = {static_cast<double>(c.cpus()), c.mem_mb(), static_cast<double>(c.gpus())};
  setup.gpu_billing = c.gpus() > 0 ? static_cast<double>(c.cpus()) / c.gpus() : 0;
  setup.accounts = static_cast<int>(seen.size());
  setup.fair_tree = FairTree(c.associations);
  if (c.associations.empty()) setup.fair_tree.ensure("root", "root");  // sacctmgr's own
  for (const auto& j : w.jobs) setup.fair_tree.ensure(association_of(j.account, j.user));
  for (const auto& st : w.studies) setup.fair_tree.ensure(association_of(st.account, st.user));
  ordering_ = spec_.make(spec_, setup);
  for (std::size_t j = 0; j < w.jobs.size(); ++j) ordering_->add_job();
}

SimResult Sim::run() {
  const auto t0 = std::chrono::steady_clock::now();
  SimResult r;
  r.priority = options_.priority, r.placement = options_.placement;
  const double prio_period = ordering_->period();
  const double sample_every = options_.sample_every > 0 ? options_.sample_every : s_.bf_interval;
  // slurmctld's timers run from its own start, not from the trace's first
  // submission: timer_phase says how far into their periods they are at 0.
  auto first = [&](double period) { return period - std::fmod(options_.timer_phase, period); };
  double next_main = first(s_.sched_interval), next_bf = first(s_.bf_interval),
         next_prio = first(prio_period);
  double next_sample = 0;
  double next_event_pass = kNever, last_pass = -kNever;  // event-triggered passes wait for batch_sched_delay
  std::size_t next_job = 0, next_study = 0;
  const std::size_t n = w_.jobs.size(), ns = study_order_.size();
  auto advance = [&](double& timer, double period) { timer = (std::floor(now_ / period) + 1) * period; };
  while (next_job < n || next_study < ns || !pending_.empty() || !running_.empty()) {
    double t = kNever;
    if (next_job < n) t = w_.jobs[next_job].submit;
    if (next_study < ns) t = std::min(t, w_.studies[study_order_[next_study]].submit);
    if (!study_events_.empty()) t = std::min(t, study_events_.top().first);
    if (!trial_ends_.empty()) t = std::min(t, trial_ends_.top().first);
    if (!ends_.empty()) t = std::min(t, ends_.top().first);
    if (!pending_.empty()) {
      t = std::min({t, next_main, next_prio, next_event_pass});
      if (s_.backfill) t = std::min(t, next_bf);
    }
    if (!pending_.empty() || !running_.empty()) t = std::min(t, next_sample);
    if (pending_.empty() && !running_.empty() && ordering_->charges()) t = std::min(t, next_prio);
    if (t == kNever) break;
    now_ = std::max(now_, t);
    ++r.events;
    bool triggered = false;
    // Trials end first: a trial job that then exits ends in this same turn.
    while (!trial_ends_.empty() && trial_ends_.top().first <= now_) {
      const auto [at, j] = trial_ends_.top();
      trial_ends_.pop();
      const auto b = bound_.find(j);
      if (b == bound_.end() || b->second.end != at) continue;  // interrupted earlier, or its job ended
      trial_ended(j);
    }
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
      if (!pending_.empty() || (ordering_->charges() && !running_.empty())) {
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
  judge_lowerings(r.studies);
  r.study_mode = options_.study_mode;
  r.never_fit = never_fit_;
  r.placement_calls = placement_calls_;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void Sim::hist_add(int i) {
  hist_[topo_.nodes[i].free_gpus()]++;
  core_hist_[std::clamp(topo_.nodes[i].free_cores, 0, max_cores_)]++;
  free_cores_ += topo_.nodes[i].free_cores;
}

void Sim::hist_remove(int i) {
  hist_[topo_.nodes[i].free_gpus()]--;
  core_hist_[std::clamp(topo_.nodes[i].free_cores, 0, max_cores_)]--;
  free_cores_ -= topo_.nodes[i].free_cores;
}

void Sim::take(int j, const Placement& p) {
  for (const auto& g : p.nodes) hist_remove(g.node);
  apply(topo_, p, shapes_[j]);
  for (const auto& g : p.nodes) hist_add(g.node);
}

void Sim::give_back(const Placement& p) {
  for (const auto& g : p.nodes) hist_remove(g.node);
  release(topo_, p);
  for (const auto& g : p.nodes) hist_add(g.node);
}

bool Sim::may_fit(int j) const {
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

std::optional<Placement> Sim::place(int j) {
  if (!may_fit(j)) return std::nullopt;
  ++placement_calls_;
  return policy_->place(topo_, shapes_[j]);
}

bool Sim::ever_fits(const JobShape& s) {
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

bool Sim::submit(int j) {
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

void Sim::start(int j, const Placement& p, bool backfilled) {
  take(j, p);
  const SimJob& job = this->job(j);
  // A trace job runs its recorded time; an AppCore, a trial job or a whole
  // study runs until its study says so (or its time limit).
  const double runtime = job.kind == SimJob::Kind::Trace ? job.runtime : kNever;
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
    const SimStudy& st = w_.studies[job.study];
    study_res_[job.study].started = now_;
    studies_[job.study].core =
        std::make_unique<ReplayAppCore>(*this, job.study, st.parallel, st.trials_per_job);
    study_events_.emplace(now_ + kAppCoreStartup, job.study);
  } else if (job.kind == SimJob::Kind::Trial) {
    trial_job_started(j);
  } else if (job.kind == SimJob::Kind::Study) {
    if (study_res_[job.study].started < 0) study_res_[job.study].started = now_;
    fill_slots(job.study);
  }
}

void Sim::finish(int j) {
  auto it = running_.find(j);
  give_back(it->second.placement);
  busy_gpus_ -= gpus_of(it->second.placement);
  busy_cpus_ -= cpus_of(it->second.placement);
  by_expected_end_.erase(it->second.expected);
  running_.erase(it);
  if (job(j).kind != SimJob::Kind::Trace) study_job_ended(j);
}

int Sim::gpus_of(const Placement& p) {
  int g = 0;
  for (const auto& n : p.nodes) g += n.gpus;
  return g;
}

int Sim::cpus_of(const Placement& p) {
  int c = 0;
  for (const auto& n : p.nodes) c += n.cpus;
  return c;
}

void Sim::main_pass(int depth) {
  const auto queue = trace_queue();
  int looked = 0;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (depth > 0 && looked++ >= depth) break;
    const int j = it->idx;
    const auto p = place(j);
    if (!p) break;  // the partition is blocked for the rest of this pass
    it = pending_.erase(it);
    start(j, *p, false);
  }
  trace_pass("main", queue);
}

std::optional<std::pair<double, Placement>> Sim::earliest(int j, const std::vector<Reservation>& resv) {
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

void Sim::backfill_pass() {
  const auto queue = trace_queue();
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
  trace_pass("backfill", queue);
}

Sample Sim::sample() const {
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

}  // namespace detail

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
  detail::Sim s(cluster, workload, options);
  return s.run();
}

}  // namespace tune::sim
