/* The policy thread shared by sched/tune and job_submit/tune. */
#ifndef TUNE_AGENT_H
#define TUNE_AGENT_H

/* Reads sched_tune.conf and the saved state, starts the thread.
 * SLURM_ERROR (and the reason in the log) when the configuration is broken. */
extern int tune_agent_start(const char *host);
extern void tune_agent_stop(void);
/* Re-read sched_tune.conf; a broken file keeps the old settings. */
extern void tune_agent_reconfig(void);

#endif
