#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A synthetic training run for the Table 4 benchmark: "accuracy" follows a
learning curve over 5 epochs whose ceiling depends on lr and momentum (best
near lr=1e-2, momentum=0.9); each epoch is a sleep of CURVE_EPOCH seconds.
CURVE_CEILING caps the accuracy: a study that plateaus below its target."""
import math
import os
import time

lr = float(os.environ["TUNE_PARAM_lr"])
momentum = float(os.environ["TUNE_PARAM_momentum"])
quality = math.exp(-((math.log10(lr) + 2) ** 2) / 2 - (momentum - 0.9) ** 2 / 0.08)
epoch = float(os.environ.get("CURVE_EPOCH", "0.6"))
fd = int(os.environ.get("TUNE_REPORT_FD", "1"))
acc = 0.0
for e in range(1, 6):
    time.sleep(epoch)
    acc = min(0.5 + 0.49 * quality * (1 - math.exp(-e / 1.5)), float(os.environ.get("CURVE_CEILING", "1")))
    os.write(fd, f"step={e} accuracy={acc:.5f}\n".encode())
os.write(fd, f"objective={acc:.5f}\n".encode())
