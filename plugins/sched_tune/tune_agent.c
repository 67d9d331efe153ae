/*
 * The mechanism of sched/tune: every `interval` seconds, under slurmctld's
 * job write lock, copy pending and running jobs into plain structs, ask the
 * policy (lib/priority, through tune_policy.h) for priorities and yield
 * signals, apply them, then save state and let the main scheduler run.
 * No decision is made here.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/time.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "slurm_compat.h"

#include TUNE_SLURM_GRES_H
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/job_scheduler.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "tune_agent.h"
#include "tune_policy.h"

static tune_policy_t *policy = NULL;
static char *conf_path = NULL, *state_path = NULL;
static const char *host_name = "sched/tune";
static pthread_t agent_thread = 0;
static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t agent_cond = PTHREAD_COND_INITIALIZER;
static bool agent_stop = false;
static uint32_t gpu_id = 0;
static struct timespec conf_mtime;

/* The file's modification time, to notice an edit (zero if unreadable). */
static struct timespec _mtime(const char *path)
{
	struct stat st;
	struct timespec none = { 0, 0 };
	return stat(path, &st) == 0 ? st.st_mtim : none;
}

/*
 * The last sched_tune.conf that loaded, kept in StateSaveLocation. From
 * Slurm 24.11 `scontrol reconfigure` starts a new slurmctld (with
 * SLURMCTLD_RECONF=1 in its environment) in which every plugin starts
 * afresh: there a broken file falls back on this copy, as a reconfigure in
 * place (22.05) keeps the old settings. Without it the new slurmctld would
 * refuse to start and, in 26.05, the running one goes down with it.
 */
static char *_last_good_path(void)
{
	return xstrdup_printf("%s/sched_tune.conf.last-good", slurm_conf.state_save_location);
}

static void _keep_last_good(void)
{
	char *path = _last_good_path(), *tmp = xstrdup_printf("%s.new", path), buf[8192];
	FILE *in = fopen(conf_path, "r"), *out = in ? fopen(tmp, "w") : NULL;
	size_t n;
	bool ok = in && out;

	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(in);
	if (out && fclose(out) != 0)
		ok = false;
	if (in)
		fclose(in);
	if (!ok || rename(tmp, path) != 0) {
		error("%s: cannot keep a copy of %s in %s (%m); a reconfigure with a broken file would stop slurmctld",
		      host_name, conf_path, path);
		unlink(tmp);
	}
	xfree(tmp);
	xfree(path);
}

/* Re-read sched_tune.conf; called with agent_lock held. */
static void _reread(void)
{
	char err[1024] = "";

	conf_mtime = _mtime(conf_path);
	if (tune_policy_reconfigure(policy, conf_path, err, sizeof(err)) != 0) {
		error("%s: %s NOT re-read, keeping the previous settings: %s", host_name, conf_path, err);
	} else {
		info("%s: re-read %s", host_name, conf_path);
		_keep_last_good();
	}
}

/* sched_tune.conf beside slurm.conf, or SchedulerParameters=tune_conf=PATH. */
static char *_conf_path(void)
{
	char *p = xstrcasestr(slurm_conf.sched_params, "tune_conf=");
	if (p) {
		char *path = xstrdup(p + strlen("tune_conf="));
		char *comma = strchr(path, ',');
		if (comma)
			*comma = '\0';
		return path;
	}
	return get_extra_conf_path("sched_tune.conf");
}

static char *_state_path(void)
{
	const char *named = tune_policy_state_file(policy);
	if (named && named[0])
		return xstrdup(named);
	return xstrdup_printf("%s/sched_tune.state", slurm_conf.state_save_location);
}

static double _gpus_of(tune_list_t *gres, bool allocated, job_record_t *job_ptr)
{
	double gpus = 0;
	tune_list_itr_t *it;
	gres_state_t *gs;

	if (!gres)
		return 0;
	it = list_iterator_create(gres);
	while ((gs = list_next(it))) {
		gres_job_state_t *js = gs->gres_data;
		if (gs->plugin_id != gpu_id || !js)
			continue;
		if (allocated) {
			gpus += js->total_gres;
		} else if (js->gres_per_job) {
			gpus += js->gres_per_job;
		} else if (js->gres_per_node) {
			gpus += js->gres_per_node *
				MAX(1, job_ptr->details ? job_ptr->details->min_nodes : 1);
		} else if (js->gres_per_task) {
			gpus += js->gres_per_task *
				MAX(1, job_ptr->details ? job_ptr->details->num_tasks : 1);
		} else if (js->gres_per_socket) {
			gpus += js->gres_per_socket *
				MAX(1, job_ptr->details ? job_ptr->details->min_nodes : 1);
		}
	}
	list_iterator_destroy(it);
	return gpus;
}

