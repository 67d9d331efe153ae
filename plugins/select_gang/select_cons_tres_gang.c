/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * select/cons_tres_gang: select/cons_tres with gang GPU placement. Every op
 * is forwarded to cons_tres; in job_test (RUN_NOW only: not TEST_ONLY, which
 * would reject at submit what the narrowed set cannot hold, and not
 * WILL_RUN, which backfill plans with) the candidate nodes are first
 * narrowed to the set lib/placement chooses: fewest switches, fewest nodes,
 * best fit. If cons_tres cannot place the job on that set, it gets the full
 * set again and chooses itself; the reason is logged. See
 * select_cons_tres_gang(8).
 *
 * In Slurm 22.05 every process that reads job or node records loads every
 * select plugin in PluginDir (24.11: slurmctld, slurmd, slurmstepd, sinfo
 * and node readers; 26.05: slurmctld only): Slurm's commands (which link
 * libslurmfull) and programs linked against the public libslurm.so (tune,
 * pyslurm, site tools), which exports only slurm_* names. So this file calls
 * Slurm's common functions through slurm_xlator.h (their slurm_* aliases,
 * exported by both libraries) and looks up the few symbols only the
 * controller has with dlsym, inside slurmctld only. A direct reference would
 * make dlopen fail in a public-libslurm program, and libslurm then calls
 * fatal(). tests/integration/deployed.sh checks this with RTLD_NOW.
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
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
#include TUNE_SLURM_GRES_H
#include TUNE_SLURM_SELECT_H
#ifdef TUNE_SLURM_SWITCH_TABLE
#include "src/common/slurm_topology.h"
#endif

#include "gang_policy.h"

/* What only slurmctld (or libslurmfull) provides, found at init in slurmctld. */
static struct {
	node_record_t *(*node_at)(int *index);
	char *(*node_names)(bitstr_t *bitmap);
	uint32_t (*gres_id)(char *name);
#ifdef TUNE_SLURM_SWITCH_TABLE
	int *switch_cnt;
	switch_record_t **switch_table;
#endif
#ifdef TUNE_SLURM_NODE_SELECT_STATS
	node_select_stats_t ***select_stats;
#endif
} ctld;
/* 26.05's slurm_xlator.h maps bitmap2node_name to its exported alias. */
#undef bitmap2node_name
#pragma GCC poison next_node bitmap2node_name gres_build_id switch_record_cnt switch_record_table node_select_stats_array

const char plugin_name[] = "Gang GPU placement over Consumable TRES";
const char plugin_type[] = "select/cons_tres_gang";
const uint32_t plugin_id = TUNE_SELECT_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * cons_tres's operations. The select API differs between Slurm series (37
 * symbols in 22.05, 32 in 24.11, 14 in 26.05); configure compiled a probe
 * for each operation against this Slurm's select.h (TUNE_SELECT_OP_*), and
 * this plugin exports and forwards exactly those. FORWARD declares the
 * pointer to cons_tres's function and our select_p_ function that calls it;
 * cons_ops lists the pointers to fill, by name.
 */
