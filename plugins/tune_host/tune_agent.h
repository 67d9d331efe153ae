/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The policy thread shared by sched/tune, job_submit/tune and site_factor/tune. */
#ifndef TUNE_AGENT_H
#define TUNE_AGENT_H

#include "tune_policy.h"

typedef struct {
	const char *name;	/* plugin_type, for messages */
	const char *policy;	/* the policy it hosts, by its name in lib/priority: its files and rules are that entry's */
	const char *params;	/* the slurm.conf parameters that may name its file (tune_conf=PATH) */
	/* One pass, called every interval from the agent's thread. */
	void (*pass)(tune_policy_t *policy, const char *name);
} tune_host_ops_t;

/* Reads the configuration and the saved state, starts the thread.
 * SLURM_ERROR (and the reason in the log) when the configuration is broken. */
extern int tune_agent_start(const tune_host_ops_t *host);
extern void tune_agent_stop(void);
/* Re-read the configuration; a broken file keeps the old settings. */
extern void tune_agent_reconfig(void);
/* The running policy (NULL when not started): for site_factor_p_set. */
extern tune_policy_t *tune_agent_policy(void);

#endif
