// SPDX-License-Identifier: GPL-2.0-or-later
// What tune submit asks slurmctld before it submits: the time limits of the
// partition a job goes to, and whether a job of this user still runs a
// batch script (a study submitted before). Mechanism only: what to say about
// them is lib/command/submit_notes's. Call them once slurm_unreachable() said
// the cluster answers (libslurm's initialisation is fatal without one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "command/submit_notes.hpp"

namespace tune {

// The partition's times; `partition` empty: the default partition. Nothing
// when slurmctld does not answer or knows no such partition.
std::optional<PartitionTimes> partition_times(const std::string& partition);

// A pending or running job of this user whose batch script is `script`.
std::optional<std::uint32_t> queued_job_of_script(const std::string& script);

}  // namespace tune
