#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How long sched/tune holds slurmctld's job write lock per pass with 5,000
# pending jobs (JOBS=...), on the test cluster (of the installed Slurm, or of
# TUNE_CLUSTER_SLURM=VERSION as built by scripts/setup --slurm). Figure: the median of the
# plugin's own "held the job write lock N us" over 20 passes. Baseline in the
# same run: slurmctld's main scheduler cycle (sdiag "Mean cycle") over the
# same queue, which holds the same lock.
source "$(dirname "$0")/bench_env.sh"
n=${JOBS:-5000}
cluster=$top/scripts/cluster
dir=$work/cluster
printf 'interval = 1;\n' >sched.conf
"$cluster" start --fresh --dir "$dir" --port 17700 --nodes 4 --cpus 4 --gpus 0 --scheduler sched/tune \
  --sched-conf sched.conf --conf MaxJobCount=$((n + 10000)) --timeout 120 >/dev/null
trap '"$cluster" stop --dir "$dir" --port 17700 >/dev/null 2>&1; rm -rf "$work"' EXIT
source "$dir/env"
sbatch -Q -n 16 --wrap 'sleep 100000' -o /dev/null
t0=$(date +%s)
# sbatch from 6 processes at once: single jobs (an array would be one record).
seq "$n" | xargs -P 6 -I{} sbatch -Q -n 1 -o /dev/null -A "acct$(( RANDOM % 20 ))" --wrap true
echo "submitted $n pending jobs in $(( $(date +%s) - t0 )) s"
scontrol setdebug debug
sdiag -r >/dev/null
sleep 25
scontrol setdebug info
pending=$(squeue -h -t PD | wc -l)
log=$dir/log/slurmctld.log
passes=$(grep -o "sched/tune: pass over [0-9]* jobs.*held the job write lock [0-9]* us" "$log" | tail -20)
[ -n "$passes" ] || { echo "no pass was logged (is SlurmctldDebug=debug reaching the log?)"; exit 1; }
jobs=$(tail -1 <<<"$passes" | awk '{print $4}')
count=$(wc -l <<<"$passes")
median=$(awk '{print $(NF-1)}' <<<"$passes" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
base=$(sdiag | awk '/^Main schedule statistics/ {m = 1} m && /Mean cycle:/ {print $3; exit}')
echo "Slurm $(slurm_under_test): sched/tune pass over $jobs jobs ($pending pending): job write lock held $median us (median of $count passes)"
echo "baseline: slurmctld main scheduler mean cycle over the same queue: $base us; ratio $(awk -v a="$median" -v b="$base" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
