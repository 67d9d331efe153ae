// SPDX-License-Identifier: GPL-2.0-or-later
// What the plugins read of a Slurm job, turned into the policy's view: one
// function per fact and one builder of the view, so that the C shims copy
// fields and decide nothing, and the simulator builds its views the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fairshare/fair_share.hpp"
#include "priority/study_tracker.hpp"

namespace tune {

// Who a job counts for in fair share: its account; without one "user:NAME";
// without a user either, `fallback`.
std::string tenant_of(std::string_view account, std::string_view user, std::string_view fallback = "");

// Whether the account a job names is its tenant (TenantBy): under Auto,
// only where Slurm validates accounts.
bool account_is_tenant(TenantBy by, bool accounts_validated);

// Whether a pending job waits for the cluster, by Slurm's name of its reason
// (as squeue shows it): no reason yet ("None"), "Priority" or "Resources".
// A held job (priority 0), a dependency, a begin time, a limit does not.
bool waits_for_cluster(std::string_view reason, bool held);

// Whether a policy may set a job's priority or SITE term: pending, not held
// (priority 0) and not set by an admin by hand (scontrol update priority=).
bool may_set_priority(bool pending, bool held, bool admin_set);

// A job as slurmctld (or the simulated one) holds it.
struct JobFacts {
  std::uint32_t id = 0, uid = 0;
  std::string_view account, user_name;  // either may be empty
  std::string_view comment;             // untrusted: the owner writes it
  std::string_view reason;              // pending: Slurm's name of its reason
  bool running = false;                 // else pending
  bool held = false, admin_set = false;
  double eligible = 0, started = 0;  // epoch seconds
  Resources request;                 // asks for (pending) or holds (running)
  double base_priority = 0;          // priority/multifactor's, without the SITE term
  double fairshare = 0;              // ... and its weighted fair-share term in it
  // Slurm refuses accounts the user has no association with
  // (AccountingStorageEnforce=associations): the account is the user's to name.
  bool accounts_validated = false;
};

// The policy's view of the job; its tenant as `by` says.
JobView job_view(const JobFacts& f, TenantBy by = TenantBy::Auto);

// The job's SystemComment with tune's summary (the text from "tune:tenant="
// on) put in place of the previous one, or after the site's own text;
// nothing when it already holds exactly that summary.
std::optional<std::string> merge_summary(std::string_view system_comment, std::string_view summary);

}  // namespace tune
