#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small PyTorch network on scikit-learn's bundled digits data (8x8
images, 1797 samples; nothing is downloaded). tune chooses the learning rate,
momentum, batch size, hidden width and weight decay; the objective is the
validation accuracy, reported every epoch. The model is checkpointed after
every epoch in the trial's checkpoint directory: a trial interrupted (a
yield, a requeue, a time limit) and run again continues at the next epoch.

Runs by hand too:  TUNE_PARAM_lr=0.1 TUNE_PARAM_momentum=0.9 ... ./train.py
"""

import os

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import tune_report as tune

p = tune.params()
lr = float(p.get("lr", 0.05))
momentum = float(p.get("momentum", 0.9))
batch_size = int(p.get("batch_size", 32))
hidden = int(p.get("hidden", 64))
weight_decay = float(p.get("weight_decay", 1e-4))
epochs = int(os.environ.get("DIGITS_EPOCHS", "20"))

torch.manual_seed(0)
torch.set_num_threads(1)  # one core per trial: runners share the node
X, y = load_digits(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(
    X / 16.0, y, test_size=0.25, random_state=0, stratify=y)
X_train = torch.tensor(X_train, dtype=torch.float32)
y_train = torch.tensor(y_train)
X_val = torch.tensor(X_val, dtype=torch.float32)
y_val = torch.tensor(y_val)

model = torch.nn.Sequential(
    torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
loss_fn = torch.nn.CrossEntropyLoss()

best = 0.0
first = 1
ckpt_dir = tune.checkpoint_dir()
ckpt = os.path.join(ckpt_dir, "state.pt") if ckpt_dir else None
if ckpt and tune.restored() and os.path.exists(ckpt):
    state = torch.load(ckpt)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    torch.set_rng_state(state["rng"])
    best, first = state["best"], state["epoch"] + 1
    print("restored from %s: continuing at epoch %d" % (ckpt, first), flush=True)
for epoch in range(first, epochs + 1):
    model.train()
    order = torch.randperm(len(X_train))
    total = 0.0
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        opt.zero_grad()
        loss = loss_fn(model(X_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
        total += float(loss) * len(idx)
    model.eval()
    with torch.no_grad():
        accuracy = float((model(X_val).argmax(1) == y_val).float().mean())
    train_loss = total / len(X_train)
    if not np.isfinite(train_loss):
        break  # diverged: the last report says so, the objective stays the best seen
    best = max(best, accuracy)
    print("epoch %d" % epoch, flush=True)
    tune.report(step=epoch, loss=train_loss, val_accuracy=accuracy)
    if ckpt:  # written whole, then renamed: an interruption never leaves half a checkpoint
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "rng": torch.get_rng_state(),
                    "best": best, "epoch": epoch}, ckpt + ".tmp")
        os.replace(ckpt + ".tmp", ckpt)
tune.objective(best)
