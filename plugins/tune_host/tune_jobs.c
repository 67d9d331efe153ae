/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Copying slurmctld's jobs into plain structs for a policy pass, and the
 * parts of applying a pass that every hosting form shares. No decision is
 * made here.
 */
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "slurm_compat.h"

#include TUNE_SLURM_GRES_H
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "tune_jobs.h"

/* The job's GPUs: what it holds (allocated), or its request counted by
 * lib/placement's gpu_count (tune_gpu_count). */
static double _gpus_of(tune_list_t *gres, bool allocated, job_record_t *job_ptr, uint32_t gpu_id)
{
	double gpus = 0;
	tune_list_itr_t *it;
	gres_state_t *gs;
	int nodes = job_ptr->details ? (int) job_ptr->details->min_nodes : 1;
	int tasks = job_ptr->details ? (int) job_ptr->details->num_tasks : 1;

	if (!gres)
		return 0;
	it = list_iterator_create(gres);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		if (gs->plugin_id != gpu_id || !js)
			continue;
		if (allocated)
			gpus += js->total_gres;
		else
			gpus += tune_gpu_count((int) js->gres_per_job, (int) js->gres_per_node, (int) js->gres_per_task,
					       (int) js->gres_per_socket, nodes, tasks);
	}
	list_iterator_destroy(it);
	return gpus;
}

extern void tune_jobs_collect(tune_jobs_t *t)
{
	static uint32_t gpu_id = 0;
	job_record_t *job_ptr;
	node_record_t *node_ptr;
	tune_list_itr_t *it;
	size_t cap;

	if (!gpu_id)
		gpu_id = gres_build_id("gpu");
	memset(t, 0, sizeof(*t));
	for (int idx = 0; (node_ptr = next_node(&idx)); idx++) {
		t->cap_cpus += node_ptr->config_ptr ? node_ptr->config_ptr->cpus : node_ptr->cpus;
		t->cap_mem_mb += node_ptr->real_memory;
	}
	t->cap_gpus = (double) TUNE_GRES_SYSTEM_CNT("gpu");
	cap = list_count(job_list);
	t->cap = cap;
	t->jobs = xcalloc(cap ? cap : 1, sizeof(*t->jobs));
	t->out = xcalloc(cap ? cap : 1, sizeof(*t->out));
	t->refs = xcalloc(cap ? cap : 1, sizeof(*t->refs));

	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && t->n < cap) {
		tune_job_t *j = &t->jobs[t->n];
		bool pending = IS_JOB_PENDING(job_ptr);

		if (!pending && !IS_JOB_RUNNING(job_ptr))
			continue;
		j->job_id = job_ptr->job_id;
		j->user_id = job_ptr->user_id;
		/* Facts only: lib/priority/job_facts decides the tenant and whether it waits. */
		j->account = job_ptr->account;
		j->accounts_validated = (slurm_conf.accounting_storage_enforce & ACCOUNTING_ENFORCE_ASSOCS) != 0;
		j->user_name = uid_to_string_cached(job_ptr->user_id);
		j->comment = job_ptr->comment;
		j->reason = pending ? TUNE_JOB_REASON_STRING(job_ptr->state_reason) : NULL;
		j->running = !pending;
		j->held = job_ptr->priority == 0;
		j->admin_set = job_ptr->direct_set_prio != 0;
		/* Under priority/multifactor: the priority without the SITE term. */
		j->base_priority = (double) job_ptr->priority -
				   ((double) job_ptr->site_factor - (double) NICE_OFFSET);
		/* ... and its fair-share term, as sprio shows it. */
		if (job_ptr->prio_factors)
			j->fairshare = job_ptr->prio_factors->priority_fs *
				       (double) slurm_conf.priority_weight_fs;
		if (job_ptr->details) {
			time_t begin = job_ptr->details->begin_time;
			j->eligible = begin ? begin : job_ptr->details->submit_time;
		}
		j->started = job_ptr->start_time;
		if (pending) {
			if (job_ptr->tres_req_cnt) {
				j->cpus = job_ptr->tres_req_cnt[TRES_ARRAY_CPU];
				j->mem_mb = job_ptr->tres_req_cnt[TRES_ARRAY_MEM];
			} else if (job_ptr->details) {
				j->cpus = job_ptr->details->min_cpus;
			}
			j->gpus = _gpus_of(job_ptr->gres_list_req, false, job_ptr, gpu_id);
		} else {
			j->cpus = job_ptr->total_cpus;
			if (job_ptr->tres_alloc_cnt)
				j->mem_mb = job_ptr->tres_alloc_cnt[TRES_ARRAY_MEM];
			j->gpus = _gpus_of(job_ptr->gres_list_alloc, true, job_ptr, gpu_id);
		}
		t->refs[t->n++] = job_ptr;
	}
	list_iterator_destroy(it);
}

