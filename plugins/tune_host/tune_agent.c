/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The thread of sched/tune, job_submit/tune and site_factor/tune: reads the
 * configuration (and keeps the last one that loaded), restores and saves the
 * policy's state, and every `interval` seconds runs the host's pass (which
 * copies jobs out under slurmctld's locks, asks the policy in lib/ through
 * tune_policy.h, and applies the result). No decision is made here.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "slurm_compat.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "tune_agent.h"
#include "tune_policy.h"

static tune_policy_t *policy = NULL;
static char *conf_path = NULL, *state_path = NULL;
static const tune_host_ops_t *host = NULL;
static const char *host_name = "sched/tune";
/* The hosted policy's files, from its entry in lib/priority (tune_policy_files). */
static const char *conf_name = NULL, *state_name = NULL;
static pthread_t agent_thread = 0;
static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t agent_cond = PTHREAD_COND_INITIALIZER;
static bool agent_stop = false;
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
	return xstrdup_printf("%s/%s.last-good", slurm_conf.state_save_location, conf_name);
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

/* The file beside slurm.conf (sched_tune.conf, site_factor_tune.conf), or
 * tune_conf=PATH in the host's parameters (SchedulerParameters,
 * PrioritySiteFactorParameters). */
static char *_conf_path(void)
{
	char *p = xstrcasestr(host->params, "tune_conf=");
	if (p) {
		char *path = xstrdup(p + strlen("tune_conf="));
		char *comma = strchr(path, ',');
		if (comma)
			*comma = '\0';
		return path;
	}
	return get_extra_conf_path((char *) conf_name);
}

static char *_state_path(void)
{
	const char *named = tune_policy_state_file(policy);
	if (named && named[0])
		return xstrdup(named);
	return xstrdup_printf("%s/%s", slurm_conf.state_save_location, state_name);
}

/* One pass of the host, then the state saved. Called with agent_lock held. */
static void _pass(void)
{
	char err[512] = "";

	host->pass(policy, host_name);
	if (tune_policy_save(policy, state_path, err, sizeof(err)) != 0)
		error("%s: cannot save state: %s", host_name, err);
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

extern int tune_agent_start(const tune_host_ops_t *ops)
{
	char err[1024] = "";
	int rc;

	host = ops;
	host_name = ops->name;
	if (tune_policy_files(host->policy, &conf_name, &state_name) != 0) {
		error("%s: no tune priority policy is called %s", host_name, host->policy);
		return SLURM_ERROR;
	}
	conf_path = _conf_path();
	conf_mtime = _mtime(conf_path);
	policy = tune_policy_load(conf_path, host->policy, err, sizeof(err));
	if (!policy && getenv("SLURMCTLD_RECONF")) {
		char *last = _last_good_path(), last_err[1024] = "";

		if ((policy = tune_policy_load(last, host->policy, last_err, sizeof(last_err))))
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
		info("%s: %s restored from %s", host_name,
		     tune_policy_state_holds(policy), state_path);
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

extern tune_policy_t *tune_agent_policy(void)
{
	return policy;
}
