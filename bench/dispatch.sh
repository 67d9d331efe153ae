#!/usr/bin/env bash
# Dispatch: 2,000 trials of `true` on 8 runners (mpirun -np 9 on this host).
# Figures: trials per second, and the median gap between a trial's end and the
# next start on the same rank. Baseline in the same run: the same 2,000 `true`
# processes started by `xargs -P 8` (a process pool with no search, no MPI and
# no history). `true` reports no objective, so every trial is recorded as
# invalid: --max-failures 0 keeps the study going.
source "$(dirname "$0")/bench_env.sh"
n=${TRIALS:-2000}

t0=$(date +%s%N)
seq "$n" | xargs -P 8 -n 1 true
base_s=$(( $(date +%s%N) - t0 ))

t0=$(date +%s%N)
mpirun --oversubscribe -np 9 "$tune" run --history d.h5 --space space.json --trials "$n" --seed 1 \
  --max-failures 0 -q -- true >/dev/null
tune_s=$(( $(date +%s%N) - t0 ))

"$tune" export d.h5 --csv | /usr/bin/python3 -c "
import csv, statistics, sys
rows = list(csv.DictReader(sys.stdin))
by_rank = {}
for r in rows:
    by_rank.setdefault(r['rank'], []).append((float(r['start_time']), float(r['end_time'])))
gaps = []
for spans in by_rank.values():
    spans.sort()
    gaps += [b[0] - a[1] for a, b in zip(spans, spans[1:])]
n = len(rows)
tune_s, base_s = $tune_s / 1e9, $base_s / 1e9
print('dispatch: %d trials of true on 8 runners in %.2f s = %.0f trials/s (whole run, MPI start included)' % (n, tune_s, n / tune_s))
span = max(e for v in by_rank.values() for s, e in v) - min(s for v in by_rank.values() for s, e in v)
print('dispatch: steady state (first start to last end): %.2f s = %.0f trials/s' % (span, n / span))
print('dispatch: median gap end -> next start on a rank: %.2f ms (p90 %.2f ms)' % (1e3 * statistics.median(gaps), 1e3 * statistics.quantiles(gaps, n=10)[-1]))
print('baseline: xargs -P 8 true x %d in %.2f s = %.0f processes/s' % (n, base_s, n / base_s))
print('ratio: tune / xargs throughput = %.2f' % ((n / tune_s) / (n / base_s)))
"
