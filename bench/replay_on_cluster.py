#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs a generated workload on the real test cluster and writes what sacct
--parsable2 -X would print for it (the test cluster keeps no accounting
database, so the jobs' records are read from slurmctld with `scontrol show
job -o` while MinJobAge keeps them).

usage: replay_on_cluster.py JOBS SEED OUT.txt [--short]

The workload: JOBS jobs on the test cluster's 4 nodes x 4 CPUs x 4 GPUs,
mixed sizes (1-2 CPU jobs, 2-node CPU jobs, 1, 2 and 4-GPU jobs), run times
5-45 s (3-20 s with --short) under time limits of 1-3 minutes, from three
accounts, Poisson arrivals at about 90% of the cluster's CPUs. Needs
SLURM_CONF in the environment."""
import random
import subprocess
import sys
import time

jobs, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
short = "--short" in sys.argv[4:]
rng = random.Random(seed)
lo, hi = (3, 20) if short else (5, 45)

# (weight, nodes, cpus per node, gpus per node)
kinds = [(30, 1, 1, 0), (10, 1, 2, 0), (5, 2, 2, 0), (30, 1, 1, 1), (15, 1, 2, 2), (10, 1, 4, 4)]
plan, t = [], 0.0
mean_cpu_seconds = sum(w * n * c for w, n, c, _ in kinds) / sum(w for w, *_ in kinds) * (lo + hi) / 2
gap = mean_cpu_seconds / (16 * 0.9)
for i in range(jobs):
    _, nodes, cpus, gpus = rng.choices(kinds, weights=[k[0] for k in kinds])[0]
    run = rng.randint(lo, hi)
    limit = max(1, -(-int(run * rng.uniform(1.2, 3.0)) // 60))
    plan.append((t, nodes, cpus, gpus, run, limit, rng.choice(["lab-a", "lab-b", "lab-c"])))
    t += rng.expovariate(1 / gap)

records = {}


def collect():
    text = subprocess.run(["scontrol", "show", "job", "-o"], capture_output=True, text=True).stdout
    for line in text.splitlines():
        f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if f.get("JobName", "").startswith("replay-"):
            records[f["JobId"]] = f


t0 = time.monotonic()
last = 0
ids = []
for at, nodes, cpus, gpus, run, limit, account in plan:
    while time.monotonic() - t0 < at:
        time.sleep(min(0.2, at - (time.monotonic() - t0)))
    cmd = ["sbatch", "--parsable", "-o", "/dev/null", "-J", "replay-%d" % len(ids), "-A", account,
           "-N", str(nodes), "-n", str(nodes), "-c", str(cpus), "--mem=%dM" % (cpus * 400), "-t", str(limit)]
    if gpus:
        cmd.append("--gpus-per-node=%d" % gpus)
    cmd += ["--wrap", "sleep %d" % run]
    ids.append(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().split(";")[0])
    if time.monotonic() - last > 20:
        collect()
        last = time.monotonic()
while True:
    collect()
    if all(records.get(i, {}).get("JobState") in ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED") for i in ids):
        break
    time.sleep(2)

with open(out, "w") as o:
    o.write("JobID|JobName|Account|User|Submit|Start|End|Timelimit|NNodes|NCPUS|AllocTRES|State|NodeList\n")
    for i in ids:
        f = records[i]
        tres = f.get("TRES", "")
        # The TRES slurmctld reports leave GPUs out unless AccountingStorageTRES names them.
        per_node = f.get("TresPerNode", "")
        if per_node.startswith("gres:gpu:") and "gres/gpu" not in tres:
            tres += ",gres/gpu=%d" % (int(per_node.rsplit(":", 1)[1]) * int(f["NumNodes"]))
        o.write("|".join([i, f["JobName"], f["Account"], f["UserId"].split("(")[0], f["SubmitTime"],
                          f["StartTime"], f["EndTime"], f["TimeLimit"], f["NumNodes"], f["NumCPUs"],
                          tres, f["JobState"], f.get("NodeList", "")]) + "\n")
print("%d jobs ran on the cluster in %.0f s" % (len(ids), time.monotonic() - t0))
