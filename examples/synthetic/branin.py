#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A trial program with a known optimum: the Branin function, minimised.

Its minimum, 0.397887, lies at (-pi, 12.275), (pi, 2.275) and (9.42478, 2.475).
It "trains" for a few steps so that tune sees intermediate reports; set
BRANIN_SLEEP to make each step take that many seconds.
"""

import math
import os
import time

import tune_report as tune

p = tune.params()
x1, x2 = float(p["x1"]), float(p["x2"])
value = (x2 - 5.1 / (4 * math.pi ** 2) * x1 ** 2 + 5 / math.pi * x1 - 6) ** 2 \
    + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x1) + 10
steps = 5
for step in range(1, steps + 1):
    time.sleep(float(os.environ.get("BRANIN_SLEEP", "0")))
    # A learning curve that approaches the true value.
    tune.report(step=step, loss=value + (steps - step) * 2.0)
tune.objective(value)
