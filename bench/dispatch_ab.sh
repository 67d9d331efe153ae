#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dispatch A/B: two builds of tune compared run by run, interleaved in one
# scratch directory, so both meet the same file-system state (see
# dispatch.sh: it moves the figures by 1.5x), each run with its own
# `xargs -P 8 true` baseline just before it.
#   bench/dispatch_ab.sh PAIRS TUNE_A TUNE_B     (e.g. 4 /tmp/tune.old driver/tune)
# Prints, per run: the build, trials/s and the ratio to xargs; then the
# medians of each build.
source "$(dirname "$0")/bench_env.sh"
if [[ $# -ne 3 || ! $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 PAIRS TUNE_A TUNE_B (two tune executables, PAIRS runs of each)" >&2
  exit 2
fi
pairs=$1
bins=("$(cd "$OLDPWD" && realpath "$2")" "$(cd "$OLDPWD" && realpath "$3")")
n=${TRIALS:-2000}
k=0
for p in $(seq 1 "$pairs"); do
  for b in 0 1; do
    k=$((k + 1))
    t0=$(date +%s%N); seq "$n" | xargs -P 8 -n 1 true; base=$(( $(date +%s%N) - t0 ))
    t0=$(date +%s%N)
    mpirun --oversubscribe -np 9 "${bins[$b]}" run --history "d$k.h5" --space space.json --trials "$n" --seed 1 \
      --max-failures 0 -q -- true >/dev/null
    t=$(( $(date +%s%N) - t0 ))
    echo "$b $n $t $base"
  done
done | /usr/bin/python3 -c "
import statistics, sys
names = sys.argv[1:]
runs = {0: [], 1: []}
for line in sys.stdin:
    b, n, t, base = map(int, line.split())
    rate, ratio = n / (t / 1e9), base / t
    runs[b].append((rate, ratio))
    print('%s: %.0f trials/s, ratio to xargs %.2f' % ('AB'[b], rate, ratio), flush=True)
for b in (0, 1):
    print('%s (%s): median %.0f trials/s, ratio %.2f over %d runs' % ('AB'[b], names[b],
          statistics.median(r for r, _ in runs[b]), statistics.median(q for _, q in runs[b]), len(runs[b])))
" "${bins[@]}"
