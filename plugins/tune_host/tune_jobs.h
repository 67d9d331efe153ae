/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Jobs copied out of slurmctld for a policy pass, and what a pass applies
 * to them in every hosting form: the summary for `tune queue` and a yield
 * signal. Called with the job write and node write locks held. */
#ifndef TUNE_JOBS_H
#define TUNE_JOBS_H

#include <stddef.h>

#include "src/slurmctld/slurmctld.h"

#include "tune_policy.h"

typedef struct {
	size_t n;
	tune_job_t *jobs;
	tune_decision_t *out;
	job_record_t **refs;
	size_t cap;
	double cap_cpus, cap_mem_mb, cap_gpus;
} tune_jobs_t;

/* Every pending and running job, and the cluster's capacity. */
extern void tune_jobs_collect(tune_jobs_t *j);
extern void tune_jobs_free(tune_jobs_t *j);
/* The tune record in system_comment replaces the previous one; other text an
 * admin put there stays in front of it. */
extern void tune_jobs_set_summary(job_record_t *job_ptr, const char *summary);
/* Asks a whole-allocation study to yield: the signal to its batch shell. */
extern void tune_jobs_signal(const char *name, job_record_t *job_ptr, int signal);

/* What a host's pass did: decisions it applied, jobs it changed, and jobs
 * it placed that waited for their first pass (sched/tune). */
typedef struct {
	int set, changed, placed;
} tune_pass_counts_t;

/* One pass in every hosting form: under the job write lock (and node write
 * for yield signals, partition read), copy the jobs out, ask the policy,
 * give each decision to `apply` (the host's part: a priority, a site
 * term), publish the summary, send yield signals; log the lock time with
 * `what` naming the decisions. */
extern tune_pass_counts_t tune_jobs_pass(tune_policy_t *policy, const char *name, const char *what,
					 void (*apply)(job_record_t *job_ptr, const tune_decision_t *d,
						       tune_pass_counts_t *counts));

#endif
