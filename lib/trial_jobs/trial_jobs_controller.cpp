// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/trial_jobs_controller.hpp"

#include <algorithm>
#include <utility>

namespace tune {
namespace {

// The job ids of a map keyed by them.
template <class Map>
std::vector<std::uint32_t> ids_of(const Map& m) {
  std::vector<std::uint32_t> ids;
  ids.reserve(m.size());
  for (const auto& kv : m) ids.push_back(kv.first);
  return ids;
}

RefusalVerdict waits(bool limit) {
  return RefusalVerdict{true, limit, ""};
}
RefusalVerdict stops(std::string fix) {
  return RefusalVerdict{false, false, std::move(fix)};
}

}  // namespace

RefusalVerdict judge_refusal(const JobQueueError& e, bool submitted_before, std::size_t own_jobs) {
  switch (e.cause) {
    case RefusalCause::Unreachable: return waits(false);
    case RefusalCause::JobCount: return waits(true);
    case RefusalCause::AccountingPolicy:
      if (e.user_jobs != 0 || own_jobs > 0) return waits(true);
      return stops(
          "no job of yours is in the queue, so this is a size or time limit of your QOS or association that "
          "waiting does not lift: lower --cpus-per-trial, --mem-per-trial, --gpus-per-trial or "
          "--trial-time-limit, or choose another --qos or --account (sacctmgr show assoc user=$USER; "
          "sacctmgr show qos)");
    case RefusalCause::Partition:
      return stops("check --partition (sinfo -s lists the partitions open to you)");
    case RefusalCause::Account: return stops("check --account (sacctmgr show assoc user=$USER lists yours)");
    case RefusalCause::Qos:
      return stops("check --qos (sacctmgr show assoc user=$USER format=qos lists yours)");
    case RefusalCause::Constraint: return stops("check --constraint (sinfo -o '%N %f' lists the features)");
    case RefusalCause::Reservation: return stops("check --reservation (scontrol show reservation)");
    case RefusalCause::Size:
      return stops(
          "lower --cpus-per-trial, --mem-per-trial or --gpus-per-trial: no node of the partition has that "
          "much (sinfo -o '%P %c %m %G')");
    case RefusalCause::TimeLimit:
      return stops(
          "lower --trial-time-limit (x --trials-per-job) below the partition's limit (sinfo -o '%P %l')");
    case RefusalCause::Unknown: break;
  }
  if (submitted_before) return waits(false);
  return stops("check --partition, --account, --qos, --constraint, --reservation and the trial's size");
}

bool limit_reason(const std::string& r) {
  const bool scoped = r.rfind("QOS", 0) == 0 || r.rfind("Assoc", 0) == 0 || r.rfind("Partition", 0) == 0;
  return scoped && (r.find("Limit") != std::string::npos || r.find("Grp") != std::string::npos ||
                    r.find("Max") != std::string::npos);
}

std::string limit_reasons(const std::vector<std::string>& pending_reasons) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto& r : pending_reasons)
    if (limit_reason(r) && std::find(seen.begin(), seen.end(), r) == seen.end()) {
      seen.push_back(r);
      out += (out.empty() ? "" : ", ") + r;
    }
  return out;
}

double trial_job_time_limit(double trial_time_limit, int trials_per_job) {
  return trial_time_limit > 0 ? trial_time_limit * trials_per_job + 60 : 0;
}

TrialJobsController::TrialJobsController(LoopHost& host, JobQueue& queue, JobLinks& links, int parallel,
                                         int trials_per_job, TrialJobsRules rules)
    : host_(host),
      queue_(queue),
      links_(links),
      parallel_(parallel),
      trials_per_job_(trials_per_job),
      rules_(rules) {}

std::size_t TrialJobsController::busy() const {
  std::size_t n = 0;
  for (const auto& [id, j] : jobs_) n += j.trial.has_value();
  return n;
}

bool TrialJobsController::take_changed() {
  const bool c = changed_;
  changed_ = false;
  return c;
}

