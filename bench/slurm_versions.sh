#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugins' costs on every Slurm this machine has: the installed one and
# each built by scripts/setup --slurm (scripts/slurm-build). Per version, in
# one run: sched/tune's pass (job write lock held) at 10,000 and 100,000
# pending jobs against slurmctld's own main scheduler cycle over the same
# queue (bench/sched_lock.sh), and select/cons_tres_gang's scheduler cycle
# against plain select/cons_tres on the same cluster and jobs
# (bench/select_overhead.sh). VERSIONS="installed 26.05" picks some;
# SIZES="10000 100000" the queue sizes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
built=$(for v in $("$top/scripts/slurm-build" --list 2>/dev/null); do
  "$top/scripts/slurm-build" --prefix "$v" >/dev/null 2>&1 && echo "$v"; done)
versions=${VERSIONS:-installed $built}
for v in $versions; do
  [ "$v" = installed ] && v=
  for n in ${SIZES:-10000 100000}; do
    TUNE_CLUSTER_SLURM=$v JOBS=$n "$top/bench/sched_lock.sh" | tail -n 2
  done
  TUNE_CLUSTER_SLURM=$v "$top/bench/select_overhead.sh" | tail -n 1
done
