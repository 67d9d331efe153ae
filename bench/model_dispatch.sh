#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runners held up by the model: 300 trials of a 0.1 s program (a 5-d sphere
# read from TUNE_PARAM_*) on 8 runners with --algo bayes, whose proposals cost
# tens of milliseconds once the model fits. Baseline in the same run: the same
# study with --algo random (proposals cost microseconds). Figures: the median
# and p90 gap between a trial's end and the next start on the same rank,
# trials per second over the study span, and how many trials tpe proposed
# while bayes was busy proposing for another runner (Study::offer_trial).
source "$(dirname "$0")/bench_env.sh"
n=${TRIALS:-300}
cat >space5.json <<'JSON'
{"parameters": [{"name": "x1", "type": "bound", "value": [0, 1]}, {"name": "x2", "type": "bound", "value": [0, 1]},
 {"name": "x3", "type": "bound", "value": [0, 1]}, {"name": "x4", "type": "bound", "value": [0, 1]},
 {"name": "x5", "type": "bound", "value": [0, 1]}]}
JSON
cat >sphere5.sh <<'SH'
#!/bin/sh
sleep 0.1
awk -v a="$TUNE_PARAM_x1" -v b="$TUNE_PARAM_x2" -v c="$TUNE_PARAM_x3" -v d="$TUNE_PARAM_x4" -v e="$TUNE_PARAM_x5" \
  'BEGIN {print "objective=" (a-.3)^2 + (b-.3)^2 + (c-.3)^2 + (d-.3)^2 + (e-.3)^2}' >&"$TUNE_REPORT_FD"
SH
chmod +x sphere5.sh
for algo in random bayes; do
  mpirun --oversubscribe -np 9 "$tune" run --history $algo.h5 --space space5.json --trials "$n" --seed 1 --algo $algo \
    -- ./sphere5.sh >$algo.log
done
/usr/bin/python3 - "$tune" <<'PY'
import csv, io, re, statistics, subprocess, sys
def figures(algo):
    rows = list(csv.DictReader(io.StringIO(subprocess.run([sys.argv[1], "export", algo + ".h5", "--csv"], check=True,
                                                          capture_output=True, text=True).stdout)))
    by_rank = {}
    for r in rows:
        by_rank.setdefault(r["rank"], []).append((float(r["start_time"]), float(r["end_time"])))
    gaps = []
    for spans in by_rank.values():
        spans.sort()
        gaps += [b[0] - a[1] for a, b in zip(spans, spans[1:])]
    span = max(e for v in by_rank.values() for s, e in v) - min(s for v in by_rank.values() for s, e in v)
    log = open(algo + ".log").read()
    m = re.search(r"(\d+) of this run's trials were proposed by tpe", log)
    best = min(float(r["objective"]) for r in rows if r["objective"])
    return len(rows), 1e3 * statistics.median(gaps), 1e3 * statistics.quantiles(gaps, n=10)[-1], len(rows) / span, \
        int(m.group(1)) if m else 0, best
for algo in ("bayes", "random"):
    n, med, p90, rate, stood, best = figures(algo)
    print("model_dispatch: %-6s %d trials of 0.1 s on 8 runners: gap end -> next start median %.1f ms, p90 %.1f ms; "
          "%.1f trials/s; %d proposed by tpe while bayes was busy; best objective %.3g" % (algo, n, med, p90, rate, stood, best))
b, r = figures("bayes"), figures("random")
print("ratio: bayes / random median gap = %.2f, p90 gap = %.2f, throughput = %.2f" % (b[1] / r[1], b[2] / r[2], b[3] / r[3]))
PY
