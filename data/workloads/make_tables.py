#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Makes the real-training workloads in this directory: learning curves of
scikit-learn models, and of one PyTorch model, trained with SGD (learning
rate, momentum) on datasets that Debian's python3-sklearn ships (no
download), over a grid of the two parameters, several initialisation seeds
per point.

Each table <name>.json holds, per grid point and seed, the held-out accuracy
after each epoch and the measured seconds of each epoch: a tabular benchmark
(as HPOBench and LCBench are), so that a study can be run and replayed
without training again. bench/programs/table_curve.py serves a trial from
it; the accuracies are real ones, discrete in steps of 1/test examples.

  /usr/bin/python3 data/workloads/make_tables.py [NAME ...]   (about 10 minutes)

Made 2026-11-28 with scikit-learn 1.2.1 (Debian 12) on the project's test
machine; the seeds fix the split and the initialisation, so the same
scikit-learn makes the same accuracies (the times are this machine's).
"""
import json
import math
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

LRS = [10 ** e for e in (-4, -3.5, -3, -2.5, -2, -1.5, -1, -0.5)]
MOMENTA = [0.0, 0.5, 0.8, 0.9, 0.95, 0.99]
SEEDS = [1, 2, 3]

# name: (dataset, hidden layer sizes, epochs, batch size, what it is)
WORKLOADS = {
    "digits-mlp32": (load_digits, (32,), 20, 32, "8x8 digits, one hidden layer of 32: reaches 0.97"),
    "digits-mlp4": (load_digits, (4,), 20, 32, "8x8 digits, one hidden layer of 4: capacity caps it below 0.97"),
    "cancer-mlp16": (load_breast_cancer, (16,), 20, 16, "breast cancer (Wisconsin), one hidden layer of 16"),
    "wine-mlp2": (load_wine, (2,), 20, 8, "wine, one hidden layer of 2: few test examples, coarse steps"),
    # Not named *-mlp*: the scheduling benchmarks take those four by that glob.
    "digits-torch32": (load_digits, (32,), 20, 32, "8x8 digits, a PyTorch MLP with one hidden layer of 32"),
}
TORCH = {"digits-torch32"}


def curve(load, hidden, epochs, batch, lr, momentum, seed):
    x, y = load(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.3, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(xtr)
    xtr, xte = scaler.transform(xtr), scaler.transform(xte)
    model = MLPClassifier(hidden_layer_sizes=hidden, solver="sgd", learning_rate_init=lr, momentum=momentum,
                          nesterovs_momentum=False, batch_size=batch, random_state=seed)
    classes = np.unique(y)
    acc, secs = [], []
    for _ in range(epochs):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # a diverging rate: its accuracy says so
            try:
                model.partial_fit(xtr, ytr, classes=classes)
                a = float(model.score(xte, yte))
            except (ValueError, FloatingPointError):
                a = float(np.mean(yte == np.bincount(ytr).argmax()))  # diverged: the majority class
        secs.append(round(time.perf_counter() - t0, 4))
        acc.append(round(a if math.isfinite(a) else 0.0, 5))
    return acc, secs, len(yte)


def torch_curve(load, hidden, epochs, batch, lr, momentum, seed):
    """The same training in PyTorch (python3-torch): an MLP of `hidden`
    ReLU units, SGD with momentum on minibatches of `batch`, the weights and
    the batch order drawn from the seed."""
    import torch
    torch.set_num_threads(1)
    x, y = load(return_X_y=True)
    xtr, xte, ytr, yte = train_test_split(x, y, test_size=0.3, random_state=seed, stratify=y)
    scaler = StandardScaler().fit(xtr)
    xtr, xte = (torch.tensor(scaler.transform(v), dtype=torch.float32) for v in (xtr, xte))
    ytr, yte = torch.tensor(ytr), torch.tensor(yte)
    torch.manual_seed(seed)
    layers, width = [], xtr.shape[1]
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    model = torch.nn.Sequential(*layers, torch.nn.Linear(width, int(ytr.max()) + 1))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    loss_fn = torch.nn.CrossEntropyLoss()
    order_rng = torch.Generator().manual_seed(seed)
    acc, secs = [], []
    for _ in range(epochs):
        t0 = time.perf_counter()
        model.train()
        order = torch.randperm(len(xtr), generator=order_rng)
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            opt.zero_grad()
            loss_fn(model(xtr[idx]), ytr[idx]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            a = float((model(xte).argmax(1) == yte).float().mean())  # a diverged network's guesses count as they fall
        secs.append(round(time.perf_counter() - t0, 4))
        acc.append(round(a if math.isfinite(a) else 0.0, 5))
    return acc, secs, len(yte)


def main(names):
    for name in names or WORKLOADS:
        load, hidden, epochs, batch, what = WORKLOADS[name]
        points = []
        for lr in LRS:
            for m in MOMENTA:
                runs = []
                for s in SEEDS:
                    acc, secs, n_test = (torch_curve if name in TORCH else curve)(load, hidden, epochs, batch, lr,
                                                                                   m, s)
                    runs.append({"seed": s, "accuracy": acc, "seconds": secs})
                points.append({"lr": lr, "momentum": m, "runs": runs})
        best = max(max(r["accuracy"]) for p in points for r in p["runs"])
        model = "torch.nn MLP (SGD, hidden=%s, batch=%d)" if name in TORCH else "MLPClassifier(sgd, hidden=%s, batch=%d)"
        table = {"name": name, "what": what, "model": model % (list(hidden), batch),
                 "test_examples": n_test, "epochs": epochs, "best": best, "points": points}
        with open(name + ".json", "w") as f:
            json.dump(table, f, separators=(",", ":"))
        print("%s: %d points x %d seeds, best held-out accuracy %.4f" % (name, len(points), len(SEEDS), best),
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
