/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched/tune: dominant-resource fair share plus the adaptive priority that
 * lets plateaued studies yield (the policy lives in lib/; see
 * sched_tune.conf(5)). Chains sched/backfill, which keeps scheduling.
 */
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/plugin.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "sched_pass.h"
#include "tune_agent.h"

const char plugin_name[] = "tune fair-share and adaptive priority scheduler";
const char plugin_type[] = "sched/tune";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

typedef struct {
	int (*reconfig)(void);
} sched_ops_t;
static const char *sched_syms[] = { "sched_p_reconfig" };
static sched_ops_t backfill_ops;
static plugin_context_t *backfill = NULL;

extern int init(void)
{
	if (slurmctld_config.scheduling_disabled)
		return SLURM_SUCCESS;
	if (!tune_sched_under_multifactor(plugin_type) &&
	    tune_agent_start(tune_sched_host(plugin_type)) != SLURM_SUCCESS) {
		return SLURM_ERROR;
	}
	backfill = plugin_context_create("sched", "sched/backfill", (void **) &backfill_ops,
					 sched_syms, sizeof(sched_syms));
	if (!backfill) {
		error("sched/tune: cannot load sched/backfill; jobs are still scheduled in priority order");
	}
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	tune_agent_stop();
	if (backfill) {
		plugin_context_destroy(backfill);
		backfill = NULL;
	}
}

extern int sched_p_reconfig(void)
{
	tune_agent_reconfig();
	if (backfill)
		(*(backfill_ops.reconfig))();
	return SLURM_SUCCESS;
}
