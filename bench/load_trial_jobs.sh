#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What many studies at once cost slurmctld: STUDIES (20) studies of trial
# jobs (tune submit --trial-jobs, --parallel PARALLEL (8), TRIALS (100)
# trials each: 2,000 in all) on the deployed test cluster (sched/tune,
# select/cons_tres_gang; the installed Slurm or TUNE_CLUSTER_SLURM=VERSION).
# Checks every trial recorded once and no job left. Figure: slurmctld's
# RPCs per trial (sdiag, by message type). Baseline in the same run, on the
# same cluster: the same trials as STUDIES job arrays of TRIALS tasks, PARALLEL
# at once (--array=0-N%PARALLEL), each waited for by its user polling squeue
# every 10 s (the AppCore's --slurm-poll default). Aim: tune at most 1.5x.
# TRIALS_PER_JOB (1) is tune's --trials-per-job.
#   STUDIES=4 TRIALS=20 bench/load_trial_jobs.sh   # a quick look
source "$(dirname "$0")/bench_env.sh"
studies=${STUDIES:-20} trials=${TRIALS:-100} parallel=${PARALLEL:-8} sleep_s=${TRIAL_SLEEP:-2} per_job=${TRIALS_PER_JOB:-1}
port=${PORT:-18200}
cluster=$top/scripts/cluster
dir=$work/cluster
# Every study's trial jobs and AppCore at once: PARALLEL + 1 CPUs a study.
cpus=$(( (studies * (parallel + 1) + 3) / 4 ))
"$cluster" start --fresh --dir "$dir" --port "$port" --nodes 4 --cpus "$cpus" --memory $((cpus * 300)) --gpus 0 \
  --scheduler sched/tune --select select/cons_tres_gang --conf MaxJobCount=50000 --timeout 120 >/dev/null || exit 1
trap '"$cluster" stop --dir "$dir" --port "$port" >/dev/null 2>&1; rm -rf "$work"' EXIT
source "$dir/env"
echo "load_trial_jobs: Slurm $(slurm_under_test), 4 nodes of $cpus CPUs; $studies studies x $trials trials, $parallel at once each, trials of ${sleep_s} s, $per_job trial(s) per job"

cat >trial.sh <<SH
#!/bin/sh
sleep $sleep_s
echo "objective=\$TUNE_PARAM_x" >&"\$TUNE_REPORT_FD"
SH
cat >task.sh <<SH
#!/bin/sh
sleep $sleep_s
echo "objective=0.\$SLURM_ARRAY_TASK_ID" >"$work/arrays/\$SLURM_ARRAY_JOB_ID.\$SLURM_ARRAY_TASK_ID"
SH
chmod 755 trial.sh task.sh
mkdir -p arrays

# sdiag's RPC counts by message type as "TYPE COUNT" lines.
rpc_counts() {
  sdiag | awk '/^Remote Procedure Call statistics by message type/ {on = 1; next}
               /^Remote Procedure Call statistics by user/ {on = 0}
               on && /count:/ {for (i = 1; i <= NF; i++) if ($i ~ /^count:/) {sub("count:", "", $i); print $1, $i}}'
}
# Waits until USER's queue (squeue polled every 10 s, as a user would) has
# no job named NAME.
wait_name() { while [ -n "$(squeue -h -u root -n "$1" -o %i)" ]; do sleep 10; done; }

# tune: STUDIES AppCore jobs, each keeping PARALLEL trial jobs.
sdiag --reset >/dev/null
t0=$(date +%s)
for s in $(seq 1 "$studies"); do
  "$tune" submit --trial-jobs --name "s$s" --space space.json --trials "$trials" --parallel "$parallel" \
    --trials-per-job "$per_job" --cpus-per-trial 1 --mem-per-trial 200M --seed "$s" -- ./trial.sh >/dev/null || { echo "tune submit failed"; exit 1; }
done
for s in $(seq 1 "$studies"); do wait_name "s$s" & done
wait
tune_s=$(( $(date +%s) - t0 ))
rpc_counts >tune.rpc
recorded=0 twice=0
for s in $(seq 1 "$studies"); do
  ids=$("$tune" export "s$s.h5" --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok" {print $1}')
  recorded=$((recorded + $(grep -c . <<<"$ids" || true)))
  twice=$((twice + $(sort <<<"$ids" | uniq -d | grep -c . || true)))
done
left=$(squeue -h | wc -l)
echo "tune: $recorded of $((studies * trials)) trials recorded, $twice twice, $left jobs left, in $tune_s s"
if [ "$recorded" -ne $((studies * trials)) ] || [ "$twice" -ne 0 ] || [ "$left" -ne 0 ]; then
  tail -n 5 s*-*.out
  exit 1
fi

# Baseline: the same trials as job arrays, each polled by its user.
sdiag --reset >/dev/null
t0=$(date +%s)
for s in $(seq 1 "$studies"); do
  sbatch -Q --array=0-$((trials - 1))%"$parallel" -c 1 --mem=200M -J "a$s" -o /dev/null task.sh >/dev/null
done
for s in $(seq 1 "$studies"); do wait_name "a$s" & done
wait
array_s=$(( $(date +%s) - t0 ))
rpc_counts >array.rpc
done_tasks=$(find arrays -type f | wc -l)
echo "job arrays: $done_tasks of $((studies * trials)) tasks done, in $array_s s"

/usr/bin/python3 - tune.rpc array.rpc $((studies * trials)) <<'PY'
import sys
def read(path):
    out = {}
    for line in open(path):
        name, n = line.split()
        out[name] = out.get(name, 0) + int(n)
    return out
tune, arr, n = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
print(f"{'RPC type':40s} {'tune/trial':>10s} {'arrays/trial':>12s}")
for name in sorted(set(tune) | set(arr), key=lambda k: -(tune.get(k, 0) + arr.get(k, 0))):
    print(f"{name:40s} {tune.get(name, 0) / n:10.3f} {arr.get(name, 0) / n:12.3f}")
t, a = sum(tune.values()) / n, sum(arr.values()) / n
print(f"{'all':40s} {t:10.3f} {a:12.3f}")
print(f"slurmctld RPCs per trial: tune {t:.2f}, job arrays {a:.2f}: ratio {t / a:.2f} (aim <= 1.5)")
PY
