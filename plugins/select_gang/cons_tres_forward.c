/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select/cons_tres_gang's forwarding: every select_p_ operation of this
 * Slurm's select.h goes to select/cons_tres, but job_test and reconfigure,
 * which select_cons_tres_gang.c wraps and calls through cons_job_test and
 * cons_reconfigure.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "slurm_compat.h"

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
#include TUNE_SLURM_GRES_H
#include TUNE_SLURM_SELECT_H
#ifdef TUNE_SLURM_SWITCH_TABLE
#include "src/common/slurm_topology.h"
#endif

#include "cons_tres_forward.h"

/*
 * cons_tres's operations. The select API differs between Slurm series (37
 * symbols in 22.05, 32 in 24.11, 14 in 26.05); configure compiled a probe
 * for each operation against this Slurm's select.h (TUNE_SELECT_OP_*), and
 * this plugin exports and forwards exactly those. FORWARD declares the
 * pointer to cons_tres's function and our select_p_ function that calls it;
 * cons_ops lists the pointers to fill, by name.
 */
#define FORWARD_SHARED(ret, name, params, args) \
	ret (*cons_##name) params; \
	extern ret select_p_##name params { return cons_##name args; }
/* FORWARD_SHARED for an operation select_cons_tres_gang.c also calls; FORWARD
 * (the pointer kept in this file) for the rest. */
#define FORWARD(ret, name, params, args) static FORWARD_SHARED(ret, name, params, args)
#define OP(name) { "select_p_" #name, (void **) &cons_##name }

int (*cons_job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
			    uint32_t req_nodes, uint16_t mode, tune_list_t *preemptee_candidates,
			    tune_list_t **preemptee_job_list, TUNE_JOB_TEST_TAIL_PARAMS);
int (*cons_reconfigure)(void);
FORWARD(int, node_init, (void), ())
FORWARD(int, job_begin, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_ready, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_expand, (job_record_t *from, job_record_t *to), (from, to))
FORWARD(int, job_resized, (job_record_t *job_ptr, node_record_t *node_ptr), (job_ptr, node_ptr))
FORWARD(int, job_fini, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_suspend, (job_record_t *job_ptr, bool indf), (job_ptr, indf))
FORWARD(int, job_resume, (job_record_t *job_ptr, bool indf), (job_ptr, indf))
FORWARD_SHARED(int, select_nodeinfo_set_all, (void), ())
FORWARD(int, select_nodeinfo_set, (job_record_t *job_ptr), (job_ptr))
#ifdef TUNE_SELECT_OP_STATE_SAVE
FORWARD(int, state_save, (char *dir_name), (dir_name))
#endif
#ifdef TUNE_SELECT_OP_STATE_RESTORE
FORWARD(int, state_restore, (char *dir_name), (dir_name))
#endif
#ifdef TUNE_SELECT_OP_JOB_INIT
FORWARD(int, job_init, (tune_list_t *job_list), (job_list))
#endif
#ifdef TUNE_SELECT_OP_JOB_SIGNAL
FORWARD(int, job_signal, (job_record_t *job_ptr, int signal), (job_ptr, signal))
#endif
#ifdef TUNE_SELECT_OP_JOB_MEM_REDUCE
static void (*cons_job_mem_reduce)(job_record_t *job_ptr);
extern void select_p_job_mem_reduce(job_record_t *job_ptr) { cons_job_mem_reduce(job_ptr); }
#endif
#ifdef TUNE_SELECT_OP_STEP_PICK_NODES
FORWARD(bitstr_t *, step_pick_nodes,
	(job_record_t *job_ptr, select_jobinfo_t *jobinfo, uint32_t node_count, bitstr_t **avail_nodes),
	(job_ptr, jobinfo, node_count, avail_nodes))
#endif
#ifdef TUNE_SELECT_OP_STEP_START
FORWARD(int, step_start, (step_record_t *step_ptr), (step_ptr))
#endif
#ifdef TUNE_SELECT_OP_STEP_FINISH
FORWARD(int, step_finish, (step_record_t *step_ptr, bool killing), (step_ptr, killing))
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_PACK
FORWARD(int, select_nodeinfo_pack, (select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version),
	(nodeinfo, buffer, protocol_version))
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_UNPACK
FORWARD(int, select_nodeinfo_unpack, (select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version),
	(nodeinfo, buffer, protocol_version))
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_ALLOC
FORWARD(select_nodeinfo_t *, select_nodeinfo_alloc, (void), ())
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_FREE
FORWARD(int, select_nodeinfo_free, (select_nodeinfo_t *nodeinfo), (nodeinfo))
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_GET
FORWARD_SHARED(int, select_nodeinfo_get,
	(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo, enum node_states state, void *data),
	(nodeinfo, dinfo, state, data))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_ALLOC
FORWARD(select_jobinfo_t *, select_jobinfo_alloc, (void), ())
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_FREE
FORWARD(int, select_jobinfo_free, (select_jobinfo_t *jobinfo), (jobinfo))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_SET
FORWARD(int, select_jobinfo_set, (select_jobinfo_t *jobinfo, enum select_jobdata_type type, void *data),
	(jobinfo, type, data))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_GET
FORWARD(int, select_jobinfo_get, (select_jobinfo_t *jobinfo, enum select_jobdata_type type, void *data),
	(jobinfo, type, data))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_COPY
FORWARD(select_jobinfo_t *, select_jobinfo_copy, (select_jobinfo_t *jobinfo), (jobinfo))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_PACK
FORWARD(int, select_jobinfo_pack, (select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version),
	(jobinfo, buffer, protocol_version))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_UNPACK
FORWARD(int, select_jobinfo_unpack, (select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version),
	(jobinfo, buffer, protocol_version))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_SPRINT
FORWARD(char *, select_jobinfo_sprint, (select_jobinfo_t *jobinfo, char *buf, size_t size, int mode),
	(jobinfo, buf, size, mode))
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_XSTRDUP
FORWARD(char *, select_jobinfo_xstrdup, (select_jobinfo_t *jobinfo, int mode), (jobinfo, mode))
#endif
#ifdef TUNE_SELECT_OP_GET_INFO_FROM_PLUGIN
FORWARD(int, get_info_from_plugin, (enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data),
	(dinfo, job_ptr, data))
#endif
#ifdef TUNE_SELECT_OP_UPDATE_NODE_CONFIG
FORWARD(int, update_node_config, (int index), (index))
#endif
#ifdef TUNE_SELECT_OP_RESV_TEST
FORWARD(bitstr_t *, resv_test,
	(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt, bitstr_t *avail_bitmap, bitstr_t **core_bitmap),
	(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap))
#endif

static const struct {
	const char *name;
	void **fn;
} cons_ops[] = {
	OP(job_test), OP(reconfigure), OP(node_init), OP(job_begin), OP(job_ready), OP(job_expand),
	OP(job_resized), OP(job_fini), OP(job_suspend), OP(job_resume), OP(select_nodeinfo_set_all),
	OP(select_nodeinfo_set),
#ifdef TUNE_SELECT_OP_STATE_SAVE
	OP(state_save),
#endif
#ifdef TUNE_SELECT_OP_STATE_RESTORE
	OP(state_restore),
#endif
#ifdef TUNE_SELECT_OP_JOB_INIT
	OP(job_init),
#endif
#ifdef TUNE_SELECT_OP_JOB_SIGNAL
	OP(job_signal),
#endif
#ifdef TUNE_SELECT_OP_JOB_MEM_REDUCE
	OP(job_mem_reduce),
#endif
#ifdef TUNE_SELECT_OP_STEP_PICK_NODES
	OP(step_pick_nodes),
#endif
#ifdef TUNE_SELECT_OP_STEP_START
	OP(step_start),
#endif
#ifdef TUNE_SELECT_OP_STEP_FINISH
	OP(step_finish),
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_PACK
	OP(select_nodeinfo_pack),
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_UNPACK
	OP(select_nodeinfo_unpack),
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_ALLOC
	OP(select_nodeinfo_alloc),
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_FREE
	OP(select_nodeinfo_free),
#endif
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_GET
	OP(select_nodeinfo_get),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_ALLOC
	OP(select_jobinfo_alloc),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_FREE
	OP(select_jobinfo_free),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_SET
	OP(select_jobinfo_set),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_GET
	OP(select_jobinfo_get),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_COPY
	OP(select_jobinfo_copy),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_PACK
	OP(select_jobinfo_pack),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_UNPACK
	OP(select_jobinfo_unpack),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_SPRINT
	OP(select_jobinfo_sprint),
#endif
#ifdef TUNE_SELECT_OP_SELECT_JOBINFO_XSTRDUP
	OP(select_jobinfo_xstrdup),
#endif
#ifdef TUNE_SELECT_OP_GET_INFO_FROM_PLUGIN
	OP(get_info_from_plugin),
#endif
#ifdef TUNE_SELECT_OP_UPDATE_NODE_CONFIG
	OP(update_node_config),
#endif
#ifdef TUNE_SELECT_OP_RESV_TEST
	OP(resv_test),
#endif
};
#define CONS_OPS (sizeof(cons_ops) / sizeof(cons_ops[0]))

/* Load select/cons_tres and find its operations. plugin_load_and_link is
 * exported (as slurm_plugin_load_and_link) by libslurmfull and the public
 * libslurm of every series; plugin_context_create is not. */
extern plugin_handle_t cons_tres_load(void)
{
	plugin_handle_t cons_plugin;
	const char *names[CONS_OPS];
	void *fns[CONS_OPS];

	for (size_t i = 0; i < CONS_OPS; i++)
		names[i] = cons_ops[i].name;
	/* Every name resolves, or the handle is invalid (22.05) or Slurm
	 * stops (24.11 and later): the list follows this Slurm's select.h. */
	cons_plugin = plugin_load_and_link("select/cons_tres", CONS_OPS, names, fns);
	if (cons_plugin == PLUGIN_INVALID_HANDLE)
		return cons_plugin;
	for (size_t i = 0; i < CONS_OPS; i++)
		*cons_ops[i].fn = fns[i];
	return cons_plugin;
}

