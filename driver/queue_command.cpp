// SPDX-License-Identifier: GPL-2.0-or-later
#include "queue_command.hpp"

#include <pwd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "estimators/progress_record.hpp"
#include "libslurm/slurm_compat.hpp"
#include "libslurm/slurm_reach.hpp"
#include "priority/job_summary.hpp"
#include "run_command.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {
namespace {

struct Row {
  std::uint32_t id;
  std::string user, state, reason;
  bool pending;
  std::uint32_t priority;
  std::optional<JobSummary> summary;
  StudyRole role = StudyRole::Study;                     // from the job's progress record
  std::string study;                                     // its study key, if it has a record
  std::optional<slurm_compat::PriorityFactors> factors;  // priority/multifactor's, pending jobs
};

// Under priority/multifactor tune's term is the SITE factor, beside the
// others; under priority/basic sched/tune computes the whole priority.
bool multifactor() {
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) return false;
  const bool mf = conf->priority_type && std::strcmp(conf->priority_type, "priority/multifactor") == 0;
  slurm_compat::free_conf(conf);
  return mf;
}

const char* role_name(StudyRole r) {
  return r == StudyRole::Trial ? "trial" : r == StudyRole::AppCore ? "appcore" : "study";
}

std::string user_of(uid_t uid, const char* name) {
  if (name && *name) return name;
  if (const passwd* pw = getpwuid(uid)) return pw->pw_name;
  return std::to_string(uid);
}

