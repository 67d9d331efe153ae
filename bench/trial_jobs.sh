#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Per-trial overhead of trial jobs on the test cluster (scripts/cluster's
# defaults: 4 nodes x 4 CPUs, sched/backfill, cons_tres), beside the MPI mode
# in the same run, with Slurm's defaults, with batch_sched_delay=0 (slurmctld
# otherwise schedules newly submitted batch jobs at most every 3 s), with an
# Epilog (slurmctld schedules at once when a job's epilog completes) and with
# both. N trials of a program that reports at once, 4 at a time:
#   MPI mode:    mpirun -np 5 tune run (4 runners)                [the baseline]
#   trial jobs:  tune run --trial-jobs --parallel 4, 1 trial per job
#   trial jobs:  the same with --trials-per-job 10
# Figures: trials per second of each, and the AppCore's own account of a
# trial job (submission to program start, trial handed out to program start,
# program exit to result recorded: median and p95).
#   TRIALS=40 bench/trial_jobs.sh
source "$(dirname "$0")/bench_env.sh"
n=${TRIALS:-40}
port=${PORT:-17850}
dir=$work/cluster
trap '"$top/scripts/cluster" stop --dir "$dir" --port "$port" >/dev/null 2>&1; rm -rf "$work"' EXIT
cat >zero.sh <<'SH'
#!/bin/sh
echo objective=1 >&"$TUNE_REPORT_FD"
SH
chmod +x zero.sh
secs() { /usr/bin/python3 -c "import sys; print('%.2f' % ((int(sys.argv[2]) - int(sys.argv[1])) / 1e9))" "$@"; }
run_jobs() {  # NAME TRIALS_PER_JOB
  local t0 out
  t0=$(date +%s%N)
  out=$("$tune" run --trial-jobs --history "$1.h5" --space space.json --trials "$n" --seed 1 --parallel 4 \
        --trials-per-job "$2" --slurm-poll 2s -q -- ./zero.sh)
  echo "$(secs "$t0" "$(date +%s%N)")|$(grep -o 'trial jobs: .*' <<<"$out")"
}

for conf in "" "SchedulerParameters=batch_sched_delay=0" "Epilog=/bin/true" \
            "SchedulerParameters=batch_sched_delay=0;Epilog=/bin/true"; do
  tag=${conf:-default}
  confs=()
  IFS=';' read -r -a lines <<<"$conf"
  for l in "${lines[@]}"; do confs+=(--conf "$l"); done
  "$top/scripts/cluster" start --fresh --dir "$dir" --port "$port" --gpus 0 "${confs[@]}" >/dev/null
  source "$dir/env"
  rm -rf ./*.h5 ./*.trials
  t0=$(date +%s%N)
  mpirun --oversubscribe -np 5 "$tune" run --history mpi.h5 --space space.json --trials "$n" --seed 1 -q -- ./zero.sh >/dev/null
  mpi_s=$(secs "$t0" "$(date +%s%N)")
  one=$(run_jobs jobs1 1)
  ten=$(run_jobs jobs10 10)
  left=$(squeue -h | wc -l)
  "$top/scripts/cluster" stop --dir "$dir" --port "$port" >/dev/null
  /usr/bin/python3 - "$n" "$mpi_s" "$one" "$ten" "$left" "$tag" <<'PY'
import sys
n, mpi, tag = int(sys.argv[1]), float(sys.argv[2]), sys.argv[6]
print("trial_jobs [%s]: %d zero-second trials, 4 at a time, on 4 nodes x 4 CPUs" % (tag, n))
print("  baseline: MPI mode (mpirun -np 5): %.2f s = %.1f trials/s" % (mpi, n / mpi))
for label, field in (("1 trial a job", sys.argv[3]), ("10 trials a job", sys.argv[4])):
    t, costs = field.split("|", 1)
    t = float(t)
    print("  trial jobs, %-13s %.2f s = %.1f trials/s; ratio to the MPI mode %.2f" % (label + ":", t, n / t, (n / t) / (n / mpi)))
    print("    " + costs)
print("  jobs left in the queue: %s" % sys.argv[5])
PY
done
