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
 * Every process that reads Slurm's job or node records loads every select
 * plugin in PluginDir: slurmctld, slurmd, Slurm's commands (which link
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

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/gres.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "gang_policy.h"

/* What only slurmctld (or libslurmfull) provides, found at init in slurmctld. */
static struct {
	node_record_t *(*node_at)(int *index);
	char *(*node_names)(bitstr_t *bitmap);
	uint32_t (*gres_id)(char *name);
	int *switch_cnt;
	switch_record_t **switch_table;
} ctld;
#pragma GCC poison next_node bitmap2node_name gres_build_id switch_record_cnt switch_record_table

const char plugin_name[] = "Gang GPU placement over Consumable TRES";
const char plugin_type[] = "select/cons_tres_gang";
const uint32_t plugin_id = 120;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static const char *syms[] = {
	"plugin_id", "select_p_state_save", "select_p_state_restore", "select_p_job_init",
	"select_p_node_init", "select_p_job_test", "select_p_job_begin", "select_p_job_ready",
	"select_p_job_expand", "select_p_job_resized", "select_p_job_signal", "select_p_job_fini",
	"select_p_job_suspend", "select_p_job_resume", "select_p_step_pick_nodes",
	"select_p_step_start", "select_p_step_finish", "select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack", "select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free", "select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set", "select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc", "select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set", "select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy", "select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack", "select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup", "select_p_get_info_from_plugin",
	"select_p_update_node_config", "select_p_reconfigure", "select_p_resv_test",
};

static slurm_select_ops_t cons;
static plugin_context_t *cons_context = NULL;
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
		info("select/cons_tres_gang: gang GPU placement over select/cons_tres (settings from %s)", path);
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
		{ "switch_record_cnt", (void **) &ctld.switch_cnt },
		{ "switch_record_table", (void **) &ctld.switch_table },
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
	cons_context = plugin_context_create("select", "select/cons_tres", (void **) &cons, syms, sizeof(syms));
	if (!cons_context) {
		error("select/cons_tres_gang: cannot load select/cons_tres, which it wraps");
		return SLURM_ERROR;
	}
	/* Elsewhere (slurmd, commands, libslurm programs) only the forwarding is used. */
	if (running_in_slurmctld() && _find_controller_symbols()) {
		gpu_id = ctld.gres_id("gpu");
		_load_settings();
	}
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	/* cons_tres is also loaded by Slurm itself, which finishes it. */
	gang_settings_free(settings);
	settings = NULL;
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

static int _switch_of(int node_index)
{
	switch_record_t *table = *ctld.switch_table;

	for (int s = 0; table && s < *ctld.switch_cnt; s++)
		if (table[s].level == 0 && table[s].node_bitmap && bit_test(table[s].node_bitmap, node_index))
			return s;
	return 0;
}

