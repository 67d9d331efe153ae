#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A real PyTorch training as a tune trial, for the population-based
training benchmark (bench/pbt_bench.py --problem digits): a one-hidden-layer
MLP (64-32-10) on scikit-learn's bundled digits (1347 training and 450
validation images; nothing is downloaded), trained by minibatch SGD (batch
16) with the learning rate and momentum tune gives (TUNE_PARAM_lr,
TUNE_PARAM_momentum; space digits_sgd.json) for DIGITS_EPOCHS epochs
(default 30). Every epoch it reports "step=E val_loss=L" (the validation
cross-entropy) and checkpoints the model and the optimiser
(checkpoint.pt in TUNE_CHECKPOINT_DIR); a trial that finds a checkpoint
continues from it with its own learning rate and momentum, and it stops at
TUNE_STEP_LIMIT when given. The objective is the validation loss at the
end. A learning rate that diverges ends the trial with the loss of a
uniform guess, ln 10.

The training's randomness comes from DIGITS_SEED (default 0) alone: the
weights are drawn from it, and epoch E's batch order from it and E. Two
trials with the same parameters and seed therefore train alike, and a
member that continues from a checkpoint sees the batches it would have seen
had it trained on without a break.

  TUNE_PARAM_lr=0.3 TUNE_PARAM_momentum=0.5 digits_sgd.py

train() is the training itself; the benchmark's schedule oracle calls it
in-process with a learning rate per epoch."""
import math
import os
import sys

import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

BATCH = 16
DIVERGED = math.log(10)


def data():
    X, y = load_digits(return_X_y=True)
    X_train, X_val, y_train, y_val = train_test_split(X / 16.0, y, test_size=0.25, random_state=0, stratify=y)
    return (torch.tensor(X_train, dtype=torch.float32), torch.tensor(y_train),
            torch.tensor(X_val, dtype=torch.float32), torch.tensor(y_val))


def model_for(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


def train(model, opt, tensors, seed, epochs, lr_of, report=None):
    """Trains epochs (a range of epoch numbers, from 1) at lr_of(epoch);
    returns the validation loss after the last, or DIVERGED at the epoch it
    diverged (reported as such, and the last)."""
    X_train, y_train, X_val, y_val = tensors
    loss_fn = torch.nn.CrossEntropyLoss()
    val_loss = DIVERGED
    for epoch in epochs:
        for group in opt.param_groups:
            group["lr"] = lr_of(epoch)
        model.train()
        order = torch.randperm(len(X_train), generator=torch.Generator().manual_seed(seed * 100003 + epoch))
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            opt.zero_grad()
            loss_fn(model(X_train[idx]), y_train[idx]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val_loss = float(loss_fn(model(X_val), y_val))
        if not math.isfinite(val_loss) or val_loss > DIVERGED:
            val_loss = DIVERGED
        if report:
            report(epoch, val_loss)
        if val_loss == DIVERGED:
            break
    return val_loss


def main():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "client", "python"))
    import tune_report as tune

    torch.set_num_threads(1)
    lr = float(os.environ.get("TUNE_PARAM_lr", "0.3"))
    momentum = float(os.environ.get("TUNE_PARAM_momentum", "0.5"))
    epochs = int(os.environ.get("DIGITS_EPOCHS", "30"))
    seed = int(os.environ.get("DIGITS_SEED", "0"))
    model = model_for(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    first, val_loss = 1, DIVERGED
    ckpt_dir = tune.checkpoint_dir()
    ckpt = os.path.join(ckpt_dir, "checkpoint.pt") if ckpt_dir else None
    if ckpt and tune.restored() and os.path.exists(ckpt):
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        for group in opt.param_groups:
            group["momentum"] = momentum
        first, val_loss = state["epoch"] + 1, state["val_loss"]

    def report(epoch, loss):
        tune.report(step=epoch, val_loss=loss)
        if ckpt:  # whole, then renamed: an interruption never leaves half a checkpoint
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val_loss": loss},
                       ckpt + ".tmp")
            os.replace(ckpt + ".tmp", ckpt)

    last = min(epochs, tune.step_limit(epochs))
    if first <= last:
        val_loss = train(model, opt, data(), seed, range(first, last + 1), lambda e: lr, report)
    tune.objective(val_loss)


if __name__ == "__main__":
    main()
