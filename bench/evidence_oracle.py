#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The evidence oracle on a live cluster (bench/table4_trial_jobs.sh): it
knows from the workload which studies plateau and at what value (curve.py's
CURVE_CEILING), and lowers such a study's pending jobs to --nice NICE from
the moment its progress record (the job Comment that sched/tune and
site_factor/tune read) holds its ceiling twice: the second result at the
ceiling, the earliest its plateau shows in what a study reports. Jobs it
submits later are lowered as they appear (one look every INTERVAL s; a trial
job that starts within that window of its submission runs unlowered).

  evidence_oracle.py --nice N [--interval S] ACCOUNT=CEILING ...

Runs until no job is left in the queue; prints "ACCOUNT lowered at N results
after S s" for each study it lowered."""
import argparse
import re
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--nice", type=int, required=True)
p.add_argument("--interval", type=float, default=0.25)
p.add_argument("studies", nargs="+", help="ACCOUNT=CEILING")
a = p.parse_args()
ceiling = {}
for s in a.studies:
    account, _, value = s.partition("=")
    ceiling[account] = float(value)
record = re.compile(r"tune:study=[^;]+;n=(\d+);dir=(min|max);top=([^;]+)")
lowered = {}
t0 = time.time()
seen_jobs = False
while True:
    out = subprocess.run(["squeue", "-h", "-o", "%i|%a|%t|%y|%k"], capture_output=True, text=True).stdout
    lines = [l.split("|", 4) for l in out.splitlines() if l.count("|") >= 4]
    if not lines and seen_jobs:
        break
    seen_jobs = seen_jobs or bool(lines)
    for job, account, state, nice, comment in lines:
        if account in ceiling and account not in lowered:
            m = record.search(comment)
            if m:
                top = [float(v) for v in m.group(3).split(",")]
                if sum(1 for v in top if abs(v - ceiling[account]) <= 1e-9) >= 2:
                    lowered[account] = int(m.group(1))
                    print("%s lowered at %s results after %.1f s" % (account, m.group(1), time.time() - t0),
                          flush=True)
    for job, account, state, nice, comment in lines:
        if account in lowered and state == "PD" and nice.lstrip("-").isdigit() and int(nice) < a.nice:
            subprocess.run(["scontrol", "update", "jobid=" + job, "nice=%d" % a.nice],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(a.interval)