static void _job_shape(job_record_t *job_ptr, uint32_t min_nodes, uint32_t max_nodes, gang_job_t *j)
{
	struct job_details *d = job_ptr->details;
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
	j->exclusive = d->whole_node == WHOLE_NODE_REQUIRED || !d->share_res;
	if (job_ptr->gres_list_req) {
		gres_state_t *gs = list_find_first(job_ptr->gres_list_req, gres_find_id, &gpu_id);
		gres_job_state_t *js = gs ? gs->gres_data : NULL;
		if (js) {
			j->gpus_per_job = js->gres_per_job;
			j->gpus_per_node = js->gres_per_node;
			j->gpus_per_task = js->gres_per_task;
			if (!j->gpus_per_job && !j->gpus_per_node && !j->gpus_per_task && js->gres_per_socket)
				j->gpus_per_node = js->gres_per_socket;
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
	(void) (*cons.nodeinfo_set_all)();  /* cons_tres's allocated CPUs and memory, current */
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
		if (node_ptr->select_nodeinfo) {
			(*cons.nodeinfo_get)(node_ptr->select_nodeinfo->data, SELECT_NODEDATA_SUBCNT,
					     NODE_STATE_ALLOCATED, &alloc_cpus);
			(*cons.nodeinfo_get)(node_ptr->select_nodeinfo->data, SELECT_NODEDATA_MEM_ALLOC,
					     NODE_STATE_ALLOCATED, &alloc_mem);
		}
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
			     uint32_t req_nodes, uint16_t mode, List preemptee_candidates,
			     List *preemptee_job_list, bitstr_t *exc_core_bitmap)
{
	bitstr_t *mine, *all;
	int rc;

	if (mode != SELECT_MODE_RUN_NOW || !settings || !job_ptr->details || job_ptr->details->req_node_bitmap ||
	    !gang_enabled_for(settings, job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL) ||
	    !(mine = _gang_nodes(job_ptr, bitmap, min_nodes, max_nodes)))
		return (*cons.job_test)(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
					preemptee_candidates, preemptee_job_list, exc_core_bitmap);
	all = bit_copy(bitmap);
	bit_and(bitmap, mine);
	{
		uint32_t k = bit_set_count(bitmap);
		uint32_t req = MAX(min_nodes, MIN(req_nodes, k));
		rc = (*cons.job_test)(job_ptr, bitmap, min_nodes, max_nodes, req, mode, preemptee_candidates,
				      preemptee_job_list, exc_core_bitmap);
	}
	if (rc != SLURM_SUCCESS) {
		char *nodes = ctld.node_names(mine);
		verbose("select/cons_tres_gang: %pJ: cons_tres cannot place it on the gang choice %s (%s); using cons_tres's own choice",
			job_ptr, nodes, slurm_strerror(rc));
		xfree(nodes);
		bit_copybits(bitmap, all);
		rc = (*cons.job_test)(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode, preemptee_candidates,
				      preemptee_job_list, exc_core_bitmap);
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
	return (*cons.reconfigure)();
}

/* Everything else: cons_tres as it is. */
extern int select_p_state_save(char *dir_name) { return (*cons.state_save)(dir_name); }
extern int select_p_state_restore(char *dir_name) { return (*cons.state_restore)(dir_name); }
extern int select_p_job_init(List job_list) { return (*cons.job_init)(job_list); }
extern int select_p_node_init(void) { return (*cons.node_init)(); }
extern int select_p_job_begin(job_record_t *job_ptr) { return (*cons.job_begin)(job_ptr); }
extern int select_p_job_ready(job_record_t *job_ptr) { return (*cons.job_ready)(job_ptr); }
extern int select_p_job_expand(job_record_t *from, job_record_t *to) { return (*cons.job_expand)(from, to); }
extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	return (*cons.job_resized)(job_ptr, node_ptr);
}
extern int select_p_job_signal(job_record_t *job_ptr, int signal) { return (*cons.job_signal)(job_ptr, signal); }
extern int select_p_job_fini(job_record_t *job_ptr) { return (*cons.job_fini)(job_ptr); }
extern int select_p_job_suspend(job_record_t *job_ptr, bool indf) { return (*cons.job_suspend)(job_ptr, indf); }
extern int select_p_job_resume(job_record_t *job_ptr, bool indf) { return (*cons.job_resume)(job_ptr, indf); }
extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr, select_jobinfo_t *jobinfo, uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*cons.step_pick_nodes)(job_ptr, jobinfo, node_count, avail_nodes);
}
extern int select_p_step_start(step_record_t *step_ptr) { return (*cons.step_start)(step_ptr); }
extern int select_p_step_finish(step_record_t *step_ptr, bool killing) { return (*cons.step_finish)(step_ptr, killing); }
extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo, buf_t *buffer, uint16_t protocol_version)
{
	return (*cons.nodeinfo_pack)(nodeinfo, buffer, protocol_version);
}
extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo, buf_t *buffer, uint16_t protocol_version)
{
	return (*cons.nodeinfo_unpack)(nodeinfo, buffer, protocol_version);
}
extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void) { return (*cons.nodeinfo_alloc)(); }
extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo) { return (*cons.nodeinfo_free)(nodeinfo); }
extern int select_p_select_nodeinfo_set_all(void) { return (*cons.nodeinfo_set_all)(); }
extern int select_p_select_nodeinfo_set(job_record_t *job_ptr) { return (*cons.nodeinfo_set)(job_ptr); }
extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*cons.nodeinfo_get)(nodeinfo, dinfo, state, data);
}
extern select_jobinfo_t *select_p_select_jobinfo_alloc(void) { return (*cons.jobinfo_alloc)(); }
extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo) { return (*cons.jobinfo_free)(jobinfo); }
extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo, enum select_jobdata_type type, void *data)
{
	return (*cons.jobinfo_set)(jobinfo, type, data);
}
extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo, enum select_jobdata_type type, void *data)
{
	return (*cons.jobinfo_get)(jobinfo, type, data);
}
extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo) { return (*cons.jobinfo_copy)(jobinfo); }
extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version)
{
	return (*cons.jobinfo_pack)(jobinfo, buffer, protocol_version);
}
extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo, buf_t *buffer, uint16_t protocol_version)
{
	return (*cons.jobinfo_unpack)(jobinfo, buffer, protocol_version);
}
extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo, char *buf, size_t size, int mode)
{
	return (*cons.jobinfo_sprint)(jobinfo, buf, size, mode);
}
extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo, int mode)
{
	return (*cons.jobinfo_xstrdup)(jobinfo, mode);
}
extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo, job_record_t *job_ptr, void *data)
{
	return (*cons.get_info_from_plugin)(dinfo, job_ptr, data);
}
extern int select_p_update_node_config(int index) { return (*cons.update_node_config)(index); }
extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr, uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return (*cons.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap, core_bitmap);
}
