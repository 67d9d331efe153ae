/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A program as a site would write one (or pyslurm is): linked only against
 * the public libslurm.so, it reads the cluster's jobs, nodes and partitions.
 * Reading job and node records makes libslurm load every select plugin in
 * PluginDir, so on a cluster with select/cons_tres_gang this fails (libslurm
 * calls fatal()) if the plugin needs a symbol only libslurmfull or slurmctld
 * provides. With --dlopen FILE.so it first opens that plugin with RTLD_NOW,
 * so that every symbol it references must resolve here, not only those it
 * happens to call.
 *
 *   public_libslurm [--dlopen PLUGIN.so]...
 * prints "jobs N nodes N partitions N"; exits 1 naming what failed.
 */
#include <errno.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dlopen") != 0 || i + 1 >= argc) {
			fprintf(stderr, "usage: %s [--dlopen PLUGIN.so]...\n", argv[0]);
			return 2;
		}
		void *h = dlopen(argv[++i], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "public_libslurm: dlopen(RTLD_NOW): %s\n", dlerror());
			return 1;
		}
		printf("dlopen %s: every symbol resolved\n", argv[i]);
		dlclose(h);
	}

	slurm_init(NULL);
	job_info_msg_t *jobs = NULL;
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	if (slurm_load_jobs(0, &jobs, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
		fprintf(stderr, "public_libslurm: slurm_load_jobs: %s\n", slurm_strerror(errno));
		return 1;
	}
	if (slurm_load_node(0, &nodes, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
		fprintf(stderr, "public_libslurm: slurm_load_node: %s\n", slurm_strerror(errno));
		return 1;
	}
	if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
		fprintf(stderr, "public_libslurm: slurm_load_partitions: %s\n", slurm_strerror(errno));
		return 1;
	}
	printf("jobs %u nodes %u partitions %u\n", jobs->record_count, nodes->record_count, parts->record_count);
	slurm_free_job_info_msg(jobs);
	slurm_free_node_info_msg(nodes);
	slurm_free_partition_info_msg(parts);
	slurm_fini();
	return 0;
}
