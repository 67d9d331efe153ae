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

#include "cons_tres_forward.h"
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

extern int init(void)
{
	cons_plugin = cons_tres_load();
	if (cons_plugin == PLUGIN_INVALID_HANDLE) {
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