#define FORWARD(ret, name, params, args) \
	static ret (*cons_##name) params; \
	extern ret select_p_##name params { return cons_##name args; }
#define OP(name) { "select_p_" #name, (void **) &cons_##name }

static int (*cons_job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
			    uint32_t req_nodes, uint16_t mode, tune_list_t *preemptee_candidates,
			    tune_list_t **preemptee_job_list, TUNE_JOB_TEST_TAIL_PARAMS);
static int (*cons_reconfigure)(void);
FORWARD(int, node_init, (void), ())
FORWARD(int, job_begin, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_ready, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_expand, (job_record_t *from, job_record_t *to), (from, to))
FORWARD(int, job_resized, (job_record_t *job_ptr, node_record_t *node_ptr), (job_ptr, node_ptr))
FORWARD(int, job_fini, (job_record_t *job_ptr), (job_ptr))
FORWARD(int, job_suspend, (job_record_t *job_ptr, bool indf), (job_ptr, indf))
FORWARD(int, job_resume, (job_record_t *job_ptr, bool indf), (job_ptr, indf))
FORWARD(int, select_nodeinfo_set_all, (void), ())
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
FORWARD(int, select_nodeinfo_get,
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

static plugin_handle_t cons_plugin = PLUGIN_INVALID_HANDLE;
static gang_settings_t *settings = NULL;
static uint32_t gpu_id = 0;

static void _load_settings(void)
{
	char err[1024] = "", *path = get_extra_conf_path("select_gang.conf");
	gang_settings_t *s = gang_settings_load(path, err, sizeof(err));

	if (!s) {
		error("select/cons_tres_gang: %s NOT read (%s); %s", path, err,
		      settings ? "keeping the previous settings" : "gang placement is off until it is fixed");
	} else {
		gang_settings_free(settings);
		settings = s;
		info("select/cons_tres_gang: %s GPU placement over select/cons_tres (settings from %s)",
		     gang_placement_name(s), path);
	}
	xfree(path);
}

/* The controller's symbols, or false (naming the missing one) if this slurmctld lacks one. */
static bool _find_controller_symbols(void)
{
	const struct {
		const char *name;
		void **where;
	} want[] = {
		{ "next_node", (void **) &ctld.node_at },
		{ "bitmap2node_name", (void **) &ctld.node_names },
		{ "gres_build_id", (void **) &ctld.gres_id },
#ifdef TUNE_SLURM_SWITCH_TABLE
		{ "switch_record_cnt", (void **) &ctld.switch_cnt },
		{ "switch_record_table", (void **) &ctld.switch_table },
#endif
#ifdef TUNE_SLURM_NODE_SELECT_STATS
		{ "node_select_stats_array", (void **) &ctld.select_stats },
#endif
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!(*want[i].where = dlsym(RTLD_DEFAULT, want[i].name))) {
			error("select/cons_tres_gang: slurmctld has no symbol %s; gang placement is off and cons_tres places every job (rebuild the plugin against this Slurm)",
			      want[i].name);
			memset(&ctld, 0, sizeof(ctld));
			return false;
		}
	}
	return true;
}

/* Load select/cons_tres and find its operations. plugin_load_and_link is
 * exported (as slurm_plugin_load_and_link) by libslurmfull and the public
 * libslurm of every series; plugin_context_create is not. */
static bool _load_cons_tres(void)
{
	const char *names[CONS_OPS];
	void *fns[CONS_OPS];

	for (size_t i = 0; i < CONS_OPS; i++)
		names[i] = cons_ops[i].name;
	/* Every name resolves, or the handle is invalid (22.05) or Slurm
	 * stops (24.11 and later): the list follows this Slurm's select.h. */
	cons_plugin = plugin_load_and_link("select/cons_tres", CONS_OPS, names, fns);
	if (cons_plugin == PLUGIN_INVALID_HANDLE)
		return false;
	for (size_t i = 0; i < CONS_OPS; i++)
		*cons_ops[i].fn = fns[i];
	return true;
}

extern int init(void)
{
	if (!_load_cons_tres()) {
		error("select/cons_tres_gang: cannot load select/cons_tres, which it wraps");
		return SLURM_ERROR;
	}
	/* Elsewhere (slurmd, commands, libslurm programs) only the forwarding is used. */
	if (running_in_slurmctld() && _find_controller_symbols()) {
		gpu_id = ctld.gres_id("gpu");
		_load_settings();
#ifndef TUNE_SLURM_SWITCH_TABLE
		info("select/cons_tres_gang: this Slurm keeps its switch tree inside topology/tree, out of a select plugin's reach: gang placement packs nodes but does not prefer fewer switches");
#endif
	}
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	gang_settings_free(settings);
	settings = NULL;
#ifdef TUNE_SLURM_CONS_TRES_BY_ID
	/* Only SelectType is loaded here: cons_tres is ours to finish. */
	if (cons_plugin != PLUGIN_INVALID_HANDLE)
		plugin_unload(cons_plugin);
#endif
	/* Otherwise Slurm loads every select plugin itself, cons_tres
	 * included, and finishes it. */
	cons_plugin = PLUGIN_INVALID_HANDLE;
	return SLURM_SUCCESS;
}

/* GPUs of a node: count, socket of each (from gres.conf Cores=), free ones. */
static int _node_gpus(node_record_t *node_ptr, int **socket, unsigned char **free_gpu)
{
	gres_state_t *gs;
	gres_node_state_t *ns;
	int n, cores_per_socket = MAX(1, node_ptr->cores);

	*socket = NULL;
	*free_gpu = NULL;
	if (!node_ptr->gres_list)
		return 0;
	gs = list_find_first(node_ptr->gres_list, gres_find_id, &gpu_id);
	if (!gs || !(ns = gs->gres_data) || !ns->gres_cnt_avail)
		return 0;
	n = (int) ns->gres_cnt_avail;
	*socket = xcalloc(n, sizeof(int));
	*free_gpu = xcalloc(n, 1);
	for (int g = 0; g < n; g++) {
		if (ns->gres_bit_alloc && g < (int) bit_size(ns->gres_bit_alloc))
			(*free_gpu)[g] = !bit_test(ns->gres_bit_alloc, g);
		else
			(*free_gpu)[g] = g >= (int) ns->gres_cnt_alloc;
		for (int t = 0; t < ns->topo_cnt; t++) {
			if (!ns->topo_gres_bitmap || !ns->topo_gres_bitmap[t] ||
			    g >= (int) bit_size(ns->topo_gres_bitmap[t]) ||
			    !bit_test(ns->topo_gres_bitmap[t], g) ||
			    !ns->topo_core_bitmap || !ns->topo_core_bitmap[t])
				continue;
			int core = bit_ffs(ns->topo_core_bitmap[t]);
			if (core >= 0)
				(*socket)[g] = core / cores_per_socket;
			break;
		}
	}
	return n;
}

/* The leaf switch of a node (0 for all where the switch table is out of reach). */
static int _switch_of(int node_index)
{
#ifdef TUNE_SLURM_SWITCH_TABLE
	switch_record_t *table = *ctld.switch_table;

	for (int s = 0; table && s < *ctld.switch_cnt; s++)
		if (table[s].level == 0 && table[s].node_bitmap && bit_test(table[s].node_bitmap, node_index))
			return s;
#endif
	(void) node_index;
	return 0;
}

static void _job_shape(job_record_t *job_ptr, uint32_t min_nodes, uint32_t max_nodes, gang_job_t *j)
{
	__typeof__(job_ptr->details) d = job_ptr->details;
	uint64_t mem = d->pn_min_memory;

	memset(j, 0, sizeof(*j));
	j->min_nodes = MAX(1, min_nodes);
	j->max_nodes = (max_nodes && max_nodes < 100000) ? max_nodes : 0;
	j->tasks = MAX(d->num_tasks, (uint32_t) j->min_nodes);
	j->cpus_per_task = MAX(1, d->cpus_per_task);
	if (mem & MEM_PER_CPU)
		j->mem_per_cpu_mb = (double) (mem & ~MEM_PER_CPU);
	else
		j->mem_per_node_mb = (double) mem;
	j->exclusive = TUNE_WHOLE_NODE_REQUIRED(d) || !d->share_res;
	j->job_id = job_ptr->job_id;
	if (job_ptr->gres_list_req) {
		gres_state_t *gs = list_find_first(job_ptr->gres_list_req, gres_find_id, &gpu_id);
		gres_job_state_t *js = gs ? gs->gres_data : NULL;
		if (js) {
			/* As Slurm keeps them; lib/placement's GpuRequest reads them. */
			j->gpus_per_job = js->gres_per_job;
			j->gpus_per_node = js->gres_per_node;
			j->gpus_per_task = js->gres_per_task;
			j->gpus_per_socket = js->gres_per_socket;
			j->cpus_per_gpu = js->cpus_per_gres;
			j->mem_per_gpu_mb = (double) js->mem_per_gres;
			if (j->mem_per_gpu_mb > 0)
				j->mem_per_node_mb = j->mem_per_cpu_mb = 0;
		}
	}
}

/* The policy's node set for the job, as a bitmap inside `candidates`; NULL
 * when the policy has no opinion (then cons_tres decides alone). */
static bitstr_t *_gang_nodes(job_record_t *job_ptr, bitstr_t *candidates, uint32_t min_nodes, uint32_t max_nodes)
{
	int count = bit_set_count(candidates), k = 0, *index, *chosen, picked;
	gang_node_t *nodes;
	gang_job_t job;
	node_record_t *node_ptr;
	bitstr_t *out = NULL;
	char err[512] = "";

	if (!count)
		return NULL;
#ifndef TUNE_SLURM_NODE_SELECT_STATS
	(void) cons_select_nodeinfo_set_all();  /* cons_tres's allocated CPUs and memory, current */
#endif
	/* Where node_select_stats_array holds them (26.05), refreshing it needs
	 * the select_node write lock, which slurmctld holds around some
	 * job_test calls (backfill) and not others (the main scheduler): the
	 * last values are read as they are (safe under the node write lock the
	 * caller holds, as their writers need the node read lock). A stale
	 * view only makes the gang choice too tight, and cons_tres then places
	 * the job on its own. */
	nodes = xcalloc(count, sizeof(*nodes));
	index = xcalloc(count, sizeof(int));
	chosen = xcalloc(count, sizeof(int));
	for (int i = 0; (node_ptr = ctld.node_at(&i)); i++) {
		uint16_t alloc_cpus = 0;
		uint64_t alloc_mem = 0;
		int *socket;
		unsigned char *free_gpu;

		if (!bit_test(candidates, node_ptr->index) || k >= count)
			continue;
#ifdef TUNE_SLURM_NODE_SELECT_STATS
		if (*ctld.select_stats && (*ctld.select_stats)[node_ptr->index]) {
			alloc_cpus = (*ctld.select_stats)[node_ptr->index]->alloc_cpus;
			alloc_mem = (*ctld.select_stats)[node_ptr->index]->alloc_memory;
		}
#else
		if (node_ptr->select_nodeinfo) {
			cons_select_nodeinfo_get(node_ptr->select_nodeinfo->data, SELECT_NODEDATA_SUBCNT,
						 NODE_STATE_ALLOCATED, &alloc_cpus);
			cons_select_nodeinfo_get(node_ptr->select_nodeinfo->data, SELECT_NODEDATA_MEM_ALLOC,
						 NODE_STATE_ALLOCATED, &alloc_mem);
		}
#endif
		nodes[k].switch_id = _switch_of(node_ptr->index);
		nodes[k].cores = node_ptr->cpus;
		nodes[k].free_cores = (int) node_ptr->cpus - (int) alloc_cpus;
		nodes[k].mem_mb = (double) node_ptr->real_memory;
		nodes[k].free_mem_mb = (double) node_ptr->real_memory - (double) alloc_mem;
		nodes[k].gpus = _node_gpus(node_ptr, &socket, &free_gpu);
		nodes[k].gpu_socket = socket;
		nodes[k].gpu_free = free_gpu;
		index[k++] = node_ptr->index;
	}
	_job_shape(job_ptr, min_nodes, max_nodes, &job);
	picked = gang_place(settings, nodes, k, &job, chosen, err, sizeof(err));
	if (picked < 0)
		error("select/cons_tres_gang: %pJ: placement policy failed (%s); cons_tres decides", job_ptr, err);
	if (picked > 0) {
		out = bit_alloc(bit_size(candidates));
		for (int i = 0; i < k; i++)
			if (chosen[i])
				bit_set(out, index[i]);
	}
	for (int i = 0; i < k; i++) {
		xfree(nodes[i].gpu_socket);
		xfree(nodes[i].gpu_free);
	}
	xfree(nodes);
	xfree(index);
	xfree(chosen);
	return out;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode, tune_list_t *preemptee_candidates,
			     tune_list_t **preemptee_job_list, TUNE_JOB_TEST_TAIL_PARAMS)
{
	bitstr_t *mine, *all;
	int rc;

	if (mode != SELECT_MODE_RUN_NOW || !settings || !job_ptr->details || job_ptr->details->req_node_bitmap ||
	    !gang_enabled_for(settings, job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL) ||
	    !(mine = _gang_nodes(job_ptr, bitmap, min_nodes, max_nodes)))
		return cons_job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
					preemptee_candidates, preemptee_job_list, TUNE_JOB_TEST_TAIL_ARGS);
	all = bit_copy(bitmap);
	bit_and(bitmap, mine);
	{
		uint32_t k = bit_set_count(bitmap);
		uint32_t req = MAX(min_nodes, MIN(req_nodes, k));
		rc = cons_job_test(job_ptr, bitmap, min_nodes, max_nodes, req, mode, preemptee_candidates,
				      preemptee_job_list, TUNE_JOB_TEST_TAIL_ARGS);
	}
	if (rc != SLURM_SUCCESS) {
		char *nodes = ctld.node_names(mine);
		verbose("select/cons_tres_gang: %pJ: cons_tres cannot place it on the gang choice %s (%s); using cons_tres's own choice",
			job_ptr, nodes, slurm_strerror(rc));
		xfree(nodes);
		bit_copybits(bitmap, all);
		rc = cons_job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates,
				      preemptee_job_list, TUNE_JOB_TEST_TAIL_ARGS);
	} else {
		char *nodes = ctld.node_names(bitmap);
		debug("select/cons_tres_gang: %pJ placed on %s", job_ptr, nodes);
		xfree(nodes);
	}
	FREE_NULL_BITMAP(all);
	FREE_NULL_BITMAP(mine);
	return rc;
}

extern int select_p_reconfigure(void)
{
	if (running_in_slurmctld() && ctld.node_at)
		_load_settings();
	return cons_reconfigure();
}
