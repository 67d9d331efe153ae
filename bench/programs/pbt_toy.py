#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The toy problem of population-based training (Jaderberg et al. 2017,
section 4.1) as a tune trial: maximise Q(theta) = 1.2 - (theta0^2 + theta1^2)
by gradient ascent on the surrogate Q^(theta|h) = 1.2 - (h0 theta0^2 +
h1 theta1^2), the hyperparameters h0 and h1 in [0, 1] (TUNE_PARAM_h0,
TUNE_PARAM_h1), from theta = (0.9, 0.9), step size TOY_ETA (default 0.02),
TOY_STEPS steps (default 40). Each step it updates theta, reports
"step=K q=Q", then checkpoints theta (checkpoint.json in
TUNE_CHECKPOINT_DIR); a trial that finds a checkpoint continues from it, and
it stops at TUNE_STEP_LIMIT when given (unless TOY_IGNORE_LIMIT=1: then
tune ends it there; each step past the limit then takes 0.2 s, as a
training step would, so that tune's stop reaches it before it is done).
The objective is Q at the end. Space: pbt_toy.json.
  TUNE_PARAM_h0=1 TUNE_PARAM_h1=0.5 pbt_toy.py"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "client", "python"))
import tune_report as tune  # noqa: E402

h = [float(os.environ.get("TUNE_PARAM_h0", "1")), float(os.environ.get("TUNE_PARAM_h1", "1"))]
eta = float(os.environ.get("TOY_ETA", "0.02"))
steps = int(os.environ.get("TOY_STEPS", "40"))
theta, step = [0.9, 0.9], 0
ckpt_dir = tune.checkpoint_dir()
ckpt = os.path.join(ckpt_dir, "checkpoint.json") if ckpt_dir else None
if ckpt and tune.restored() and os.path.exists(ckpt):
    with open(ckpt) as f:
        state = json.load(f)
    theta, step = state["theta"], state["step"]


def q(t):
    return 1.2 - (t[0] ** 2 + t[1] ** 2)


limit = tune.step_limit(steps)
last = steps if os.environ.get("TOY_IGNORE_LIMIT") == "1" else min(steps, limit)
for step in range(step + 1, last + 1):
    if step > limit:
        time.sleep(0.2)
    theta = [theta[i] - eta * 2 * h[i] * theta[i] for i in range(2)]
    tune.report(step=step, q=q(theta))
    if ckpt:
        with open(ckpt + ".tmp", "w") as f:
            json.dump({"theta": theta, "step": step}, f)
        os.replace(ckpt + ".tmp", ckpt)
tune.objective(q(theta))
