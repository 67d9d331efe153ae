#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The paired statistic for a `tune simulate --replicates N` run with
studies: every policy against BASELINE on each replicate's mean time to
target (the "TTT BY REPLICATE" lines; the replicates share their arrivals
across policies, so they pair), with the two-sided Wilcoxon signed-rank p
(bench/search_stats.py) and, given ORACLE, each policy's share of the
oracle's gain over the baseline, replicate by replicate (median [min, max]).
  tune simulate ... --replicates 10 | bench/simulate_paired.py BASELINE [ORACLE]
e.g. multifactor+cons_tres/trials multifactor+evidence-oracle+cons_tres/trials"""
import math
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_stats import signed_rank_p  # noqa: E402

if len(sys.argv) not in (2, 3):
    sys.exit("usage: simulate_paired.py BASELINE [ORACLE] < tune simulate output (policy labels as it prints them)")
base, oracle = sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None
ttt, on = {}, False
for line in sys.stdin:
    if line.startswith("TTT BY REPLICATE"):
        on = True
        continue
    if on:
        x = line.split()
        try:
            ttt[x[0]] = [float(v) for v in x[1:]]  # "LABEL s1 s2 ..." ("nan" parses)
        except (IndexError, ValueError):
            on = False  # the section's end
for need in filter(None, (base, oracle)):
    if need not in ttt:
        sys.exit("simulate_paired.py: no 'TTT BY REPLICATE' line for %s (have: %s)" % (need, ", ".join(ttt) or "none"))
b = ttt[base]
print("%-50s %10s %8s %8s  %s" % ("policy", "mean TTT", "ratio", "p", "share of %s's gain" % oracle if oracle else ""))
for p, v in ttt.items():
    pairs = [(x, y) for x, y in zip(b, v) if not (math.isnan(x) or math.isnan(y))]
    if not pairs:
        continue
    mean = st.mean(y for _, y in pairs)
    ratio = mean / st.mean(x for x, _ in pairs)
    pv = signed_rank_p([y - x for x, y in pairs]) if p != base else float("nan")
    share = ""
    if oracle and p not in (base,):
        s = [(x - y) / (x - o) for x, y, o in zip(b, v, ttt[oracle])
             if not any(math.isnan(z) for z in (x, y, o)) and x > o]  # only where the oracle gained
        if s:
            share = "%.2f [%.2f, %.2f]" % (st.median(s), min(s), max(s))
    print("%-50s %9.1fm %8.2f %8.3f  %s" % (p, mean / 60, ratio, pv, share))
