#!/usr/bin/env bash
# How long sched/tune holds slurmctld's job write lock per pass with 5,000
# pending jobs (JOBS=...), on the test cluster. Figure: the median of the
# plugin's own "held the job write lock N us" over 20 passes. Baseline in the
# same run: slurmctld's main scheduler cycle (sdiag "Mean cycle") over the
# same queue, which holds the same lock.
source "$(dirname "$0")/bench_env.sh"
n=${JOBS:-5000}
cluster=$top/scripts/cluster
dir=$work/cluster
printf 'interval = 1;\n' >sched.conf
"$cluster" start --fresh --dir "$dir" --port 17700 --nodes 4 --cpus 4 --gpus 0 --scheduler sched/tune \
  --sched-conf sched.conf --conf MaxJobCount=20000 >/dev/null
trap '"$cluster" stop --dir "$dir" --port 17700 >/dev/null 2>&1; rm -rf "$work"' EXIT
source "$dir/env"
sbatch -Q -n 16 --wrap 'sleep 100000' -o /dev/null
t0=$(date +%s)
# sbatch from 4 processes at once: 5,000 single jobs (an array would be one record).
seq "$n" | xargs -P 4 -I{} sbatch -Q -n 1 -o /dev/null -A "acct$(( RANDOM % 20 ))" --wrap true
echo "submitted $n pending jobs in $(( $(date +%s) - t0 )) s"
scontrol setdebug debug
sdiag -r >/dev/null
sleep 25
scontrol setdebug info
pending=$(squeue -h -t PD | wc -l)
log=$dir/log/slurmctld.log
grep -o "sched/tune: pass over [0-9]* jobs.*held the job write lock [0-9]* us" "$log" | tail -20 |
  awk -v pending="$pending" -v base="$(sdiag | awk '/^Main schedule statistics/ {m=1} m && /Mean cycle:/ {print $3; exit}')" '
  { us[NR] = $NF + 0; sub(/ us$/, ""); split($0, w, " "); jobs = w[4] }
  END {
    if (NR == 0) { print "no pass was logged"; exit 1 }
    n = asort(us); med = us[int((n + 1) / 2)]
    printf "sched/tune pass over %d jobs (%d pending): job write lock held %d us (median of %d passes)\n", jobs, pending, med, n
    printf "baseline: main scheduler mean cycle %d us; ratio %.2f\n", base, (base > 0 ? med / base : 0)
  }'
