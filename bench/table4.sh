#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The source design's Table 4 on the test cluster: 3 nodes x 12 CPUs, 1 to 4
# competing studies at parallelism 4 (each job 17 CPUs: 4 runners x 4 + the
# AppCore's 1, as in the paper), random search on a synthetic learning curve
# (bench/programs/curve.py, 5 epochs of CURVE_EPOCH s), each study stopping at
# accuracy TARGET. Figure: average time from submission to target per study
# under sched/tune; baseline in the same run: FIFO (sched/backfill +
# priority/basic) with the same seeds.
#   STUDIES="1 2 3 4" TARGET=0.93 CURVE_EPOCH=0.6 bench/table4.sh
source "$(dirname "$0")/bench_env.sh"
cluster=$top/scripts/cluster
export CURVE_EPOCH=${CURVE_EPOCH:-0.6} TUNE_PROGRESS_INTERVAL=${TUNE_PROGRESS_INTERVAL:-2}
target=${TARGET:-0.93}
cp "$top/bench/programs/curve.json" .
cat >sched.conf <<'CONF'
interval = 1;
adaptive = { k = 2; m = 3; relax_time = 60; };
yield = { level = 1; wait = 5; cooldown = 30; };
CONF

# One study: 17 CPUs, rank 0 plus 4 runners, requeued after a yield.
study_script() {  # NAME SEED
  cat <<SH
#!/bin/bash
#SBATCH -J $1 -n 17 --mem-per-cpu=500M -o $work/$1-%j.out --open-mode=append --requeue -A $1
resume=(); [ -e $work/$1.h5 ] && resume=(--resume)
exec $tune wrap -- mpirun --oversubscribe -np 5 $tune run --history $work/$1.h5 "\${resume[@]}" --space $work/curve.json --seed $2 \\
  --trials 400 --direction max --target $target --drain 30s -q -- $top/bench/programs/curve.py
SH
}

run() {  # SCHEDULER N -> average seconds to target
  local sched=$1 n=$2 dir=$work/cluster-${1//\//_}-$2 i t0 s
  # run is a subshell (read < <(run ...)): its own trap stops its cluster.
  trap "\"$cluster\" stop --dir \"$dir\" --port 17800 >/dev/null 2>&1" EXIT  # expanded now: dir is local
  rm -f "$work"/s*.h5 "$work"/s*.out
  "$cluster" start --fresh --dir "$dir" --port 17800 --nodes 3 --cpus 12 --memory 20000 --gpus 0 \
    --scheduler "$sched" --sched-conf sched.conf --cred-expire 5 >/dev/null
  # shellcheck disable=SC1091
  source "$dir/env"
  t0=$(date +%s.%N)
  for i in $(seq 1 "$n"); do study_script "s$i" "$((100 + i))" | sbatch -Q; done
  for _ in $(seq 1 1800); do [ -z "$(squeue -h)" ] && break; sleep 0.5; done
  local yields; yields=$(grep -c "study yields" "$dir/log/slurmctld.log" || true)
  "$cluster" stop --dir "$dir" --port 17800 >/dev/null 2>&1
  s=0
  for i in $(seq 1 "$n"); do
    end=$("$tune" export "$work/s$i.h5" --csv | /usr/bin/python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r['state'] == 'ok' and float(r['objective']) >= $target]
print(min(float(r['end_time']) for r in rows) if rows else 'nan')")
    s=$(awk -v s="$s" -v e="$end" -v t="$t0" 'BEGIN {print s + e - t}')
  done
  awk -v s="$s" -v n="$n" -v y="$yields" 'BEGIN {printf "%.1f %d\n", s / n, y}'
}

printf '%-8s %12s %12s %8s %8s\n' studies "FIFO s" "sched/tune s" ratio yields
for n in ${STUDIES:-1 2 3 4}; do
  read -r fifo _ < <(run sched/backfill "$n")
  read -r adaptive yields < <(run sched/tune "$n")
  printf '%-8s %12s %12s %8s %8s\n' "$n" "$fifo" "$adaptive" "$(awk -v a="$adaptive" -v f="$fifo" 'BEGIN {printf "%.2f", a / f}')" "$yields"
done
echo "paper (Table 4, s): FIFO 75.4 / 80.2 / 121.2 / 156.7; dynamic 80.8 / 82.4 / 104.5 / 124.7"
