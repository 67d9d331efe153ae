/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched/tune's pass, for the two plugins that host it. */
#ifndef TUNE_SCHED_PASS_H
#define TUNE_SCHED_PASS_H

#include <stdbool.h>

#include "tune_agent.h"

extern void tune_sched_pass(tune_policy_t *policy, const char *name);
/* Under priority/multifactor slurmctld recomputes every pending priority,
 * so sched/tune's would not hold: true then, with the reason and the way
 * (site_factor/tune) in the log. */
extern bool tune_sched_under_multifactor(const char *name);
/* The agent's description of sched/tune hosted by plugin `name`. */
extern const tune_host_ops_t *tune_sched_host(const char *name);

#endif
