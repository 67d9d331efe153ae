#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Parallel efficiency: 64 trials of a fixed 1 s sleep with 1, 2, 4 and 8
# runners. Baseline in the same run: the 1-runner time. Figures: speedup over
# 1 runner and speedup / runners (the source design measured 5.0x at 8), for
# the whole run (mpirun start included) and for the study span in the history
# (first trial start to last trial end).
source "$(dirname "$0")/bench_env.sh"
n=${TRIALS:-64}
declare -A took
for r in 1 2 4 8; do
  t0=$(date +%s%N)
  mpirun --oversubscribe -np $((r + 1)) "$tune" run --history p$r.h5 --space space.json --trials "$n" --seed 1 \
    -q --shell -- 'sleep 1; echo objective=1 >&$TUNE_REPORT_FD' >/dev/null
  took[$r]=$(( ($(date +%s%N) - t0) / 1000000 ))
done
span() {  # milliseconds from the first trial start to the last trial end
  "$tune" export "$1" --csv | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
    {a = $(c["start_time"]); b = $(c["end_time"]); if (!s || a < s) s = a; if (b > e) e = b}
    END {printf "%.0f", (e - s) * 1000}'
}
for r in 1 2 4 8; do
  awk -v r=$r -v t="${took[$r]}" -v b="${took[1]}" -v st="$(span p$r.h5)" -v sb="$(span p1.h5)" -v n="$n" 'BEGIN {
    printf "parallel: %d trials of sleep 1, %d runner(s): whole run %.2f s, speedup %.2fx (efficiency %.3f); study span %.2f s, speedup %.2fx (efficiency %.3f); baseline 1 runner: %.2f s run, %.2f s span\n",
      n, r, t / 1000, b / t, b / t / r, st / 1000, sb / st, sb / st / r, b / 1000, sb / 1000 }'
done