std::optional<std::uint32_t> TrialJobsController::job_of(JobLinks::Conn c) const {
  const auto it = conn_job_.find(c);
  if (it == conn_job_.end()) return std::nullopt;
  return it->second;
}

void TrialJobsController::adopt(const std::map<std::uint32_t, std::optional<std::uint64_t>>& earlier) {
  if (earlier.empty()) return;
  std::map<std::uint32_t, TrialJobInfo> info;
  try {
    info = queue_.look_up(ids_of(earlier));
  } catch (const JobQueueError& e) {
    host_.say(std::string(e.what()) + "; the earlier AppCore's trials run again");
    return;
  }
  int adopted = 0;
  for (const auto& [id, trial] : earlier) {
    const TrialJobInfo& i = info[id];
    if (i.state == TrialJobInfo::State::Ended) continue;
    if (trial && !host_.study().adopt(*trial)) continue;
    LiveJob& j = jobs_[id];
    unsettled_.insert(id);
    j.id = id;
    j.state = i.state;
    j.trial = trial;
    j.given = trial ? 1 : 0;
    j.node = i.nodes;
    j.reason = i.reason;
    ++adopted;
  }
  if (adopted) host_.say("adopted " + std::to_string(adopted) + " trial job(s) of the earlier AppCore");
  changed_ = true;
}

void TrialJobsController::tick() {
  const double now = host_.now();
  collect(now);
  if (!storage_held_.empty() && (!host_.study().holding() || host_.study().stopping())) {
    const std::set<JobLinks::Conn> held = std::move(storage_held_);
    storage_held_.clear();
    for (const auto c : held) on_ready(c);
  }
  if (host_.study().stopping())
    wind_down(now);
  else if (!host_.study().storage_waiting())  // no new jobs for trials that could not start
    submit_jobs(now);
  if (now - last_lookup_ >= rules_.poll_every || (lookup_soon_ && now - last_lookup_ >= 1) ||
      now >= grace_ends().value_or(now + 1))
    look_up(now);
}

std::optional<double> TrialJobsController::grace_ends() const {
  std::optional<double> at;
  for (const auto& [id, j] : jobs_)
    if (j.ended > 0 && j.conn)
      at = std::min(at.value_or(j.ended + rules_.last_words), j.ended + rules_.last_words);
  return at;
}

std::optional<double> TrialJobsController::due() const {
  std::optional<double> at;
  if (lookup_soon_ && !jobs_.empty()) at = last_lookup_ + 1;
  if (const auto grace = grace_ends()) at = std::min(at.value_or(*grace), *grace);
  // While the study waits for its storage, its turns probe it.
  if (host_.study().storage_waiting()) at = std::min(at.value_or(host_.now() + 1), host_.now() + 1);
  if (submit_after_ > host_.now() && !host_.study().stopping())
    at = std::min(at.value_or(submit_after_), submit_after_);
  return at;
}

bool TrialJobsController::done() const {
  return host_.study().finished() && busy() == 0;
}

