/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C interface between the select/cons_tres_gang shim and the placement
 * policy in lib/placement (C++). noexcept: an exception becomes an error
 * return, never a slurmctld crash.
 */
#ifndef GANG_POLICY_H
#define GANG_POLICY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	int switch_id;
	int cores, free_cores;
	double mem_mb, free_mem_mb;
	int gpus;
	const int *gpu_socket;          /* gpus entries */
	const unsigned char *gpu_free;  /* gpus entries, 1 = free */
} gang_node_t;

typedef struct {
	int min_nodes, max_nodes, tasks, cpus_per_task;
	int gpus_per_job, gpus_per_node, gpus_per_task, gpus_per_socket, cpus_per_gpu;
	double mem_per_cpu_mb, mem_per_gpu_mb, mem_per_node_mb;
	int exclusive;
	unsigned job_id;  /* policies that learn the workload's mix see each job once */
} gang_job_t;

typedef struct gang_settings gang_settings_t;

/* select_gang.conf (libconfig); a missing file gives the defaults. NULL on
 * error with file:line: reason in err. */
gang_settings_t *gang_settings_load(const char *path, char *err, size_t errlen);
void gang_settings_free(gang_settings_t *s);
/* The placement policy's name (select_gang.conf's placement: gang, fgd). */
const char *gang_placement_name(const gang_settings_t *s);
/* Whether jobs of this partition are placed by the policy. */
int gang_enabled_for(const gang_settings_t *s, const char *partition);

/* Marks chosen[i] = 1 for the nodes the policy (select_gang.conf's
 * placement: gang or fgd) picks. Returns the number of
 * nodes chosen, 0 when the job does not fit now, -1 on error (err). */
int gang_place(gang_settings_t *s, const gang_node_t *nodes, int n, const gang_job_t *job, int *chosen,
	       char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
