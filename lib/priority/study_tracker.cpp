// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/study_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tune {

void StudyTracker::update(double now, const std::vector<JobView>& jobs, const AdaptiveOptions& o,
                          bool enabled) {
  // Who waits: tenants with pending work, and since when.
  oldest_wait_.clear();
  for (const auto& j : jobs)
    if (j.state == JobView::State::Pending && j.waiting) {
      const double w = std::max(0.0, now - j.eligible);
      auto [it, fresh] = oldest_wait_.emplace(j.tenant, w);
      if (!fresh) it->second = std::max(it->second, w);
    }

  // Algorithm 1 on every study's newest record; jobs without a valid record
  // have no study and are never touched by the adaptive part.
  of_.assign(jobs.size(), Membership{});
  changes_.clear();
  std::unordered_map<const StudyState*, int> before;           // levels as this update found them
  std::unordered_map<const StudyState*, std::int64_t> judged;  // n of a judgement in this update
  for (const auto& [id, s] : studies_) before.emplace(&s, s.yield.level());
  std::unordered_map<std::uint32_t, std::size_t> studies_per_user;
  for (const auto& [id, s] : studies_) ++studies_per_user[static_cast<std::uint32_t>(std::stoul(id))];
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (!enabled || j.comment.find("tune:") == std::string::npos) continue;
    const auto record = parse_progress(j.comment);
    if (!record) continue;
    const std::string id = study_id(j.uid, record->study);
    auto it = studies_.find(id);
    if (it == studies_.end()) {
      // A user cannot grow the plugin's state without bound.
      if (studies_per_user[j.uid] >= kMaxStudiesPerUser) continue;
      ++studies_per_user[j.uid];
      it = studies_.emplace(id, StudyState{}).first;
      it->second.last_contended = now;
    }
    StudyState& s = it->second;
    s.last_seen = now;
    before.emplace(&s, s.yield.level());  // a study new in this update: level 0
    const int was = s.yield.level();
    const std::int64_t was_judged = s.yield.trials_judged();
    s.yield.observe(*record, o);
    if (s.yield.trials_judged() != was_judged) judged[&s] = record->trials;
    if (s.yield.level() != was) s.last_change = now;
    of_[i] = {&s, record->study, record->role};
  }

  // Relax: a study whose tenant alone has work waiting (or nobody has)
  // relaxes as its estimator says (YieldEstimator::relax).
  std::unordered_map<const StudyState*, std::string> tenant_of_study;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (of_[i].state) tenant_of_study.emplace(of_[i].state, jobs[i].tenant);
  for (auto& [id, s] : studies_) {
    const auto t = tenant_of_study.find(&s);
    // Someone else waits: any waiting tenant other than the study's own.
    const bool contended =
        oldest_wait_.size() > 1 ||
        (oldest_wait_.size() == 1 && (t == tenant_of_study.end() || !oldest_wait_.count(t->second)));
    if (contended) s.last_contended = now;
    if (s.yield.relax(now - s.last_contended, now - s.last_change, o)) s.last_change = now;
    const int was = before.count(&s) ? before.at(&s) : 0;
    if (s.yield.level() != was) {
      // Judged: the level is what the judgement made it (relaxation may
      // have taken it elsewhere in the same update).
      const auto j = judged.find(&s);
      const bool by_judgement = j != judged.end() && s.yield.judgement_stands(o);
      changes_.push_back({id, j != judged.end() ? j->second : s.yield.trials_seen(), was, s.yield.level(),
                          by_judgement, by_judgement ? s.yield.last_chance() : -1});
    }
  }
  // Forgotten studies are not referenced by of_: they were not seen now.
  std::erase_if(studies_, [&](const auto& kv) { return now - kv.second.last_seen > kForgetStudyAfter; });
}

int StudyTracker::signal_for(std::size_t i, const JobView& job, double now, const YieldOptions& y) {
  // Only a whole-allocation study yields by signal. A study of trial jobs
  // yields at every trial boundary through its pending trial jobs'
  // priority; its running trials and its AppCore are left alone.
  StudyState* s = of_[i].state;
  if (!s || job.state != JobView::State::Running || of_[i].role != StudyRole::Study || !y.enabled ||
      s->yield.level() < y.level)
    return 0;
  bool others_waited = false;
  for (const auto& [tenant, w] : oldest_wait_)
    if (tenant != job.tenant && w >= y.wait) others_waited = true;
  const bool progressed = s->yield.trials_seen() > s->signalled_at;
  if (!others_waited || !progressed || now - s->last_signal < y.cooldown) return 0;
  s->last_signal = now;
  s->signalled_at = s->yield.trials_seen();
  return y.signal;
}

nlohmann::json StudyTracker::save(const AdaptiveOptions& o) const {
  nlohmann::json studies = nlohmann::json::object();
  for (const auto& [id, s] : studies_) {
    nlohmann::json one = s.yield.save(o);
    one["last_seen"] = s.last_seen;
    one["last_contended"] = s.last_contended;
    one["last_change"] = s.last_change;
    one["last_signal"] = std::max(s.last_signal, -1.0);
    one["signalled_at"] = s.signalled_at;
    studies[id] = std::move(one);
  }
  return studies;
}

void StudyTracker::restore(const nlohmann::json& j, const AdaptiveOptions& o) {
  auto finite = [](const nlohmann::json& v, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < -1)
      throw std::runtime_error(std::string("bad ") + what);
    return v.get<double>();
  };
  if (!j.is_object()) throw std::runtime_error("'studies' is not an object");
  std::map<std::string, StudyState> studies;
  try {
    for (const auto& [id, v] : j.items()) {
      if (id.find(':') == std::string::npos || id.find_first_not_of("0123456789") != id.find(':'))
        throw std::runtime_error("bad study id " + id);
      StudyState s;
      try {
        s.yield = YieldLevel::restore(v, o);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string(e.what()) + " of study " + id);
      }
      s.last_seen = finite(v.at("last_seen"), "last_seen");
      s.last_contended = finite(v.at("last_contended"), "last_contended");
      s.last_change = finite(v.at("last_change"), "last_change");
      s.last_signal = finite(v.at("last_signal"), "last_signal");
      // absent from state saved before it was kept: the next signal may come
      s.signalled_at = v.value("signalled_at", std::int64_t{-1});
      if (s.signalled_at < -1) throw std::runtime_error("bad signalled_at of study " + id);
      studies.emplace(id, std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed studies: ") + e.what());
  }
  studies_ = std::move(studies);
  of_.clear();
}

}  // namespace tune
