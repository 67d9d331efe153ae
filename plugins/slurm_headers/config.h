/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's private headers include "config.h". No 22.05 struct layout
 * depends on it (see ../shared/SLURM.md), so this file stands in for the
 * config.h of Slurm's own configure run, with the two settings we rely on:
 * NDEBUG as in Debian's build, and USE_ALIAS, which Slurm's configure sets
 * on every platform but Darwin. With it, src/common/slurm_xlator.h renames
 * calls to Slurm's common functions to their exported slurm_* aliases, the
 * only names the public libslurm.so provides (see select_cons_tres_gang.c). */
#define NDEBUG 1
#define USE_ALIAS 1
