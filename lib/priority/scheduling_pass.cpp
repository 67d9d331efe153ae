#include "priority/scheduling_pass.hpp"

#include "priority/job_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

namespace tune {
namespace {

}  // namespace

SchedulingPolicy::SchedulingPolicy(SchedConfig c) : c_(std::move(c)), fs_(c_.fairshare) {}

void SchedulingPolicy::reconfigure(SchedConfig c) {
  auto usage = fs_.tenants();
  c_ = std::move(c);
  fs_ = FairShare(c_.fairshare);
  fs_.tenants() = std::move(usage);
}

std::uint32_t slurm_priority(std::uint32_t policy_priority, double max_points) {
  const double top = std::max(2.0, std::floor(max_points));
  const double p = std::clamp(static_cast<double>(policy_priority), 1.0, top);
  const double span = static_cast<double>(kSlurmBandHigh - kSlurmBandLow);
  return kSlurmBandLow + static_cast<std::uint32_t>(std::floor((p - 1) * span / (top - 1)));
}

std::uint32_t SchedulingPolicy::fair_share_priority(double dominant_share, double waited) const {
  const double age = std::clamp(waited / c_.weights.max_age, 0.0, 1.0);
  const double p = c_.weights.fairshare * FairShare::factor(dominant_share) + c_.weights.age * age;
  // 0 means "held" to Slurm: the lowest priority we give is 1.
  return static_cast<std::uint32_t>(std::clamp(std::floor(p), 1.0, 1e9));
}

std::vector<JobDecision> SchedulingPolicy::pass(double now, const Resources& capacity, const std::vector<JobView>& jobs) {
  const double dt = last_pass_ > 0 ? std::clamp(now - last_pass_, 0.0, 365.0 * 86400) : 0;
  last_pass_ = now;

  // Usage: decay the past, charge what running jobs held since the last pass.
  fs_.decay(dt);
  std::unordered_map<std::string, double> active;  // tenant -> its shares
  for (const auto& j : jobs) {
    active.emplace(j.tenant, fs_.options().share_of(j.tenant));
    if (j.state == JobView::State::Running) fs_.charge(j.tenant, j.request, std::min(dt, std::max(0.0, now - j.started)));
  }
  fs_.forget_idle(1e-3);
  for (const auto& [t, u] : fs_.tenants()) active.emplace(t, fs_.options().share_of(t));
  double total_shares = 0;
  for (const auto& [t, s] : active) total_shares += s;

  // Who waits: tenants with pending work, and since when.
  std::unordered_map<std::string, double> oldest_wait;  // tenant -> longest wait of its waiting jobs
  for (const auto& j : jobs)
    if (j.state == JobView::State::Pending && j.waiting) {
      const double w = std::max(0.0, now - j.eligible);
      auto [it, fresh] = oldest_wait.emplace(j.tenant, w);
      if (!fresh) it->second = std::max(it->second, w);
    }

  // Algorithm 1 on every study's newest record; jobs without a valid record
  // have no study and are never touched by the adaptive part.
  std::vector<const StudyState*> study_of(jobs.size(), nullptr);
  std::vector<std::string> study_key(jobs.size());
  std::vector<StudyRole> role(jobs.size(), StudyRole::Study);
  std::unordered_map<std::uint32_t, std::size_t> studies_per_user;
  for (const auto& [id, s] : studies_) ++studies_per_user[static_cast<std::uint32_t>(std::stoul(id))];
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    if (!c_.adaptive_enabled || j.comment.find("tune:") == std::string::npos) continue;
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
    if (s.yield.observe(*record, c_.adaptive)) s.last_change = now;
    study_of[i] = &s;
    study_key[i] = record->study;
    role[i] = record->role;
  }

  // Relax: a study whose tenant alone has work waiting (or nobody has) for
  // relax_time drops a level per relax_time.
  std::unordered_map<const StudyState*, std::string> tenant_of_study;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (study_of[i]) tenant_of_study.emplace(study_of[i], jobs[i].tenant);
  for (auto& [id, s] : studies_) {
    const auto t = tenant_of_study.find(&s);
    // Someone else waits: any waiting tenant other than the study's own.
    const bool contended = oldest_wait.size() > 1 ||
                           (oldest_wait.size() == 1 && (t == tenant_of_study.end() || !oldest_wait.count(t->second)));
    if (contended) s.last_contended = now;
    if (s.yield.level() > 0 && now - std::max(s.last_contended, s.last_change) >= c_.adaptive.relax_time) {
      s.yield.relax();
      s.last_change = now;
    }
  }
  std::erase_if(studies_, [&](const auto& kv) { return now - kv.second.last_seen > kForgetStudyAfter; });

