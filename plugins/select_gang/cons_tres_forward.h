/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select/cons_tres's operations as select/cons_tres_gang forwards them. */
#ifndef TUNE_CONS_TRES_FORWARD_H
#define TUNE_CONS_TRES_FORWARD_H

extern int (*cons_job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes, uint32_t max_nodes,
			    uint32_t req_nodes, uint16_t mode, tune_list_t *preemptee_candidates,
			    tune_list_t **preemptee_job_list, TUNE_JOB_TEST_TAIL_PARAMS);
extern int (*cons_reconfigure)(void);
/* cons_tres's node data, read for the gang choice. */
extern int (*cons_select_nodeinfo_set_all)(void);
#ifdef TUNE_SELECT_OP_SELECT_NODEINFO_GET
extern int (*cons_select_nodeinfo_get)(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
				       enum node_states state, void *data);
#endif

/* Loads select/cons_tres and links every operation this plugin forwards:
 * its handle, or PLUGIN_INVALID_HANDLE. */
extern plugin_handle_t cons_tres_load(void);

#endif
