// SPDX-License-Identifier: GPL-2.0-or-later
// Whether a Slurm cluster is reachable from this process, asked before tune
// submit, tune queue or tune run --trial-jobs talk to it, so that a machine
// without one gets a plain answer (and how to start or point at one) instead
// of libslurm's fatal() about configuration sources, or its minute of
// retries on a SLURM_CONF that names no file.
#pragma once

#include <optional>
#include <string>

namespace tune {

// Empty when slurmctld answered. Otherwise what is missing, in one line,
// followed by the fix: "no Slurm cluster is reachable: ...". libslurm is
// asked in a child process (its fatal() ends the child, not tune), in the
// order it looks itself: SLURM_CONF, its default slurm.conf, a configless
// slurmd's copy, DNS SRV records; then slurmctld is asked for its
// configuration (through every controller slurm.conf lists) unless
// ask_controller is false (an AppCore rides out a slurmctld that is down).
std::optional<std::string> slurm_unreachable(bool ask_controller = true);

}  // namespace tune
