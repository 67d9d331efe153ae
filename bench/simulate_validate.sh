#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tune simulate against real Slurm: the same workload (JOBS, default 200,
# mixed sizes, 5-45 s jobs at about 90% load) run on the test cluster
# (4 nodes x 4 CPUs x 4 GPUs) and replayed by the simulator from the
# cluster's own records. Two configurations: sched/backfill + cons_tres
# (simulated as fifo + cons_tres), then sched/tune + cons_tres_gang (tune +
# gang). Figures: mean wait and makespan error, share of job pairs started in
# the same order, |start difference|. SEED (1) picks the workload; SHORT=1
# uses 3-20 s jobs; CONFIGS="backfill tune" (default) picks the configurations.
source "$(dirname "$0")/bench_env.sh"
n=${JOBS:-200}
seed=${SEED:-1}
cluster=$top/scripts/cluster
port=17960
run() {  # NAME PRIORITY PLACEMENT [cluster options...]
  local name=$1 prio=$2 place=$3
  shift 3
  local dir=$work/$name
  "$cluster" start --fresh --dir "$dir" --port $port --nodes 4 --cpus 4 --gpus 4 "$@" >/dev/null || exit 1
  trap '"$cluster" stop --dir "'"$dir"'" --port '$port' >/dev/null 2>&1' EXIT
  (
    # shellcheck disable=SC1091
    source "$dir/env"
    /usr/bin/python3 "$top/bench/replay_on_cluster.py" "$n" "$seed" "$work/$name.txt" ${SHORT:+--short}
  ) || exit 1
  "$cluster" stop --dir "$dir" --port $port >/dev/null 2>&1
  trap - EXIT
  cp "$work/$name.txt" "$top/bench/simulate_validate-$name.txt"
  "$tune" simulate --cluster "$dir/etc/slurm.conf" --jobs "$work/$name.txt" --validate --priority "$prio" \
    --placement "$place" --sched-conf "$dir/etc/sched_tune.conf" | sed -n '/^simulated against/,$p'
}
for config in ${CONFIGS:-backfill tune}; do
  case $config in
    backfill)
      echo "== sched/backfill + select/cons_tres ($n jobs, seed $seed)"
      run backfill fifo cons_tres ;;
    tune)
      echo "== sched/tune + select/cons_tres_gang ($n jobs, seed $seed)"
      run tune tune gang --scheduler sched/tune --select select/cons_tres_gang ;;
    *) echo "simulate_validate: unknown configuration '$config' in CONFIGS: use backfill and/or tune" >&2; exit 2 ;;
  esac
done