void TrialJobsController::submit_jobs(double now) {
  // Held by a limit, one of the study's own jobs leaving the queue frees a
  // place at once; such a try does not lengthen the pause.
  const bool timed = now >= submit_after_;
  const bool freed = !held_.empty() && unsettled_.size() < unsettled_at_refusal_;
  if (!timed && !freed) return;
  std::uint64_t unclaimed = 0;
  for (const auto& [id, j] : jobs_)
    unclaimed += static_cast<std::uint64_t>(std::max(0, trials_per_job_ - j.given));
  int n = trial_jobs_to_submit(parallel_, static_cast<int>(jobs_.size()), unclaimed,
                               host_.study().remaining(), trials_per_job_);
  for (; n > 0; --n) {
    try {
      const std::uint32_t id = queue_.submit(host_.trial_comment());
      jobs_[id].id = id;
      jobs_[id].submitted = host_.now();
      unsettled_.insert(id);
      ++submitted_;
      submitted_any_ = true;
      changed_ = true;
      retry_wait_ = 0;
      if (!held_.empty()) {
        host_.say("Slurm takes trial jobs again; " + std::to_string(jobs_.size()) + " in the queue");
        held_.clear();
      }
    } catch (const JobQueueError& e) {
      const RefusalVerdict v = judge_refusal(e, submitted_any_, std::max(jobs_.size(), unsettled_.size()));
      if (!v.waits) {
        host_.say(std::string(e.what()) + "; " + v.fix);
        host_.study().stop(StopReason::Refused);
        return;
      }
      // Waited for with a growing pause: a limit passes as jobs end, and
      // each retry costs slurmctld an RPC.
      if (timed)
        retry_wait_ = retry_wait_ == 0 ? rules_.retry_refused_after
                                       : std::min(retry_wait_ * 2, rules_.retry_refused_max);
      const std::string why = e.what();
      if (v.limit && held_ != why)
        host_.say(why + "; waiting for it to pass, with " + std::to_string(jobs_.size()) +
                  " trial job(s) in the queue (next try in " + std::to_string(static_cast<int>(retry_wait_)) +
                  " s, then less and less often)");
      else if (!v.limit)
        host_.say(why + "; trying again in " + std::to_string(static_cast<int>(retry_wait_)) + " s");
      if (v.limit) held_ = why;
      unsettled_at_refusal_ = unsettled_.size();
      changed_ = true;
      if (timed) submit_after_ = host_.now() + retry_wait_;
      return;
    }
  }
}

void TrialJobsController::on_hello(JobLinks::Conn c, std::uint32_t id, const std::string& node,
                                   const std::string& peer, const std::optional<TrialRun>& result) {
  auto it = jobs_.find(id);
  if (id && it == jobs_.end() && unsettled_.count(id)) {
    // One of ours already let go of: cancelled while pending as the study
    // stopped, it started before the cancel reached it. It exits when told.
    links_.stop(c);
    return;
  }
  if (!id || it == jobs_.end()) {
    host_.say("closed the connection of " + peer + ": job " + std::to_string(id) +
              " is not a trial job of this study");
    links_.close(c);
    return;
  }
  LiveJob& j = it->second;
  if (j.conn) links_.close(*j.conn);
  j.conn = c;
  j.state = TrialJobInfo::State::Running;
  if (!node.empty()) j.node = node;
  conn_job_[c] = id;
  changed_ = true;
  if (result) deliver(j, *result);
}

void TrialJobsController::on_ready(JobLinks::Conn c) {
  const auto cj = conn_job_.find(c);
  if (cj == conn_job_.end()) return;
  LiveJob& j = jobs_.at(cj->second);
  if (j.trial || awaiting_ == j.id) return;  // a job asks again while its trial is open: ignore
  std::optional<Trial> t;
  if (j.given < trials_per_job_) {
    auto offer = host_.study().offer_trial(j.node, host_.now());
    if (offer.held) {
      storage_held_.insert(c);
      return;
    }
    if (offer.wait) {
      awaiting_ = j.id;
      return;
    }
    t = std::move(offer.trial);
  }
  hand(j, c, std::move(t));
}

void TrialJobsController::hand(LiveJob& j, JobLinks::Conn c, std::optional<Trial> t) {
  if (!t) {
    links_.stop(c);
    j.leaving = true;
    return;
  }
  j.trial = t->id;
  j.bound = host_.now();
  ++j.given;
  links_.launch(c, *t);
  changed_ = true;
}

void TrialJobsController::collect(double now) {
  auto done = host_.study().collect(now);
  if (!done || !awaiting_) return;
  const std::uint32_t id = *awaiting_;
  awaiting_.reset();
  const auto it = jobs_.find(id);
  if (it != jobs_.end() && it->second.conn) {
    hand(it->second, *it->second.conn, std::move(*done));
    return;
  }
  // Its job left while the sampler proposed: another job runs the trial.
  if (*done)
    host_.study().on_lost((*done)->id, TrialState::Interrupted,
                          "its trial job left before the trial reached it", now);
}

