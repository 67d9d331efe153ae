/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between the Slurm series the plugins build against (22.05,
 * 24.11, 26.05 tested). Each difference is decided by what the Slurm source
 * has, not by its version number: a header that exists (__has_include), a
 * macro it defines, or a TUNE_SLURM_* / TUNE_SELECT_OP_* flag that configure
 * set after compiling a probe against that source (see configure.ac,
 * TUNE_SLURM_FEATURE). Include it after slurm/slurm.h and before Slurm's
 * private headers.
 */
#ifndef TUNE_PLUGINS_SLURM_COMPAT_H
#define TUNE_PLUGINS_SLURM_COMPAT_H

/* The plugin interfaces' headers moved from src/common and src/slurmctld to
 * src/interfaces after 22.05. */
#if __has_include("src/interfaces/gres.h")
#define TUNE_SLURM_GRES_H "src/interfaces/gres.h"
#define TUNE_SLURM_SELECT_H "src/interfaces/select.h"
#else
#define TUNE_SLURM_GRES_H "src/common/gres.h"
#define TUNE_SLURM_SELECT_H "src/common/select.h"
#endif

/* Slurm's name of a job's pending reason: job_state_reason_string in
 * src/common/job_state_reason.h by 24.11, job_reason_string before. */
#if __has_include("src/common/job_state_reason.h")
#include "src/common/job_state_reason.h"
#define TUNE_JOB_REASON_STRING(r) job_state_reason_string(r)
#else
#define TUNE_JOB_REASON_STRING(r) job_reason_string(r)
#endif

/* Lists are struct xlist and struct listIterator in every series; only the
 * typedefs changed (List and ListIterator in 22.05, list_t and list_itr_t by
 * 24.11). */
typedef struct xlist tune_list_t;
typedef struct listIterator tune_list_itr_t;

/* job_details.whole_node: one value in 22.05 (WHOLE_NODE_MCS was 3), a set of
 * flags by 24.11 (the old value kept as OLD_WHOLE_NODE_MCS). */
#ifdef OLD_WHOLE_NODE_MCS
#define TUNE_WHOLE_NODE_REQUIRED(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)
#else
#define TUNE_WHOLE_NODE_REQUIRED(d) ((d)->whole_node == WHOLE_NODE_REQUIRED)
#endif

/* select_p_job_test's last arguments: the cores a job may not use
 * (bitstr_t *exc_core_bitmap in 22.05, resv_exc_t * later) and, by 24.11,
 * what backfill's will-run test needs (will_run_data_t *). */
#if defined(TUNE_SLURM_WILL_RUN_DATA)
#define TUNE_JOB_TEST_TAIL_PARAMS resv_exc_t *resv_exc, will_run_data_t *will_run
#define TUNE_JOB_TEST_TAIL_ARGS resv_exc, will_run
#elif defined(TUNE_SLURM_RESV_EXC)
#define TUNE_JOB_TEST_TAIL_PARAMS resv_exc_t *resv_exc
#define TUNE_JOB_TEST_TAIL_ARGS resv_exc
#else
#define TUNE_JOB_TEST_TAIL_PARAMS bitstr_t *exc_core_bitmap
#define TUNE_JOB_TEST_TAIL_ARGS exc_core_bitmap
#endif

/* slurmctld asks "is this cons_tres?" by the plugin's name in 22.05 and 24.11
 * (strstr "cons_tres", which select/cons_tres_gang matches) and in 26.05 by
 * its plugin_id (running_cons_tres()). There a wrapper must carry
 * cons_tres's id; only the SelectType plugin is loaded, so the id is not
 * shared with a loaded cons_tres. Before, every select plugin is loaded
 * into one table whose ids must differ. */
#ifdef TUNE_SLURM_CONS_TRES_BY_ID
#define TUNE_SELECT_PLUGIN_ID SELECT_PLUGIN_CONS_TRES
#else
#define TUNE_SELECT_PLUGIN_ID 120
#endif

/* The cluster's count of a GRES; 26.05 added a case_insensitive flag. */
#ifdef TUNE_SLURM_GRES_CNT_CASE
#define TUNE_GRES_SYSTEM_CNT(name) gres_get_system_cnt((name), false)
#else
#define TUNE_GRES_SYSTEM_CNT(name) gres_get_system_cnt(name)
#endif

/* job_submit plugins' job_modify gained an error message after 22.05. */
#ifdef TUNE_SLURM_JOB_MODIFY_ERR_MSG
#define TUNE_JOB_MODIFY_TAIL_PARAMS , char **err_msg
#else
#define TUNE_JOB_MODIFY_TAIL_PARAMS
#endif

#endif
