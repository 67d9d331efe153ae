// SPDX-License-Identifier: GPL-2.0-or-later
// What the plugins read of a Slurm job, turned into the policy's view: one
// function per fact, so that the C shims copy fields and decide nothing, and
// the simulator's readers count the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tune {

// Who a job counts for in fair share: its account; without one "user:NAME";
// without a user either, `fallback`.
std::string tenant_of(std::string_view account, std::string_view user, std::string_view fallback = "");

// Whether a pending job waits for the cluster, by Slurm's name of its reason
// (as squeue shows it): no reason yet ("None"), "Priority" or "Resources".
// A held job (priority 0), a dependency, a begin time, a limit does not.
bool waits_for_cluster(std::string_view reason, bool held);

// The job's SystemComment with tune's summary (the text from "tune:tenant="
// on) put in place of the previous one, or after the site's own text;
// nothing when it already holds exactly that summary.
std::optional<std::string> merge_summary(std::string_view system_comment, std::string_view summary);

}  // namespace tune