  // Priorities, yield signals and what tune queue shows.
  std::unordered_map<std::string, double> share_cache;
  std::vector<JobDecision> out(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    auto [sc, fresh] = share_cache.emplace(j.tenant, 0.0);
    if (fresh) sc->second = fs_.dominant_share(j.tenant, capacity, total_shares);
    const double ds = sc->second;
    const StudyState* s = study_of[i];
    const int level = s ? s->yield.level() : 0;
    JobDecision& d = out[i];
    d.id = j.id;
    std::uint32_t prio = 0;
    if (j.state == JobView::State::Pending) {
      const std::uint32_t base = fair_share_priority(ds, now - j.eligible);
      // The adaptive part only ever lowers: multiplier <= 1, floor, >= 1.
      prio = s ? static_cast<std::uint32_t>(std::max(1.0, std::floor(base * s->yield.multiplier(c_.adaptive)))) : base;
      prio = std::min(prio, base);
      if (j.may_set) d.priority = prio;
    } else if (s && role[i] == StudyRole::Study && c_.yield.enabled && level >= c_.yield.level) {
      // Only a whole-allocation study yields by signal. A study of trial jobs
      // yields at every trial boundary through its pending trial jobs'
      // priority; its running trials and its AppCore are left alone.
      bool others_waited = false;
      for (const auto& [tenant, w] : oldest_wait)
        if (tenant != j.tenant && w >= c_.yield.wait) others_waited = true;
      auto& st = studies_.at(study_id(j.uid, study_key[i]));
      const bool progressed = st.yield.trials_seen() > st.signalled_at;
      if (others_waited && progressed && now - st.last_signal >= c_.yield.cooldown) {
        d.signal = c_.yield.signal;
        st.last_signal = now;
        st.signalled_at = st.yield.trials_seen();
      }
    }
    JobSummary summary;
    summary.tenant = j.tenant;
    summary.dominant_share = ds;
    summary.factor = FairShare::factor(ds);
    if (s) summary.study = study_key[i], summary.level = level;
    if (j.state == JobView::State::Pending) summary.priority = prio;
    d.summary = format_summary(summary);
  }
  return out;
}

nlohmann::json SchedulingPolicy::save() const {
  nlohmann::json tenants = nlohmann::json::object();
  for (const auto& [t, u] : fs_.tenants()) {
    const auto& r = u.resource_seconds();
    tenants[t] = {r.cpus, r.mem_mb, r.gpus};
  }
  nlohmann::json studies = nlohmann::json::object();
  for (const auto& [id, s] : studies_) {
    const auto y = s.yield.save();
    studies[id] = {{"level", y.level},         {"j", y.j},
                   {"last_n", y.last_n},       {"gap_sum", y.gap_sum},
                   {"gaps", y.gaps},           {"judged_n", y.judged_n},
                   {"last_seen", s.last_seen},
                   {"last_contended", s.last_contended}, {"last_change", s.last_change},
                   {"last_signal", std::max(s.last_signal, -1.0)},
                   {"signalled_at", s.signalled_at}};
  }
  return {{"version", 1}, {"last_pass", last_pass_}, {"tenants", tenants}, {"studies", studies}};
}

void SchedulingPolicy::restore(const nlohmann::json& j) {
  auto finite = [](const nlohmann::json& v, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < -1)
      throw std::runtime_error(std::string("bad ") + what);
    return v.get<double>();
  };
  try {
    if (!j.is_object() || j.value("version", 0) != 1) throw std::runtime_error("not a version 1 sched/tune state");
    FairShare fs(c_.fairshare);
    for (const auto& [t, v] : j.at("tenants").items()) {
      if (!v.is_array() || v.size() != 3) throw std::runtime_error("bad usage of tenant " + t);
      fs.tenants()[t].set({std::max(0.0, finite(v[0], "cpu usage")), std::max(0.0, finite(v[1], "memory usage")),
                           std::max(0.0, finite(v[2], "gpu usage"))});
    }
    std::map<std::string, StudyState> studies;
    for (const auto& [id, v] : j.at("studies").items()) {
      if (id.find(':') == std::string::npos || id.find_first_not_of("0123456789") != id.find(':'))
        throw std::runtime_error("bad study id " + id);
      YieldLevel::Saved y{v.at("level").get<int>(), v.at("j").get<int>(), v.at("last_n").get<std::int64_t>(),
                          finite(v.at("gap_sum"), "gap_sum"), v.at("gaps").get<std::int64_t>(),
                          // absent from state saved before judgements were counted: judge the next record
                          v.value("judged_n", std::int64_t{-1})};
      StudyState s;
      s.yield = YieldLevel::restore(y, c_.adaptive);
      s.last_seen = finite(v.at("last_seen"), "last_seen");
      s.last_contended = finite(v.at("last_contended"), "last_contended");
      s.last_change = finite(v.at("last_change"), "last_change");
      s.last_signal = finite(v.at("last_signal"), "last_signal");
      // absent from state saved before it was kept: the next signal may come
      s.signalled_at = v.value("signalled_at", std::int64_t{-1});
      if (s.signalled_at < -1) throw std::runtime_error("bad signalled_at of study " + id);
      studies.emplace(id, s);
    }
    const double last = finite(j.at("last_pass"), "last_pass");
    fs_ = std::move(fs);
    studies_ = std::move(studies);
    last_pass_ = last;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed state: ") + e.what());
  }
}

}  // namespace tune
