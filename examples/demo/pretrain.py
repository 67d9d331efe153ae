#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The demo's second study: a model trained from scratch, where the search
keeps finding better settings (a valley in learning rate, depth and dropout
that random search descends slowly). Its best keeps improving, so sched/tune
keeps its priority, and it gets the GPUs the converged study yields.

Runs TRIAL_SECONDS (default 4) on the GPUs it was given, reporting each second.
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "client", "python"))
import tune_report as tune  # noqa: E402

p = tune.params()
lr, depth, dropout = float(p["lr"]), int(p["depth"]), float(p["dropout"])
seconds = float(os.environ.get("TRIAL_SECONDS", "4"))
loss = 0.25 + (math.log10(lr) + 3.2) ** 2 + 0.02 * (depth - 9) ** 2 + 2 * (dropout - 0.15) ** 2
print("pretrain: lr=%g depth=%d dropout=%g on GPUs %s" % (lr, depth, dropout, os.environ.get("CUDA_VISIBLE_DEVICES", "none")),
      flush=True)
for step in range(1, int(seconds) + 1):
    time.sleep(1)
    tune.report(step=step, val_loss=loss + 1.0 / step)
tune.objective(loss)
