#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The demo's first study: fine-tuning a pretrained model, where the
settings hardly matter any more. Its validation loss sits near 0.213
whatever the learning rate and warm-up, so the study's best stops improving
after a few trials: sched/tune sees it converge and lets it yield.

Runs TRIAL_SECONDS (default 4) on the GPUs it was given, reporting each
second; the loss is a function of the parameters plus a little noise fixed by
the trial's values (no randomness between runs of the same trial).
"""
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "client", "python"))
import tune_report as tune  # noqa: E402

p = tune.params()
lr, warmup = float(p["lr"]), int(p["warmup"])
seconds = float(os.environ.get("TRIAL_SECONDS", "4"))
digest = hashlib.sha256(("%r %r" % (lr, warmup)).encode()).digest()
noise = (digest[0] / 255.0 - 0.5) * 0.0008
loss = 0.213 + 0.0004 * abs(lr - 3e-5) / 1e-4 + noise
print("finetune: lr=%g warmup=%d on GPUs %s" % (lr, warmup, os.environ.get("CUDA_VISIBLE_DEVICES", "none")), flush=True)
for step in range(1, int(seconds) + 1):
    time.sleep(1)
    tune.report(step=step, val_loss=loss + 0.05 / step)
tune.objective(loss)