std::string fmt(const char* f, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

int show_queue(const std::string& user, bool json) {
  if (const auto why = slurm_unreachable()) {
    std::cerr << "tune queue: error: " << *why << "\n";
    return kExitUsage;
  }
  slurm_init(nullptr);
  job_info_msg_t* info = nullptr;
  if (slurm_load_jobs(0, &info, SHOW_ALL) != SLURM_SUCCESS) {
    std::cerr << "tune queue: error: cannot read the queue from slurmctld: " << slurm_compat::last_error()
              << " (is SLURM_CONF right, and slurmctld up?)\n";
    return kExitUsage;
  }
  std::vector<Row> rows;
  for (std::uint32_t i = 0; i < info->record_count; ++i) {
    const slurm_job_info_t& j = info->job_array[i];
    const std::uint32_t base = j.job_state & JOB_STATE_BASE;
    if (base != JOB_PENDING && base != JOB_RUNNING) continue;
    Row r{j.job_id,
          user_of(j.user_id, j.user_name),
          slurm_compat::state_string(j.job_state),
          base == JOB_PENDING ? slurm_compat::reason_string(j.state_reason) : "",
          base == JOB_PENDING,
          j.priority,
          j.system_comment ? parse_summary(j.system_comment) : std::nullopt,
          StudyRole::Study,
          "",
          std::nullopt};
    if (!user.empty() && r.user != user) continue;
    if (j.comment)
      if (const auto rec = parse_progress(j.comment)) r.role = rec->role, r.study = rec->study;
    rows.push_back(std::move(r));
  }
  slurm_free_job_info_msg(info);
  const bool mf = multifactor();
  if (mf) {
    std::vector<slurm_compat::PriorityFactors> factors;
    if (slurm_compat::load_priority_factors(factors)) {
      std::map<std::uint32_t, const slurm_compat::PriorityFactors*> by_job;
      for (const auto& f : factors) by_job.emplace(f.job_id, &f);  // a job in several partitions: the first
      for (auto& r : rows)
        if (const auto it = by_job.find(r.id); r.pending && it != by_job.end()) r.factors = *it->second;
    }
  }
  // Pending first, highest priority first (the order they start in), then running.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.pending != b.pending) return a.pending;
    if (a.pending && a.priority != b.priority) return a.priority > b.priority;
    return a.id < b.id;
  });

  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json j = {{"job_id", r.id}, {"user", r.user}, {"state", r.state}, {"priority", r.priority}};
      if (!r.study.empty()) j["role"] = role_name(r.role);
      if (r.pending) j["reason"] = r.reason;
      if (r.summary) {
        j["tenant"] = r.summary->tenant;
        if (r.summary->dominant_share) j["dominant_share"] = *r.summary->dominant_share;
        if (r.summary->factor) j["fair_share_factor"] = *r.summary->factor;
        if (r.summary->study) j["study"] = *r.summary->study, j["yield_level"] = r.summary->level;
        if (r.summary->priority) j["policy_priority"] = *r.summary->priority;
        if (r.summary->site) j["site_factor"] = *r.summary->site;
      }
      if (r.factors) {
        const auto& f = *r.factors;
        j["multifactor"] = {{"age", f.age},           {"fairshare", f.fairshare},
                            {"job_size", f.job_size}, {"partition", f.partition_factor},
                            {"qos", f.qos},           {"assoc", f.assoc},
                            {"tres", f.tres},         {"site", f.site},
                            {"nice", f.nice}};
        if (f.direct) j["multifactor"]["set_by_admin"] = true;
      }
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }

  bool unscored = false;
  std::function<void(const Row&, const char*)> print;
  if (mf) {
    // priority/multifactor's factors as sprio shows them (weighted), with
    // the SITE term site_factor/tune gives a yielding study's jobs.
    std::printf("%-8s %-12s %-8s %-16s %-24s %5s %10s %8s %9s %7s %9s %7s %11s  %s\n", "JOBID", "USER",
                "STATE", "TENANT", "STUDY", "YIELD", "PRIORITY", "AGE", "FAIRSHARE", "JOBSIZE", "PARTITION",
                "QOS", "SITE", "REASON");
    print = [&](const Row& r, const char* indent) {
      const auto& s = r.summary;
      const auto& f = r.factors;
      unscored = unscored || (!s && !r.study.empty());
      auto factor = [&](double v) { return f && !f->direct ? fmt("%.0f", v) : std::string("-"); };
      std::printf("%s%-*u %-12.12s %-8.8s %-16.16s %-24.24s %5s %10u %8s %9s %7s %9s %7s %11s  %s\n", indent,
                  8 - static_cast<int>(std::strlen(indent)), r.id, r.user.c_str(), r.state.c_str(),
                  s ? s->tenant.c_str() : "-", s && s->study ? s->study->c_str() : "-",
                  s && s->study ? std::to_string(s->level).c_str() : "-", r.priority,
                  factor(f ? f->age : 0).c_str(), factor(f ? f->fairshare : 0).c_str(),
                  factor(f ? f->job_size : 0).c_str(), factor(f ? f->partition_factor : 0).c_str(),
                  factor(f ? f->qos : 0).c_str(), f && !f->direct ? std::to_string(f->site).c_str() : "-",
                  r.reason.c_str());
    };
  } else {
    std::printf("%-8s %-12s %-8s %-16s %8s %7s %-24s %5s %10s  %s\n", "JOBID", "USER", "STATE", "TENANT",
                "DOMSHARE", "FSFACT", "STUDY", "YIELD", "PRIORITY", "REASON");
    print = [&](const Row& r, const char* indent) {
      const auto& s = r.summary;
      unscored = unscored || !s;
      std::printf(
          "%s%-*u %-12.12s %-8.8s %-16.16s %8s %7s %-24.24s %5s %10u  %s\n", indent,
          8 - static_cast<int>(std::strlen(indent)), r.id, r.user.c_str(), r.state.c_str(),
          s ? s->tenant.c_str() : "-", s && s->dominant_share ? fmt("%.3g", *s->dominant_share).c_str() : "-",
          s && s->factor ? fmt("%.3f", *s->factor).c_str() : "-", s && s->study ? s->study->c_str() : "-",
          s && s->study ? std::to_string(s->level).c_str() : "-",
          s && s->priority ? *s->priority : r.priority, r.reason.c_str());
    };
  }
  // Whole studies and plain jobs first; then each study's trial jobs under one heading.
  std::map<std::pair<std::string, std::string>, std::vector<const Row*>> trial_jobs;
  for (const auto& r : rows) {
    if (r.role == StudyRole::Trial)
      trial_jobs[{r.user, r.study}].push_back(&r);
    else
      print(r, "");
  }
  for (const auto& [who, group] : trial_jobs) {
    int pending = 0;
    std::vector<std::string> reasons;
    for (const Row* r : group)
      if (r->pending) {
        ++pending;
        reasons.push_back(r->reason);
      }
    const std::string limits = limit_reasons(reasons);
    const Row* any = group.front();
    std::printf("study %s of %s: %d trial job(s) pending, %zu running%s%s\n", who.second.c_str(),
                who.first.c_str(), pending, group.size() - static_cast<std::size_t>(pending),
                any->summary && any->summary->study
                    ? (", yield level " + std::to_string(any->summary->level)).c_str()
                    : "",
                limits.empty() ? "" : ("; held by a limit: " + limits).c_str());
    for (const Row* r : group) print(*r, "  ");
  }
  if (rows.empty())
    std::printf("(no pending or running jobs%s)\n", user.empty() ? "" : (" of " + user).c_str());
  if (unscored && mf)
    std::printf(
        "\n'-': site_factor/tune has not seen the study's job yet (it does every interval), or is not\n"
        "enabled (PrioritySiteFactorPlugin=site_factor/tune; see site_factor_tune(8)).\n");
  else if (unscored)
    std::printf(
        "\n'-': sched/tune has not scored the job yet (it does every interval), or is not enabled\n"
        "(SchedulerType=sched/tune or JobSubmitPlugins=tune; see sched_tune.conf(5)).\n");
  return kExitOk;
}

}  // namespace tune
