// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/job_facts.hpp"

namespace tune {

std::string tenant_of(std::string_view account, std::string_view user, std::string_view fallback) {
  if (!account.empty()) return std::string(account);
  if (!user.empty()) return "user:" + std::string(user);
  return std::string(fallback);
}

bool account_is_tenant(TenantBy by, bool accounts_validated) {
  switch (by) {
    case TenantBy::Account: return true;
    case TenantBy::User: return false;
    case TenantBy::Auto: return accounts_validated;
  }
  return false;
}

bool waits_for_cluster(std::string_view reason, bool held) {
  if (held) return false;
  return reason.empty() || reason == "None" || reason == "Priority" || reason == "Resources";
}

bool may_set_priority(bool pending, bool held, bool admin_set) {
  return pending && !held && !admin_set;
}

JobView job_view(const JobFacts& f, TenantBy by) {
  JobView v;
  v.id = f.id;
  v.uid = f.uid;
  const std::string uid = "uid:" + std::to_string(f.uid);  // a user with no name
  v.tenant = account_is_tenant(by, f.accounts_validated) ? tenant_of(f.account, f.user_name, uid)
                                                         : tenant_of("", f.user_name, uid);
  v.comment = std::string(f.comment);
  v.state = f.running ? JobView::State::Running : JobView::State::Pending;
  v.may_set = may_set_priority(!f.running, f.held, f.admin_set);
  v.waiting = !f.running && waits_for_cluster(f.reason, f.held);
  v.eligible = f.eligible;
  v.started = f.started;
  v.request = f.request;
  v.base_priority = f.base_priority;
  v.fairshare = f.fairshare;
  return v;
}

std::optional<std::string> merge_summary(std::string_view old, std::string_view summary) {
  constexpr std::string_view kMark = "tune:tenant=";
  const auto mine = old.find(kMark);
  if (mine != std::string_view::npos) {
    if (old.substr(mine) == summary) return std::nullopt;
    std::size_t keep = mine;
    while (keep > 0 && old[keep - 1] == ' ') --keep;
    return keep ? std::string(old.substr(0, keep)) + " " + std::string(summary) : std::string(summary);
  }
  if (!old.empty()) return std::string(old) + " " + std::string(summary);
  return std::string(summary);
}

}  // namespace tune
