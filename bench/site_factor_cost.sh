#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What site_factor/tune costs slurmctld with JOBS pending jobs (default
# 10,000), on the accounting test cluster (priority/multifactor, Fair Tree,
# slurmdbd; the installed Slurm or TUNE_CLUSTER_SLURM=VERSION). Half the
# pending jobs carry the progress record of one of 50 plateaued studies (so
# the plugin gives each of them a term), the rest none.
# Figure: the median of the plugin's own "held the job write lock N us" over
# its passes (one a second). Baseline in the same run, over the same jobs:
# multifactor's own recompute, fair_tree_decay (decayed usage, the fair-share
# tree and every pending job's priority, under the same lock), timed by a
# uprobe on its entry and return (perf probe; needs root and tracefs), once
# per PriorityCalcPeriod (a minute). Both per call and per minute.
#   JOBS=100000 bench/site_factor_cost.sh
source "$(dirname "$0")/bench_env.sh"
n=${JOBS:-10000}
port=${PORT:-18100}
cluster=$top/scripts/cluster
dir=$work/cluster
command -v perf >/dev/null || { echo "site_factor_cost: perf is not installed (apt-get install linux-perf)"; exit 1; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
  { echo "site_factor_cost: cannot mount tracefs on /sys/kernel/tracing (root needed for uprobes)"; exit 1; }
accounts=$(seq -s, -f 'lab%g' 0 19)
printf 'interval = 1;\nadaptive = { k = 1; m = 3; thresholds = [0.01]; };\n' >site.conf
"$cluster" start --fresh --dir "$dir" --port "$port" --nodes 4 --cpus 4 --gpus 0 --accounting --accounts "$accounts" \
  --site-factor site_factor/tune --site-conf site.conf --conf MaxJobCount=$((n + 10000)) --timeout 120 >/dev/null || exit 1
probe_group=probe_priority_multifactor
trap 'perf probe -q -d "$probe_group:*" 2>/dev/null; "$cluster" stop --dir "$dir" --port "$port" >/dev/null 2>&1; rm -rf "$work"' EXIT
source "$dir/env"
plugin_dir=$(awk -F'[=:]' '/^PluginDir=/ {print $2}' "$dir/etc/slurm.conf")
so=$plugin_dir/priority_multifactor.so
perf probe -q -d "$probe_group:*" 2>/dev/null || true  # none left from an earlier run
perf probe -q -x "$so" -a fair_tree_decay && perf probe -q -x "$so" -a fair_tree_decay%return ||
  { echo "site_factor_cost: cannot place uprobes on fair_tree_decay in $so"; exit 1; }

sbatch -Q -A lab0 -n 16 --wrap 'sleep 100000' -o /dev/null
t0=$(date +%s)
# sbatch from 6 processes at once: single jobs (an array would be one record).
seq "$n" | xargs -P 6 -I{} sh -c '
  i={}; a=lab$((i % 20))
  if [ $((i % 2)) = 0 ]; then c="tune:study=s$((i % 50));n=40;dir=min;top=1,1,1,1,1"; else c=plain; fi
  sbatch -Q -n 1 -o /dev/null -A "$a" --comment "$c" --wrap true'
echo "submitted $n pending jobs in $(( $(date +%s) - t0 )) s"
scontrol setdebug debug
log=$dir/log/slurmctld.log
lines_at=$(wc -l <"$log")
# Two PriorityCalcPeriods at least: two multifactor recomputes, ~130 passes.
perf record -q -o "$work/probes.data" -e "$probe_group:fair_tree_decay" -e "$probe_group:fair_tree_decay__return" \
  -a -- sleep 135 >/dev/null 2>&1
scontrol setdebug info
pending=$(squeue -h -t PD | wc -l)
passes=$(tail -n +$((lines_at + 1)) "$log" | grep -o "site_factor/tune: pass over [0-9]* jobs.*held the job write lock [0-9]* us")
[ -n "$passes" ] || { echo "no pass was logged (is SlurmctldDebug=debug reaching the log?)"; exit 1; }
jobs=$(tail -1 <<<"$passes" | awk '{print $4}')
count=$(wc -l <<<"$passes")
median=$(awk '{print $(NF-1)}' <<<"$passes" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
# A recompute: the first entry to the last return (the probes fire on the
# PLT stub and on the function) of events closer than 1 s together.
decays=$(perf script -i "$work/probes.data" -F time,event 2>/dev/null | tr -d ':' | awk '
  { t = $1 + 0; ret = ($2 ~ /return/) }
  start == "" || t - last > 1 { if (start != "" && end > start) printf "%.0f\n", (end - start) * 1e6; start = t; end = 0 }
  { if (ret) end = t; last = t }
  END { if (start != "" && end > start) printf "%.0f\n", (end - start) * 1e6 }')
[ -n "$decays" ] || { echo "no multifactor recompute was seen in 135 s (PriorityCalcPeriod=1 should give two)"; exit 1; }
dcount=$(wc -l <<<"$decays")
base=$(sort -n <<<"$decays" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
echo "Slurm $(slurm_under_test): site_factor/tune pass over $jobs jobs ($pending pending, half of them in 50 studies): job write lock held $median us (median of $count passes)"
echo "baseline: multifactor's fair_tree_decay over the same jobs: $base us (median of $dcount: $(paste -sd' ' <<<"$decays"))"
awk -v a="$median" -v b="$base" 'BEGIN {printf "ratio per call %.2f; per minute (a recompute a minute) with a pass every second (this run) %.1f, every 30 s (the default interval) %.1f\n", a / b, 60 * a / b, 2 * a / b}'
