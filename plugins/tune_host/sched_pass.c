/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched/tune's pass (hosted by sched/tune or job_submit/tune): every
 * interval, under slurmctld's job write lock, give pending jobs the
 * priorities the policy computes and ask plateaued whole-allocation studies
 * to yield, then let the main scheduler run. No decision is made here.
 */
#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/slurmctld.h"

#include "sched_pass.h"
#include "tune_jobs.h"

/* A priority in the policy's band. */
static void _apply_priority(job_record_t *job_ptr, const tune_decision_t *d, tune_pass_counts_t *counts)
{
	if (!d->set_priority)
		return;
	counts->set++;
	if (job_ptr->priority != d->priority) {
		/* Below the policy's band: submitted since the last pass. */
		if (job_ptr->priority < TUNE_BAND_LOW)
			counts->placed++;
		job_ptr->priority = d->priority;
		counts->changed++;
	}
}

extern void tune_sched_pass(tune_policy_t *policy, const char *name)
{
	tune_pass_counts_t counts = tune_jobs_pass(policy, name, "priorities", _apply_priority);

	/* Jobs that waited below the band for this pass may start now: ask the
	 * scheduler thread at once (queue_job_scheduler would wait for
	 * batch_sched_delay), as slurmctld does when an epilog completes. */
	if (counts.placed)
		schedule(false);
	else if (counts.changed)
		queue_job_scheduler();
}

extern bool tune_sched_under_multifactor(const char *name)
{
	if (xstrcmp(slurm_conf.priority_type, "priority/multifactor"))
		return false;
	error("%s: PriorityType=priority/multifactor recomputes every pending priority, so this plugin's would not hold: its policy is off. Use PrioritySiteFactorPlugin=site_factor/tune instead (site_factor_tune(8))",
	      name);
	return true;
}

const tune_host_ops_t *tune_sched_host(const char *name)
{
	static tune_host_ops_t host;

	host.name = name;
	host.policy = "sched/tune";
	host.params = slurm_conf.sched_params;
	host.pass = tune_sched_pass;
	return &host;
}
