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
# CONFIGS=multifactor: an accounting cluster (MariaDB, slurmdbd; accounts
# lab-a..lab-d) under priority/multifactor (fair share, MAX_TRES) with
# site_factor/tune, the same jobs from lab-a..lab-c and beside them a tune
# study of trial jobs (1 GPU each) from lab-d whose objective never improves
# (so site_factor/tune lowers it), replayed from the cluster's sacct records
# as an admin would (AccountingStoreFlags=job_comment keeps the trial jobs'
# progress records) with multifactor+tune, with the association tree of
# sacctmgr (--associations) under the replay's Fair Tree, then under its
# classic fair share (the baseline).
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
  trap 'rm -rf "$work"' EXIT  # bench_env.sh's, which the cluster's replaced
  cp "$work/$name.txt" "$top/bench/simulate_validate-$name.txt"
  "$tune" simulate --cluster "$dir/etc/slurm.conf" --jobs "$work/$name.txt" --validate --priority "$prio" \
    --placement "$place" --sched-conf "$dir/etc/sched_tune.conf" | sed -n '/^simulated against/,$p'
}
run_multifactor() {
  local dir=$work/multifactor since
  echo 'interval = 5; adaptive = { relax_time = 3600; };' >"$work/site_factor_tune.conf"
  "$cluster" start --fresh --dir "$dir" --port $port --nodes 4 --cpus 4 --gpus 4 --accounting \
    --accounts lab-a,lab-b,lab-c,lab-d --site-factor site_factor/tune --site-conf "$work/site_factor_tune.conf" \
    --conf AccountingStoreFlags=job_comment >/dev/null || exit 1
  trap '"$cluster" stop --dir "'"$dir"'" --port '$port' >/dev/null 2>&1' EXIT
  since=$(date +%Y-%m-%dT%H:%M:%S)
  (
    # shellcheck disable=SC1091
    source "$dir/env"
    mkdir -p "$work/study" && cd "$work/study" || exit 1
    printf '#!/bin/sh\nsleep $((5 + ${TUNE_TRIAL_ID:-0} %% 20))\necho "objective=0.5" >&"$TUNE_REPORT_FD"\n' >flat.sh
    chmod 755 flat.sh
    "$tune" submit --trial-jobs --name flat --space "$work/space.json" --trials 60 --parallel 6 --gpus-per-trial 1 \
      --cpus-per-trial 1 --mem-per-trial 400M --direction max -A lab-d -- ./flat.sh >/dev/null || exit 1
    /usr/bin/python3 "$top/bench/replay_on_cluster.py" "$n" "$seed" "$work/mixed.txt" ${SHORT:+--short} || exit 1
    for _ in $(seq 1 600); do [ -z "$(squeue -h)" ] && break; sleep 2; done
    # slurmdbd has every job once each has an End.
    for _ in $(seq 1 60); do
      sacct -a -X --parsable2 -S "$since" \
        --format=JobID,JobName,User,Account,Submit,Start,End,Timelimit,NNodes,NCPUS,AllocTRES,ReqMem,Comment \
        >"$work/multifactor.txt"
      ! grep -q '|Unknown|' "$work/multifactor.txt" && break
      sleep 2
    done
    echo "$(($(wc -l <"$work/multifactor.txt") - 1)) jobs in sacct, $(grep -c 'role=trial' "$work/multifactor.txt") of them trial jobs with their records"
    # The association tree, for the replay's Fair Tree, as an admin has it.
    sacctmgr -nP show assoc format=Account,User,ParentName,Share >"$work/associations.txt"
  ) || exit 1
  "$cluster" stop --dir "$dir" --port $port >/dev/null 2>&1
  trap 'rm -rf "$work"' EXIT  # bench_env.sh's, which the cluster's replaced
  cp "$work/multifactor.txt" "$top/bench/simulate_validate-multifactor.txt"
  # The baseline: the replay's classic fair share (PriorityFlags=NO_FAIR_TREE)
  # against the Fair Tree the cluster ran.
  mkdir -p "$work/classic"
  if grep -q '^PriorityFlags=' "$dir/etc/slurm.conf"; then
    sed 's/^PriorityFlags=.*/&,NO_FAIR_TREE/' "$dir/etc/slurm.conf" >"$work/classic/slurm.conf"
  else
    { cat "$dir/etc/slurm.conf"; echo PriorityFlags=NO_FAIR_TREE; } >"$work/classic/slurm.conf"
  fi
  # When slurmctld's timers ran is not in the records: each phase of the
  # decay thread's minute in turn (--timer-phase), as an admin would try.
  for model in fair-tree classic; do
    conf=$dir/etc/slurm.conf
    [ $model = classic ] && conf=$work/classic/slurm.conf
    for phase in 0 10 20 30 40 50; do
      echo "-- $model, --timer-phase $phase"
      "$tune" simulate --cluster "$conf" --associations "$work/associations.txt" --jobs "$work/multifactor.txt" \
        --validate --timer-phase "$phase" --priority multifactor,multifactor+tune --site-conf "$work/site_factor_tune.conf" |
        sed -n '/^POLICY .*ORDER/,$p'
    done
  done
}
for config in ${CONFIGS:-backfill tune}; do
  case $config in
    backfill)
      echo "== sched/backfill + select/cons_tres ($n jobs, seed $seed)"
      run backfill fifo cons_tres ;;
    tune)
      echo "== sched/tune + select/cons_tres_gang ($n jobs, seed $seed)"
      run tune tune gang --scheduler sched/tune --select select/cons_tres_gang ;;
    multifactor)
      echo "== priority/multifactor + site_factor/tune, a study beside the jobs ($n jobs, seed $seed)"
      run_multifactor ;;
    *) echo "simulate_validate: unknown configuration '$config' in CONFIGS: use backfill, tune and/or multifactor" >&2; exit 2 ;;
  esac
done
