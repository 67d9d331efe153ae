#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Extra time slurmctld's scheduler spends in job_test under
# select/cons_tres_gang, beside plain select/cons_tres in the same run: the
# test cluster (4 nodes x 4 GPUs) with every GPU busy and JOBS (200) pending
# 1-GPU jobs, so that each scheduling cycle tries job_test on the queue.
# Figure: sdiag's main scheduler mean cycle under each, and the ratio. On the
# installed Slurm, or on TUNE_CLUSTER_SLURM=VERSION (scripts/setup --slurm).
source "$(dirname "$0")/bench_env.sh"
n=${JOBS:-200}
cluster=$top/scripts/cluster
cycle() {  # SELECT -> mean cycle in us
  dir=$work/c-${1//\//_}
  "$cluster" start --fresh --dir "$dir" --port 18050 --nodes 4 --cpus 8 --gpus 4 --select "$1" >/dev/null || exit 1
  trap '"$cluster" stop --dir "$dir" --port 18050 >/dev/null 2>&1' EXIT
  # shellcheck disable=SC1091
  source "$dir/env"
  for i in 1 2 3 4; do sbatch -Q -o /dev/null -n1 --gres=gpu:4 --wrap 'sleep 1000'; done
  sleep 2
  seq "$n" | xargs -P 4 -I{} sbatch -Q -o /dev/null -n1 --gres=gpu:1 --wrap true
  sdiag -r >/dev/null
  sleep 30
  sdiag | awk '/^Main schedule statistics/ {m = 1} m && /Mean cycle:/ {print $3; exit}'
}
# ROUNDS (3) alternating rounds of each; the figure is each one's median, as
# one 30 s window holds few cycles and varies with the machine's load.
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
plains=() gangs=()
for _ in $(seq 1 "${ROUNDS:-3}"); do
  plains+=("$( (cycle select/cons_tres) )")
  gangs+=("$( (cycle select/cons_tres_gang) )")
done
plain=$(printf '%s\n' "${plains[@]}" | median)
gang=$(printf '%s\n' "${gangs[@]}" | median)
echo "Slurm $(slurm_under_test): main scheduler mean cycle with $n pending GPU jobs (median of ${#plains[@]} rounds: ${plains[*]} / ${gangs[*]}): cons_tres $plain us, cons_tres_gang $gang us; ratio $(awk -v a="$gang" -v b="$plain" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
