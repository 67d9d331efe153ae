/*
 * sched/tune's pass (hosted by sched/tune or job_submit/tune): every
 * interval, under slurmctld's job write lock, give pending jobs the
 * priorities the policy computes and ask plateaued whole-allocation studies
 * to yield, then let the main scheduler run. No decision is made here.
 */
#include <sys/time.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/log.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "sched_pass.h"
#include "tune_jobs.h"

extern void tune_sched_pass(tune_policy_t *policy, const char *name)
{
	/* conf, job, node, part, fed: the node write lock is for job_signal(). */
	slurmctld_lock_t lock = { READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, NO_LOCK };
	struct timeval t0, t1;
	tune_jobs_t t;
	char err[512] = "";
	size_t n, i;
	int changed = 0, signalled = 0, set = 0, placed = 0;
	time_t now = time(NULL);

	lock_slurmctld(lock);
	gettimeofday(&t0, NULL);
	tune_jobs_collect(&t);
	n = t.n;
	if (tune_policy_pass(policy, (double) now, t.cap_cpus, t.cap_mem_mb, t.cap_gpus,
			     t.jobs, n, t.out, err, sizeof(err)) != 0) {
		error("%s: policy pass failed, priorities unchanged: %s", name, err);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		job_record_t *job_ptr = t.refs[i];
		tune_decision_t *d = &t.out[i];

		if (d->set_priority && job_ptr->priority != d->priority) {
			/* Below the policy's band: submitted since the last pass. */
			if (job_ptr->priority < TUNE_BAND_LOW)
				placed++;
			job_ptr->priority = d->priority;
			changed++;
		}
		if (d->set_priority)
			set++;
		tune_jobs_set_summary(job_ptr, d->summary);
		if (d->signal) {
			tune_jobs_signal(name, job_ptr, d->signal);
			signalled++;
		}
	}
	if (changed)
		last_job_update = now;
	gettimeofday(&t1, NULL);
	unlock_slurmctld(lock);

	debug("%s: pass over %zu jobs (%d priorities, %d changed, %d yield signals) held the job write lock %ld us",
	      name, n, set, changed, signalled,
	      (long) ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec)));
	tune_jobs_free(&t);

	/* Jobs that waited below the band for this pass may start now: ask the
	 * scheduler thread at once (queue_job_scheduler would wait for
	 * batch_sched_delay), as slurmctld does when an epilog completes. */
	if (placed)
		schedule(false);
	else if (changed)
		queue_job_scheduler();
}

const tune_host_ops_t *tune_sched_host(const char *name)
{
	static tune_host_ops_t host;

	host.name = name;
	host.kind = TUNE_HOST_SCHED;
	host.conf_name = "sched_tune.conf";
	host.params = slurm_conf.sched_params;
	host.params_name = "SchedulerParameters";
	host.state_name = "sched_tune.state";
	host.pass = tune_sched_pass;
	return &host;
}