void TrialJobsController::on_report(JobLinks::Conn c, std::uint64_t trial, const Report& r) {
  const auto cj = conn_job_.find(c);
  if (cj == conn_job_.end()) return;
  const LiveJob& j = jobs_.at(cj->second);
  if (j.trial != trial) return;  // not the trial it holds: stale
  if (host_.study().on_report(trial, r, host_.now())) links_.prune(c, trial);
}

void TrialJobsController::on_result(JobLinks::Conn c, TrialRun run) {
  const auto cj = conn_job_.find(c);
  if (cj == conn_job_.end()) return;
  deliver(jobs_.at(cj->second), std::move(run));
}

void TrialJobsController::on_bad_result(JobLinks::Conn c, const std::string& why) {
  const auto cj = conn_job_.find(c);
  if (cj == conn_job_.end()) return;
  LiveJob& j = jobs_.at(cj->second);
  host_.say("job " + std::to_string(j.id) + " sent a malformed result (" + why + "); its trial runs again");
  if (j.trial)
    host_.study().on_lost(*j.trial, TrialState::Interrupted, "a malformed result from its job", host_.now());
  j.trial.reset();
}

void TrialJobsController::on_bye(JobLinks::Conn c) {
  const auto cj = conn_job_.find(c);
  if (cj != conn_job_.end()) jobs_.at(cj->second).leaving = true;  // its connection closes as it exits
}

void TrialJobsController::on_closed(JobLinks::Conn c) {
  storage_held_.erase(c);
  const auto it = conn_job_.find(c);
  if (it == conn_job_.end()) return;
  if (auto j = jobs_.find(it->second); j != jobs_.end()) {
    j->second.conn.reset();
    if (j->second.trial) lookup_soon_ = true;  // did the cluster end it?
    // Its process has exited (the job's batch script exec'd it): the job is
    // ending, and its slot can go to a new one now rather than at the next look-up.
    else if (j->second.leaving) {
      leaving_.insert(j->first);
      jobs_.erase(j);
      changed_ = true;
    }
  }
  conn_job_.erase(it);
}

void TrialJobsController::deliver(LiveJob& j, TrialRun run) {
  if (!j.trial || run.trial != *j.trial) return;  // not the trial it holds: stale
  attribute_to_stop(run, interrupted_);
  if (run.interrupted && !host_.study().stopping()) {
    // Slurm signalled the job (scancel, a node failure, preemption, its time
    // limit): what to make of it waits for Slurm's word on the job.
    j.signalled = true;
    lookup_soon_ = true;
    return;
  }
  host_.record(run, j.node, "job " + std::to_string(j.id) + " on " + j.node);
  if (run.start_time > 0 && j.bound > 0) {
    if (j.given == 1 && j.submitted > 0) slurm_start_.push_back(run.start_time - j.submitted);
    binding_.push_back(run.start_time - j.bound);
    result_.push_back(host_.now() - run.end_time);
  }
  j.trial.reset();
  changed_ = true;
}

void TrialJobsController::look_up(double now) {
  last_lookup_ = now;
  lookup_soon_ = false;
  if (jobs_.empty() && unsettled_.empty()) return;
  std::map<std::uint32_t, TrialJobInfo> info;
  try {
    info = queue_.look_up(ids());
    if (slurm_down_) host_.say("slurmctld answers again");
    slurm_down_ = false;
  } catch (const JobQueueError& e) {
    if (!slurm_down_)
      host_.say(std::string(e.what()) + "; trying again in " +
                std::to_string(static_cast<int>(rules_.poll_every)) + " s");
    slurm_down_ = true;
    return;
  }
  for (auto& [id, i] : info) {
    if (i.state == TrialJobInfo::State::Ended && !i.completing) unsettled_.erase(id), leaving_.erase(id);
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    LiveJob& j = it->second;
    if (i.state != TrialJobInfo::State::Ended) {
      if (j.reason != i.reason || j.node != i.nodes || (j.state != i.state && !j.conn)) changed_ = true;
      if (!j.conn) j.state = i.state;
      j.reason = i.reason;
      if (!i.nodes.empty()) j.node = i.nodes;
      continue;
    }
    if (j.conn && !j.signalled) {
      if (j.ended == 0) j.ended = now;
      if (now - j.ended < rules_.last_words) continue;  // still talking: its last words are on the way
      host_.say("job " + std::to_string(id) + ": Slurm ended it (" + std::string(job_end_name(i.end)) + ") " +
                std::to_string(static_cast<int>(now - j.ended)) +
                " s ago and its connection has been silent since; closing it");
      links_.close(*j.conn);
    }
    if (j.trial) {
      const LostTrial lost = lost_trial(i.end, id, i.reason);
      host_.say("trial " + std::to_string(*j.trial) + ": " + lost.message);
      host_.study().on_lost(*j.trial, lost.state, lost.message, now);
    }
    if (j.conn) conn_job_.erase(*j.conn);
    jobs_.erase(it);
    changed_ = true;
  }
}

