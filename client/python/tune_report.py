# SPDX-License-Identifier: GPL-2.0-or-later
"""Talk to tune from a trial program (pure Python, no dependencies).

    import tune_report as tune
    p = tune.params()                 # {"lr": 0.01, "layers": 3, ...}
    for epoch in range(10):
        ...
        tune.report(step=epoch, loss=loss, accuracy=acc)
    tune.objective(acc)               # the trial's result; the last one counts

Checkpoints: tune.checkpoint_dir() is the trial's own directory, kept when
the trial is interrupted (a signal, a requeue, a yield, a lost node) and
given back when it runs again; tune.restored() says whether this attempt
found something there to continue from. A trial that continues another's
training (--algo pbt) finds that trial's checkpoint there, and
tune.step_limit() is the last step it should train to.

Lines go to the file descriptor named in TUNE_REPORT_FD as `key=value`
pairs (see tune(1), TRIAL CONTRACT); a trial started on several nodes with
srun (trial jobs, --nodes-per-trial) appends them to the file named in
TUNE_REPORT_FILE instead. Outside tune the lines go to stderr, so the
program still runs by hand.
"""

import json
import math
import os
import re
import sys

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,63}\Z")
_stream = None


def _out():
    global _stream
    if _stream is None:
        fd = os.environ.get("TUNE_REPORT_FD")
        path = os.environ.get("TUNE_REPORT_FILE")
        if fd:
            _stream = os.fdopen(int(fd), "w", buffering=1, closefd=False)
        elif path:
            _stream = open(path, "a", buffering=1)
        else:
            _stream = sys.stderr
    return _stream


def _number(value):
    v = float(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def params():
    """The trial's parameters: from TUNE_PARAMS_FILE, else TUNE_PARAM_* variables."""
    path = os.environ.get("TUNE_PARAMS_FILE")
    if path:
        with open(path) as f:
            return json.load(f)
    return {k[len("TUNE_PARAM_"):]: v for k, v in os.environ.items() if k.startswith("TUNE_PARAM_")}


def report(step=None, **metrics):
    """An intermediate report: step (a whole number >= 0) and named metrics."""
    parts = []
    if step is not None:
        if int(step) != step or step < 0:
            raise ValueError("step must be a whole number >= 0, got %r" % (step,))
        parts.append("step=%d" % int(step))
    for key, value in metrics.items():
        if not _KEY.match(key) or key in ("step", "objective"):
            raise ValueError("bad metric name %r" % (key,))
        parts.append("%s=%s" % (key, _number(value)))
    if parts:
        _out().write(" ".join(parts) + "\n")


def objective(value):
    """The trial's result, the number tune optimises. NaN marks the trial invalid."""
    _out().write("objective=%s\n" % _number(value))


def checkpoint_dir():
    """The trial's checkpoint directory (TUNE_CHECKPOINT_DIR), created on the
    first call, kept across interruptions and removed once the trial has
    finished; None outside tune."""
    path = os.environ.get("TUNE_CHECKPOINT_DIR") or None
    if path:
        os.makedirs(path, exist_ok=True)
    return path


def restored():
    """True when this attempt of the trial found checkpoints in
    checkpoint_dir(): an earlier, interrupted attempt's, or those of the
    trial it continues (--algo pbt)."""
    return os.environ.get("TUNE_CHECKPOINT_RESTORED") == "1"


def step_limit(default=None):
    """The last step this trial should train to (TUNE_STEP_LIMIT: a segment
    of population-based training), else `default`. tune ends a trial that
    reports a step beyond it; one that stops there itself ends as ok, with
    its objective."""
    value = os.environ.get("TUNE_STEP_LIMIT")
    return int(value) if value else default
