/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C interface between the plugins' shim (C, Slurm's private headers) and
 * the policies in lib/ (C++): sched/tune's SchedTunePolicy or
 * site_factor/tune's SiteFactorPolicy, chosen at load. Every function is
 * noexcept: an exception in the policy becomes an error return and a
 * message, never a slurmctld crash. Each call holds the policy's own lock
 * (taken last, never held while waiting for another), so
 * tune_policy_site_for may be called from any slurmctld thread.
 */
#ifndef TUNE_POLICY_H
#define TUNE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	uint32_t job_id;
	uint32_t user_id;
	const char *account;   /* may be NULL or "" */
	const char *user_name; /* may be NULL */
	const char *comment;   /* may be NULL */
	const char *reason;    /* pending: Slurm's name of its reason (squeue's), may be NULL */
	int running;           /* 0: pending */
	int held;              /* priority 0 */
	int admin_set;         /* priority set by an admin by hand */
	double eligible;     /* epoch seconds */
	double started;      /* epoch seconds, running jobs */
	double cpus, mem_mb, gpus;
	double base_priority; /* site_factor/tune: priority without the SITE term */
	double fairshare;     /* site_factor/tune: multifactor's weighted fair-share term */
	int accounts_validated; /* AccountingStorageEnforce=associations: Slurm checked its account */
} tune_job_t;

/* The lowest priority the policy gives in slurmctld (lib/priority's
 * kSlurmBandLow): jobs below it have not been ordered by a pass yet. */
#define TUNE_BAND_LOW 0xffff0001u

#define TUNE_SUMMARY_LEN 240
typedef struct {
	int set_priority;
	uint32_t priority;
	int set_site;   /* site_factor/tune */
	int64_t site;   /* the SITE term, <= 0 */
	int signal; /* non-zero: ask this job to yield */
	char summary[TUNE_SUMMARY_LEN];
} tune_decision_t;

typedef struct tune_policy tune_policy_t;

/* NULL on error, with the reason (file:line: what) in err. `policy` is its
 * name in lib/priority's priority_policies(): the plugin that hosts it,
 * "sched/tune" or "site_factor/tune". */
tune_policy_t *tune_policy_load(const char *conf_path, const char *policy, char *err, size_t errlen);
/* The files of the policy a plugin hosts, from its one entry in
 * priority_policies() (the plugin's identity is there, not in the C shim):
 * its configuration file beside slurm.conf and its state file in
 * StateSaveLocation. -1 for a name no entry has. */
int tune_policy_files(const char *policy, const char **conf_name, const char **state_name);
/* Re-read the configuration, keeping usage and yield levels. -1 on error
 * (the old settings stay). */
int tune_policy_reconfigure(tune_policy_t *p, const char *conf_path, char *err, size_t errlen);
void tune_policy_free(tune_policy_t *p);

/* What its saved state holds ("usage and yield levels"), for the log. */
const char *tune_policy_state_holds(const tune_policy_t *p);
double tune_policy_interval(const tune_policy_t *p);
/* The state file named in the configuration, or "" (use StateSaveLocation). */
const char *tune_policy_state_file(const tune_policy_t *p);

/* 0 restored, 1 no file, -1 unreadable (reason in err; the policy starts
 * afresh and the next save replaces the file). */
int tune_policy_restore(tune_policy_t *p, const char *path, char *err, size_t errlen);
/* Written to path.new, flushed, renamed over path. -1 on error. */
int tune_policy_save(const tune_policy_t *p, const char *path, char *err, size_t errlen);

/* One pass; out has n entries. -1 on error (reason in err). sched/tune
 * fills set_priority/priority, site_factor/tune set_site/site. The
 * capacities matter to sched/tune's fair share only. */
int tune_policy_pass(tune_policy_t *p, double now, double cap_cpus, double cap_mem_mb, double cap_gpus,
		     const tune_job_t *jobs, size_t n, tune_decision_t *out, char *err, size_t errlen);

/* The i-th study whose yield level the last pass changed, as a line for
 * slurmctld's log ("study UID:KEY: yield level 0 -> 3 at 14 results, tail
 * estimate 0.0031"): 1 and buf filled, or 0 when there is no i-th. */
int tune_policy_change(tune_policy_t *p, size_t i, char *buf, size_t len);

/* Whether a policy may set a job's priority or SITE term: pending, not held,
 * not set by an admin by hand (lib/priority/job_facts.hpp; never throws). */
int tune_may_set_priority(int pending, int held, int admin_set);

/* The job's SystemComment with the summary in place of tune's previous one
 * (lib/priority/job_facts): the length of the merged text, written to buf
 * when it fits in len (with its NUL); 0 when the comment already holds
 * exactly this summary. */
size_t tune_merge_summary(const char *system_comment, const char *summary, char *buf, size_t len);

/* A job's GPU request as a count (lib/placement's gpu_count, one order for
 * both plugins and the simulator). */
double tune_gpu_count(int per_job, int per_node, int per_task, int per_socket, int nodes, int tasks);

/* site_factor/tune: the SITE term to give a job Slurm (re)computes the
 * priority of: 1 and *site set, or 0 (leave the job's term alone). */
int tune_policy_site_for(tune_policy_t *p, uint32_t job_id, uint32_t user_id, const char *comment,
			 int64_t *site);

#ifdef __cplusplus
}
#endif
#endif
