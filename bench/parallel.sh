#!/usr/bin/env bash
# Parallel efficiency: 64 trials of a fixed 1 s sleep with 1, 2, 4 and 8
# runners. Baseline in the same run: the 1-runner time. Figure: speedup over
# 1 runner and speedup / runners (the source design measured 5.0x at 8).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tune=$top/driver/tune
n=${TRIALS:-64}
# In the build tree, like a study directory (this machine's /tmp is slow).
work=$(mktemp -d -p "$top/bench" run.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp
echo '{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}' >space.json
declare -A took
for r in 1 2 4 8; do
  t0=$(date +%s%N)
  mpirun --oversubscribe -np $((r + 1)) "$tune" run --history p$r.h5 --space space.json --trials "$n" --seed 1 \
    -q --shell -- 'sleep 1; echo objective=1 >&$TUNE_REPORT_FD' >/dev/null
  took[$r]=$(( ($(date +%s%N) - t0) / 1000000 ))
done
for r in 1 2 4 8; do
  awk -v r=$r -v t="${took[$r]}" -v b="${took[1]}" -v n="$n" 'BEGIN {
    printf "parallel: %d trials of sleep 1, %d runner(s): %.2f s, speedup %.2fx, efficiency %.3f (baseline: 1 runner, %.2f s)\n",
      n, r, t / 1000, b / t, b / t / r, b / 1000 }'
done
