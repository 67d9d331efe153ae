#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The summary of bench/table4_trial_jobs.sh's per-run rows (one workload,
search and study count): per policy the mean over runs, the ratio to the
baseline, the two-sided Wilcoxon signed-rank p over runs paired by run
number (same seeds), and each estimator's share of the oracles' gains with
its spread. Pieces of one benchmark run at different times join by their
rows:
  cat piece1.txt piece2.txt | grep ' heterogeneous  random 4 ' | bench/table4_summary.py multifactor"""
import math, sys, statistics as st
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_stats import signed_rank_p
if len(sys.argv) != 2:
    sys.exit("usage: table4_summary.py BASELINE < rows (e.g. fifo or multifactor)")
base = sys.argv[1]
rows = [l.split() for l in sys.stdin if len(l.split()) >= 10 and l.split()[3].isdigit()]
if not any(x[4] == base for x in rows):
    sys.exit("table4_summary.py: no row of the baseline '%s' in the input" % base)
by, low = {}, {}
for x in rows:  # by[p][r]: run r of policy p
    by.setdefault(x[4], {})[int(x[3])] = (float(x[5]), float(x[6]), float(x[7]))
    l = low.setdefault(x[4], [0, 0])
    l[0] += int(x[8]); l[1] += int(x[9])
w, a, n = rows[0][0], rows[0][1], rows[0][2]
# Mean over runs; "over targets reached" skips a run in which no study reached it.
mean = {p: [st.mean(v[i] for v in by[p].values() if not math.isnan(v[i]))
            if any(not math.isnan(v[i]) for v in by[p].values())
            else float("nan") for i in range(3)] for p in by}
b = mean[base]
# The oracles of this priority type: "oracle" or "multifactor+oracle".
prefix = "multifactor+" if base == "multifactor" else ""
evidence, oracle_ = prefix + "evidence", prefix + "oracle"
def runs(*policies):
    """The runs every one of `policies` has, each a tuple of their figures."""
    common = sorted(set.intersection(*(set(by[p]) for p in policies)))
    return [tuple(by[p][r] for p in policies) for r in common]
def share(p, oracle, i=1):
    """The policy's share of the oracle's gain over the baseline, run by run (median, min, max)."""
    # Only runs in which the oracle gained: otherwise there is no gain to share.
    s = [(x[i] - y[i]) / (x[i] - o[i]) for x, y, o in runs(base, p, oracle)
         if x[i] > o[i] and not any(math.isnan(v[i]) for v in (x, y, o))]
    return "%.2f (%.2f..%.2f)" % (st.median(s), min(s), max(s)) if s else "-"
lines = ["%-14s %-6s %-7s runs %d" % (w, a, n, len(by[base]))]
for p in by:
    m = mean[p]
    line = "  %-28s %6.1f / %6.1f / %6.1f" % (p, *m)
    if p != base:
        line += "   / %s %.2f %.2f %.2f" % (base, m[0] / b[0], m[1] / b[1], m[2] / b[2])
        # Paired by run (same seeds): Wilcoxon over the runs' differences over targets reached.
        d = [y[1] - x[1] for x, y in runs(base, p) if not (math.isnan(x[1]) or math.isnan(y[1]))]
        line += ", p %.3f" % signed_rank_p(d) if d else ""
    if ":" in p:
        if "study-fifo" in mean:
            f = mean["study-fifo"]
            line += ", / study-fifo %.2f %.2f" % (m[0] / f[0], m[1] / f[1])
        for oracle in (evidence, oracle_):
            if oracle in mean and mean[oracle][1] != b[1]:
                line += "; share of the %s gain over targets reached %s" % (
                    "evidence oracle's" if oracle == evidence else "oracle's", share(p, oracle))
        lw, fl = low[p]
        line += "; false lowerings %d/%d" % (fl, lw)
    if p == evidence and oracle_ in mean:
        line += "; share of the oracle's gain %s" % share(p, oracle_)
    lines.append(line)
print("\n".join(lines))