// The study is stopping: cancel jobs that have no trial; end running trials
// when the study says so (target, time limit, SIGTERM, --drain over).
void TrialJobsController::wind_down(double now) {
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    LiveJob& j = it->second;
    if (j.trial) {
      ++it;
      continue;
    }
    if (j.conn) {
      links_.stop(*j.conn);
      leaving_.insert(j.id);
    } else if (j.state == TrialJobInfo::State::Pending)
      queue_.cancel(j.id);
    else {
      ++it;  // started but not yet connected: it hears "stop" when it asks
      continue;
    }
    if (j.conn) conn_job_.erase(*j.conn);
    it = jobs_.erase(it);
    changed_ = true;
  }
  if (host_.interrupt_running(now) && !interrupted_) {
    interrupted_ = true;
    interrupted_at_ = now;
    for (auto& [id, j] : jobs_)
      if (j.conn && j.trial) links_.interrupt(*j.conn, *j.trial);
  }
  // A job that does not end its trial within the grace (or cannot hear): scancel.
  if (interrupted_ && now - interrupted_at_ > rules_.cancel_after_interrupt) {
    for (auto& [id, j] : jobs_)
      if (j.trial && queue_.cancel(id)) {
        host_.study().on_lost(*j.trial, TrialState::Interrupted,
                              "its job " + std::to_string(id) + " was cancelled as the study stopped", now);
        j.trial.reset();
      }
    changed_ = true;
  }
}

void TrialJobsController::finish() {
  for (int round = 0; round < rules_.cancel_rounds; ++round) {
    const std::vector<std::uint32_t> all = ids();
    for (auto& [id, j] : jobs_)
      if (j.conn) links_.stop(*j.conn), j.leaving = true;
    links_.pump(0.2);
    if (all.empty()) return;
    try {
      for (const auto& [id, i] : queue_.look_up(all)) {
        if (i.state == TrialJobInfo::State::Ended) {
          if (i.completing) continue;  // on its way out of the queue: wait
          jobs_.erase(id);
          unsettled_.erase(id);
          leaving_.erase(id);
          continue;
        }
        const auto it = jobs_.find(id);
        const bool told = it != jobs_.end() ? it->second.leaving : leaving_.count(id) > 0;
        // Leaving on its own: Slurm ends it (COMPLETED, not CANCELLED) unless it dawdles.
        if (told && round < rules_.leave_rounds) continue;
        if (round > 0 || it == jobs_.end() || !it->second.conn) queue_.cancel(id);
      }
    } catch (const JobQueueError& e) {
      host_.say(std::string(e.what()) + " while cancelling the study's trial jobs");
    }
    changed_ = true;
    if (ids().empty()) return;
    links_.pump(0.5);
  }
  std::string left;
  for (const auto id : ids()) left += " " + std::to_string(id);
  host_.say("could not confirm that these trial jobs ended:" + left +
            " (scancel them if squeue still shows them)");
}

std::vector<std::uint32_t> TrialJobsController::ids() const {
  std::set<std::uint32_t> all(unsettled_);
  for (const auto& kv : jobs_) all.insert(kv.first);
  return {all.begin(), all.end()};
}

}  // namespace tune