static bool _waiting(job_record_t *job_ptr)
{
	switch (job_ptr->state_reason) {
	case WAIT_NO_REASON:
	case WAIT_PRIORITY:
	case WAIT_RESOURCES:
		return true;
	default:
		return false;
	}
}

/* The tune record in system_comment replaces the previous one; other text an
 * admin put there stays in front of it. */
static void _set_summary(job_record_t *job_ptr, const char *summary)
{
	char *old = job_ptr->system_comment, *mine, *merged;

	if (old && (mine = strstr(old, "tune:tenant=")) && !xstrcmp(mine, summary))
		return;
	if (old && (mine = strstr(old, "tune:tenant="))) {
		int keep = mine - old;
		while (keep > 0 && old[keep - 1] == ' ')
			keep--;
		merged = keep ? xstrdup_printf("%.*s %s", keep, old, summary) : xstrdup(summary);
	} else if (old && old[0]) {
		merged = xstrdup_printf("%s %s", old, summary);
	} else {
		merged = xstrdup(summary);
	}
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = merged;
}

static void _pass(void)
{
	/* conf, job, node, part, fed: the node write lock is for job_signal(). */
	slurmctld_lock_t lock = { READ_LOCK, WRITE_LOCK, WRITE_LOCK, READ_LOCK, NO_LOCK };
	struct timeval t0, t1;
	job_record_t *job_ptr, **refs;
	node_record_t *node_ptr;
	tune_list_itr_t *it;
	tune_job_t *jobs;
	tune_decision_t *out;
	double cap_cpus = 0, cap_mem = 0, cap_gpus;
	char **tenants, err[512] = "";
	size_t n = 0, cap, i;
	int changed = 0, signalled = 0, set = 0, placed = 0;
	time_t now = time(NULL);

	lock_slurmctld(lock);
	gettimeofday(&t0, NULL);
	for (int idx = 0; (node_ptr = next_node(&idx)); idx++) {
		cap_cpus += node_ptr->config_ptr ? node_ptr->config_ptr->cpus : node_ptr->cpus;
		cap_mem += node_ptr->real_memory;
	}
	cap_gpus = (double) TUNE_GRES_SYSTEM_CNT("gpu");
	cap = list_count(job_list);
	jobs = xcalloc(cap ? cap : 1, sizeof(*jobs));
	out = xcalloc(cap ? cap : 1, sizeof(*out));
	refs = xcalloc(cap ? cap : 1, sizeof(*refs));
	tenants = xcalloc(cap ? cap : 1, sizeof(*tenants));

	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && n < cap) {
		tune_job_t *j = &jobs[n];
		bool pending = IS_JOB_PENDING(job_ptr);

		if (!pending && !IS_JOB_RUNNING(job_ptr))
			continue;
		j->job_id = job_ptr->job_id;
		j->user_id = job_ptr->user_id;
		if (job_ptr->account && job_ptr->account[0])
			tenants[n] = xstrdup(job_ptr->account);
		else
			tenants[n] = xstrdup_printf("user:%s", uid_to_string_cached(job_ptr->user_id));
		j->tenant = tenants[n];
		j->comment = job_ptr->comment;
		j->running = !pending;
		/* Held jobs (priority 0) and priorities set by an admin are left alone. */
		j->may_set = pending && job_ptr->priority != 0 && !job_ptr->direct_set_prio;
		j->waiting = pending && job_ptr->priority != 0 && _waiting(job_ptr);
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
			j->gpus = _gpus_of(job_ptr->gres_list_req, false, job_ptr);
		} else {
			j->cpus = job_ptr->total_cpus;
			if (job_ptr->tres_alloc_cnt)
				j->mem_mb = job_ptr->tres_alloc_cnt[TRES_ARRAY_MEM];
			j->gpus = _gpus_of(job_ptr->gres_list_alloc, true, job_ptr);
		}
		refs[n++] = job_ptr;
	}
	list_iterator_destroy(it);

	if (tune_policy_pass(policy, (double) now, cap_cpus, cap_mem, cap_gpus,
			     jobs, n, out, err, sizeof(err)) != 0) {
		error("%s: policy pass failed, priorities unchanged: %s", host_name, err);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		job_ptr = refs[i];
		if (out[i].set_priority && job_ptr->priority != out[i].priority) {
			/* Below the policy's band: submitted since the last pass. */
			if (job_ptr->priority < TUNE_BAND_LOW)
				placed++;
			job_ptr->priority = out[i].priority;
			changed++;
		}
		if (out[i].set_priority)
			set++;
		_set_summary(job_ptr, out[i].summary);
		if (out[i].signal) {
			/* The batch shell only: its trap tells tune run to yield;
			 * signalling every step would kill the trials. */
			int rc = job_signal(job_ptr, out[i].signal, KILL_JOB_BATCH, 0, false);
			info("%s: JobId=%u study yields: signal %d to its batch shell (%s)",
			     host_name, job_ptr->job_id, out[i].signal,
			     rc == SLURM_SUCCESS ? "sent" : slurm_strerror(rc));
			signalled++;
		}
	}
	if (changed)
		last_job_update = now;
	gettimeofday(&t1, NULL);
	unlock_slurmctld(lock);

	debug("%s: pass over %zu jobs (%d priorities, %d changed, %d yield signals) held the job write lock %ld us",
	      host_name, n, set, changed, signalled,
	      (long) ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec)));

	for (i = 0; i < cap; i++)
		xfree(tenants[i]);
	xfree(tenants);
	xfree(jobs);
	xfree(out);
	xfree(refs);

	if (tune_policy_save(policy, state_path, err, sizeof(err)) != 0)
		error("%s: cannot save state: %s", host_name, err);
	/* Jobs that waited below the band for this pass may start now: ask the
	 * scheduler thread at once (queue_job_scheduler would wait for
	 * batch_sched_delay), as slurmctld does when an epilog completes. */
	if (placed)
		schedule(false);
	else if (changed)
		queue_job_scheduler();
}

