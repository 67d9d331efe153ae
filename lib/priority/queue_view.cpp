// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/queue_view.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "report/strf.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune {
namespace {

const char* role_name(StudyRole r) {
  return r == StudyRole::Trial ? "trial" : r == StudyRole::AppCore ? "appcore" : "study";
}

std::string fmt(const char* f, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::vector<QueueRow> queue_rows(const std::vector<QueuedJob>& jobs,
                                 const std::vector<PriorityFactors>& factors, const std::string& user) {
  std::map<std::uint32_t, const PriorityFactors*> by_job;
  for (const auto& f : factors) by_job.emplace(f.job_id, &f);  // a job in several partitions: the first
  std::vector<QueueRow> rows;
  for (const QueuedJob& j : jobs) {
    if (!user.empty() && j.user != user) continue;
    QueueRow r;
    r.job = j;
    if (!j.system_comment.empty()) r.summary = parse_summary(j.system_comment);
    if (!j.comment.empty())
      if (const auto rec = parse_progress(j.comment)) r.role = rec->role, r.study = rec->study;
    if (const auto it = by_job.find(j.id); j.pending && it != by_job.end()) r.factors = *it->second;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const QueueRow& a, const QueueRow& b) {
    if (a.job.pending != b.job.pending) return a.job.pending;
    if (a.job.pending && a.job.priority != b.job.priority) return a.job.priority > b.job.priority;
    return a.job.id < b.job.id;
  });
  return rows;
}

nlohmann::json queue_json(const std::vector<QueueRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json j = {
        {"job_id", r.job.id}, {"user", r.job.user}, {"state", r.job.state}, {"priority", r.job.priority}};
    if (!r.study.empty()) j["role"] = role_name(r.role);
    if (r.job.pending) j["reason"] = r.job.reason;
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
  return out;
}

std::string queue_table(const std::vector<QueueRow>& rows, bool mf, const std::string& user) {
  std::string out;
  bool unscored = false;
  std::function<std::string(const QueueRow&, const char*)> row;
  if (mf) {
    // priority/multifactor's factors as sprio shows them (weighted), with
    // the SITE term site_factor/tune gives a yielding study's jobs.
    out += strf("%-8s %-12s %-8s %-16s %-24s %5s %10s %8s %9s %7s %9s %7s %11s  %s\n", "JOBID", "USER",
                "STATE", "TENANT", "STUDY", "YIELD", "PRIORITY", "AGE", "FAIRSHARE", "JOBSIZE", "PARTITION",
                "QOS", "SITE", "REASON");
    row = [&](const QueueRow& r, const char* indent) {
      const auto& s = r.summary;
      const auto& f = r.factors;
      unscored = unscored || (!s && !r.study.empty());
      auto factor = [&](double v) { return f && !f->direct ? fmt("%.0f", v) : std::string("-"); };
      return strf("%s%-*u %-12.12s %-8.8s %-16.16s %-24.24s %5s %10u %8s %9s %7s %9s %7s %11s  %s\n", indent,
                  8 - static_cast<int>(std::strlen(indent)), r.job.id, r.job.user.c_str(),
                  r.job.state.c_str(), s ? s->tenant.c_str() : "-", s && s->study ? s->study->c_str() : "-",
                  s && s->study ? std::to_string(s->level).c_str() : "-", r.job.priority,
                  factor(f ? f->age : 0).c_str(), factor(f ? f->fairshare : 0).c_str(),
                  factor(f ? f->job_size : 0).c_str(), factor(f ? f->partition_factor : 0).c_str(),
                  factor(f ? f->qos : 0).c_str(), f && !f->direct ? std::to_string(f->site).c_str() : "-",
                  r.job.reason.c_str());
    };
  } else {
    out += strf("%-8s %-12s %-8s %-16s %8s %7s %-24s %5s %10s  %s\n", "JOBID", "USER", "STATE", "TENANT",
                "DOMSHARE", "FSFACT", "STUDY", "YIELD", "PRIORITY", "REASON");
    row = [&](const QueueRow& r, const char* indent) {
      const auto& s = r.summary;
      unscored = unscored || !s;
      return strf(
          "%s%-*u %-12.12s %-8.8s %-16.16s %8s %7s %-24.24s %5s %10u  %s\n", indent,
          8 - static_cast<int>(std::strlen(indent)), r.job.id, r.job.user.c_str(), r.job.state.c_str(),
          s ? s->tenant.c_str() : "-", s && s->dominant_share ? fmt("%.3g", *s->dominant_share).c_str() : "-",
          s && s->factor ? fmt("%.3f", *s->factor).c_str() : "-", s && s->study ? s->study->c_str() : "-",
          s && s->study ? std::to_string(s->level).c_str() : "-",
          s && s->priority ? *s->priority : r.job.priority, r.job.reason.c_str());
    };
  }
  // Whole studies and plain jobs first; then each study's trial jobs under one heading.
  std::map<std::pair<std::string, std::string>, std::vector<const QueueRow*>> trial_jobs;
  for (const auto& r : rows) {
    if (r.role == StudyRole::Trial)
      trial_jobs[{r.job.user, r.study}].push_back(&r);
    else
      out += row(r, "");
  }
  for (const auto& [who, group] : trial_jobs) {
    int pending = 0;
    std::vector<std::string> reasons;
    for (const QueueRow* r : group)
      if (r->job.pending) {
        ++pending;
        reasons.push_back(r->job.reason);
      }
    const std::string limits = limit_reasons(reasons);
    const QueueRow* any = group.front();
    out += strf("study %s of %s: %d trial job(s) pending, %zu running%s%s\n", who.second.c_str(),
                who.first.c_str(), pending, group.size() - static_cast<std::size_t>(pending),
                any->summary && any->summary->study
                    ? (", yield level " + std::to_string(any->summary->level)).c_str()
                    : "",
                limits.empty() ? "" : ("; held by a limit: " + limits).c_str());
    for (const QueueRow* r : group) out += row(*r, "  ");
  }
  if (rows.empty())
    out += strf("(no pending or running jobs%s)\n", user.empty() ? "" : (" of " + user).c_str());
  if (unscored && mf)
    out +=
        "\n'-': site_factor/tune has not seen the study's job yet (it does every interval), or is not\n"
        "enabled (PrioritySiteFactorPlugin=site_factor/tune; see site_factor_tune(8)).\n";
  else if (unscored)
    out +=
        "\n'-': sched/tune has not scored the job yet (it does every interval), or is not enabled\n"
        "(SchedulerType=sched/tune or JobSubmitPlugins=tune; see sched_tune.conf(5)).\n";
  return out;
}

}  // namespace tune
