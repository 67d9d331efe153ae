#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A trial served from a recorded training table (data/workloads/*.json,
made by data/workloads/make_tables.py): the grid point nearest to the
trial's lr (in log10) and momentum, one of its recorded seeds (the
trial's TUNE_TRIAL_ID picks it, so reruns differ as training runs do),
reported epoch by epoch ("step=E accuracy=A") and the last epoch's accuracy
as the objective. Each epoch sleeps TABLE_EPOCH seconds (default: the
recorded time of that epoch times TABLE_TIME_SCALE, default 1).
  TUNE_PARAM_lr=0.01 TUNE_PARAM_momentum=0.9 table_curve.py data/workloads/digits-mlp32.json"""
import json
import math
import os
import sys
import time
import zlib

if len(sys.argv) != 2:
    sys.exit("usage: table_curve.py TABLE.json (a table of data/workloads)")
try:
    with open(sys.argv[1]) as f:
        table = json.load(f)
    points = table["points"]
except (OSError, ValueError, KeyError) as e:
    sys.exit("table_curve.py: cannot read the table %s: %s (make it with data/workloads/make_tables.py)"
             % (sys.argv[1], e))
lr = float(os.environ["TUNE_PARAM_lr"])
momentum = float(os.environ["TUNE_PARAM_momentum"])
point = min(points, key=lambda p: (math.log10(p["lr"]) - math.log10(lr)) ** 2 + ((p["momentum"] - momentum) / 0.3) ** 2)
trial = os.environ.get("TUNE_TRIAL_ID", "0")
run = point["runs"][zlib.crc32(trial.encode()) % len(point["runs"])]
fixed = os.environ.get("TABLE_EPOCH")
scale = float(os.environ.get("TABLE_TIME_SCALE", "1"))
fd = int(os.environ.get("TUNE_REPORT_FD", "1"))
for e, (acc, secs) in enumerate(zip(run["accuracy"], run["seconds"]), 1):
    time.sleep(float(fixed) if fixed else secs * scale)
    os.write(fd, f"step={e} accuracy={acc:.5f}\n".encode())
os.write(fd, f"objective={run['accuracy'][-1]:.5f}\n".encode())
