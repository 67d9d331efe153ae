/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * job_submit/tune: the sched/tune policy hosted by a job_submit plugin, for
 * sites that keep SchedulerType=sched/backfill (Slurm 22.05 accepts
 * heterogeneous jobs only under it). Submissions and changes pass through
 * untouched; the policy thread sets priorities as under sched/tune.
 */
#include "slurm/slurm_errno.h"

#include "slurm_compat.h"

#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "sched_pass.h"
#include "tune_agent.h"

const char plugin_name[] = "tune fair-share and adaptive priority (job_submit hosting)";
const char plugin_type[] = "job_submit/tune";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static bool hosting = false;

extern int init(void)
{
	if (!xstrcmp(slurm_conf.schedtype, "sched/tune")) {
		info("job_submit/tune: SchedulerType=sched/tune already runs the policy; this plugin passes jobs through");
		return SLURM_SUCCESS;
	}
	if (tune_sched_under_multifactor(plugin_type))
		return SLURM_SUCCESS;
	if (tune_agent_start(tune_sched_host(plugin_type)) != SLURM_SUCCESS)
		return SLURM_ERROR;
	hosting = true;
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	if (hosting)
		tune_agent_stop();
	hosting = false;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	(void) job_desc;
	(void) submit_uid;
	(void) err_msg;
	return SLURM_SUCCESS;
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, uint32_t submit_uid TUNE_JOB_MODIFY_TAIL_PARAMS)
{
	(void) job_desc;
	(void) job_ptr;
	(void) submit_uid;
	return SLURM_SUCCESS;
}