extern void tune_jobs_free(tune_jobs_t *t)
{
	xfree(t->jobs);
	xfree(t->out);
	xfree(t->refs);
	memset(t, 0, sizeof(*t));
}

extern void tune_jobs_set_summary(job_record_t *job_ptr, const char *summary)
{
	size_t len = tune_merge_summary(job_ptr->system_comment, summary, NULL, 0);
	char *merged;

	if (!len)
		return;  /* it holds this summary already */
	merged = xmalloc(len + 1);
	tune_merge_summary(job_ptr->system_comment, summary, merged, len + 1);
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = merged;
}

extern void tune_jobs_signal(const char *name, job_record_t *job_ptr, int signal)
{
	/* The batch shell only (tune wrap, which passes it on to tune run); signalling
	 * every step would kill the trials. */
	int rc = job_signal(job_ptr, signal, KILL_JOB_BATCH, 0, false);
	info("%s: JobId=%u study yields: signal %d to its batch shell (%s)",
	     name, job_ptr->job_id, signal, rc == SLURM_SUCCESS ? "sent" : slurm_strerror(rc));
}

extern tune_pass_counts_t tune_jobs_pass(tune_policy_t *policy, const char *name, const char *what,
					 void (*apply)(job_record_t *job_ptr, const tune_decision_t *d,
						       tune_pass_counts_t *counts))
{
	/* conf, job, node, part, fed: the node write lock is for job_signal(),
	 * the partition read lock for set_job_prio's partition factors. */
	slurmctld_lock_t lock = { READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, NO_LOCK };
	tune_pass_counts_t counts = { 0, 0, 0 };
	struct timeval t0, t1;
	tune_jobs_t t;
	char err[512] = "";
	size_t n, i;
	int signalled = 0;
	time_t now = time(NULL);

	lock_slurmctld(lock);
	gettimeofday(&t0, NULL);
	tune_jobs_collect(&t);
	n = t.n;
	if (tune_policy_pass(policy, (double) now, t.cap_cpus, t.cap_mem_mb, t.cap_gpus,
			     t.jobs, n, t.out, err, sizeof(err)) != 0) {
		error("%s: policy pass failed, %s unchanged: %s", name, what, err);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		job_record_t *job_ptr = t.refs[i];
		tune_decision_t *d = &t.out[i];

		apply(job_ptr, d, &counts);
		tune_jobs_set_summary(job_ptr, d->summary);
		if (d->signal) {
			tune_jobs_signal(name, job_ptr, d->signal);
			signalled++;
		}
	}
	if (counts.changed)
		last_job_update = now;
	gettimeofday(&t1, NULL);
	unlock_slurmctld(lock);

	debug("%s: pass over %zu jobs (%d %s, %d changed, %d yield signals) held the job write lock %ld us",
	      name, n, counts.set, what, counts.changed, signalled,
	      (long) ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec)));
	tune_jobs_free(&t);
	for (i = 0; tune_policy_change(policy, i, err, sizeof(err)); i++)
		info("%s: %s", name, err);
	return counts;
}