static void *_agent(void *arg)
{
	struct timespec until;

	(void) arg;
	while (true) {
		slurm_mutex_lock(&agent_lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t) tune_policy_interval(policy);
		while (!agent_stop && pthread_cond_timedwait(&agent_cond, &agent_lock, &until) != ETIMEDOUT)
			;
		if (agent_stop) {
			slurm_mutex_unlock(&agent_lock);
			break;
		}
		/* job_submit plugins get no reconfigure call: an edited file is
		 * noticed here in both hosting forms. */
		struct timespec m = _mtime(conf_path);
		if (m.tv_sec != conf_mtime.tv_sec || m.tv_nsec != conf_mtime.tv_nsec)
			_reread();
		_pass();
		slurm_mutex_unlock(&agent_lock);
	}
	return NULL;
}

extern int tune_agent_start(const char *host)
{
	char err[1024] = "";
	int rc;

	host_name = host;
	gpu_id = gres_build_id("gpu");
	conf_path = _conf_path();
	conf_mtime = _mtime(conf_path);
	policy = tune_policy_load(conf_path, err, sizeof(err));
	if (!policy && getenv("SLURMCTLD_RECONF")) {
		char *last = _last_good_path(), last_err[1024] = "";

		if ((policy = tune_policy_load(last, last_err, sizeof(last_err))))
			error("%s: %s NOT re-read, keeping the previous settings: %s", host_name, conf_path, err);
		else
			error("%s: no usable copy of the previous settings in %s: %s", host_name, last, last_err);
		xfree(last);
	} else if (policy) {
		_keep_last_good();
	}
	if (!policy) {
		error("%s: not loaded: %s", host_name, err);
		xfree(conf_path);
		return SLURM_ERROR;
	}
	state_path = _state_path();
	rc = tune_policy_restore(policy, state_path, err, sizeof(err));
	if (rc < 0)
		error("%s: state file unreadable, starting afresh (it will be replaced): %s", host_name, err);
	else if (rc == 0)
		info("%s: usage and yield levels restored from %s", host_name, state_path);
	info("%s: loaded %s, a pass every %.0f s", host_name, conf_path, tune_policy_interval(policy));

	agent_stop = false;
	/* A thread of our own (Slurm's thread helpers differ between series). */
	if ((rc = pthread_create(&agent_thread, NULL, _agent, NULL))) {
		error("%s: cannot start its thread: %s", host_name, strerror(rc));
		agent_thread = 0;
		tune_policy_free(policy);
		policy = NULL;
		xfree(conf_path);
		xfree(state_path);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

extern void tune_agent_stop(void)
{
	char err[512] = "";

	if (!agent_thread)
		return;
	slurm_mutex_lock(&agent_lock);
	agent_stop = true;
	pthread_cond_broadcast(&agent_cond);
	slurm_mutex_unlock(&agent_lock);
	pthread_join(agent_thread, NULL);
	agent_thread = 0;
	if (tune_policy_save(policy, state_path, err, sizeof(err)) != 0)
		error("%s: cannot save state: %s", host_name, err);
	tune_policy_free(policy);
	policy = NULL;
	xfree(conf_path);
	xfree(state_path);
}

extern void tune_agent_reconfig(void)
{
	if (!policy)
		return;
	slurm_mutex_lock(&agent_lock);
	_reread();
	slurm_mutex_unlock(&agent_lock);
}
