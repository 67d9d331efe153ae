#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Sums up the priority terms bench/table4_trial_jobs.sh kept with SPRIO_LOG:
for each file (one run of one policy), over the samples in which a study
that plateaus (PLATEAU accounts) and one that reaches its target both had
trial jobs pending:
  next   the share of those samples in which the job slurmctld starts next
         (the highest priority) was a plateaued study's;
  below  of the samples in which a yielding job (SITE < 0) and a job without
         a SITE term both wait, the share in which every yielding job is
         below every such job ("-": no such sample; n such samples);
  and per group (plateaued, improving) the mean of each weighted term:
         priority, age, fairshare, partition, site (SITE), nice.
  sprio_terms.py --plateau lab2,lab4 FILE...
"""
import argparse
import collections
import statistics

p = argparse.ArgumentParser()
p.add_argument("--plateau", default="lab2,lab4", help="accounts of the studies that plateau")
p.add_argument("files", nargs="+")
a = p.parse_args()
plateau = set(a.plateau.split(","))
terms = ["priority", "age", "fairshare", "partition", "site", "nice"]
print("%-60s %7s %6s %14s  %s" % ("file", "samples", "next", "below (n)", "  ".join("%s (plateau/improving)" % t for t in terms)))
for f in a.files:
    samples = collections.defaultdict(list)
    for line in open(f):
        x = line.split()
        if len(x) != 9:
            continue
        try:
            samples[x[0]].append((x[2], [float(v) for v in x[3:]]))
        except ValueError:
            continue
    mixed = [s for s in samples.values() if {v[4] < 0 for _, v in s} == {True, False}]
    kept = sum(1 for s in mixed if max(v[0] for _, v in s if v[4] < 0) < min(v[0] for _, v in s if v[4] >= 0))
    below = "%.2f (%d)" % (kept / len(mixed), len(mixed)) if mixed else "-"
    both = [s for s in samples.values() if {acc in plateau for acc, _ in s} == {True, False}]
    if not both:
        print("%-60s %7d      - %14s" % (f, 0, below))
        continue
    nxt = sum(1 for s in both if max(s, key=lambda j: j[1][0])[0] in plateau) / len(both)
    means = []
    for i in range(len(terms)):
        g = [statistics.mean(v[i] for s in both for acc, v in s if (acc in plateau) == want) for want in (True, False)]
        means.append("%.0f/%.0f" % tuple(g))
    print("%-60s %7d %6.2f %14s  %s" % (f.split("/")[-1], len(both), nxt, below, "  ".join("%22s" % m for m in means)))
