/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * site_factor/tune: Algorithm 1's yield level of each study (lib/priority's
 * SiteFactorPolicy, the same progress records and StudyTracker as
 * sched/tune) as the SITE term of priority/multifactor, for clusters that
 * keep multifactor's fair share, QOS, age and job size factors and slurmdbd.
 * See site_factor_tune(8).
 *
 * Slurm calls site_factor_p_update only every PriorityCalcPeriod (minutes),
 * so the plugin acts from its own thread every `interval` seconds: under the
 * job write lock it gives each pending job of a study its term and
 * recomputes the job's priority through Slurm's own set_job_prio();
 * site_factor_p_set, which that recompute (and every submit, update, release
 * and requeue) calls first, returns the same term, so no recompute undoes it.
 * Held jobs (priority 0) and priorities an admin set are never recomputed.
 */
#include <pthread.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "tune_agent.h"
#include "tune_jobs.h"

const char plugin_name[] = "tune adaptive priority as priority/multifactor's site factor";
const char plugin_type[] = "site_factor/tune";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* site_factor_p_set runs in slurmctld's RPC threads: it uses the policy only
 * while `live`, which fini clears (write lock) before the agent frees it. */
static pthread_rwlock_t use_lock = PTHREAD_RWLOCK_INITIALIZER;
static bool live = false;

/* The term as slurmctld stores it: offset by NICE_OFFSET, never above it. */
static uint32_t _stored(int64_t site)
{
	int64_t v = (int64_t) NICE_OFFSET + (site > 0 ? 0 : site);
	return v < 1 ? 1 : (uint32_t) v;
}

/* The job's priority may be recomputed: the policy's own rule. */
static bool _may_recompute(job_record_t *job_ptr)
{
	return tune_may_set_priority(IS_JOB_PENDING(job_ptr), job_ptr->priority == 0,
				     job_ptr->direct_set_prio != 0);
}

/* The SITE term, and Slurm's own recompute of the priority with it (it asks
 * site_factor_p_set, which answers the same term). */
static void _apply_site(job_record_t *job_ptr, const tune_decision_t *d, tune_pass_counts_t *counts)
{
	uint32_t stored;

	if (!d->set_site || !_may_recompute(job_ptr))
		return;
	stored = _stored(d->site);
	counts->set++;
	if (job_ptr->site_factor != stored) {
		job_ptr->site_factor = stored;
		set_job_prio(job_ptr);
		counts->changed++;
	}
}

static void _site_pass(tune_policy_t *policy, const char *name)
{
	if (tune_jobs_pass(policy, name, "site factors", _apply_site).changed)
		queue_job_scheduler();
}

extern int init(void)
{
	static tune_host_ops_t host;

	host.name = plugin_type;
	host.policy = "site_factor/tune";
	host.params = slurm_conf.site_factor_params;
	host.pass = _site_pass;
	if (tune_agent_start(&host) != SLURM_SUCCESS)
		return SLURM_ERROR;
	pthread_rwlock_wrlock(&use_lock);
	live = true;
	pthread_rwlock_unlock(&use_lock);
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	pthread_rwlock_wrlock(&use_lock);
	live = false;
	pthread_rwlock_unlock(&use_lock);
	tune_agent_stop();
}

/* Called with the job write lock held, before multifactor sums the factors. */
extern void site_factor_p_set(job_record_t *job_ptr)
{
	int64_t site;

	if (!job_ptr || !IS_JOB_PENDING(job_ptr))
		return;
	pthread_rwlock_rdlock(&use_lock);
	if (live && tune_policy_site_for(tune_agent_policy(), job_ptr->job_id, job_ptr->user_id,
					 job_ptr->comment, &site))
		job_ptr->site_factor = _stored(site);
	pthread_rwlock_unlock(&use_lock);
}

/* Every PriorityCalcPeriod, under the job write lock: the terms are already
 * in place (the thread keeps them current within `interval` seconds). */
extern void site_factor_p_update(void)
{
}

/* Slurm 22.05 calls it at `scontrol reconfigure` (later series start a new
 * slurmctld, whose init reads the file). */
extern void site_factor_p_reconfig(void)
{
	tune_agent_reconfig();
}
