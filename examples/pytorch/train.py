#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A PyTorch training script laid out for tune: copy it and put your model
and data where the comments say.

- Parameters come from tune (TUNE_PARAM_*; tune_report.params()), with
  defaults so that the script runs by hand too:
      TUNE_PARAM_lr=0.05 ./train.py
- It trains on the GPU tune gives the trial (CUDA_VISIBLE_DEVICES) when
  there is one, else on the CPU.
- Every epoch it reports the validation loss and accuracy (tune prunes on
  them and plots them); at the end the objective, the best accuracy.
- Every epoch it saves a checkpoint in the trial's checkpoint directory
  (TUNE_CHECKPOINT_DIR); a trial that was interrupted (a yield, a requeue,
  the job's time limit) and runs again continues from it.
- With --algo pbt a trial continues another's training: its checkpoint
  directory holds that trial's checkpoint, and it trains to the epoch
  tune.step_limit() names, with its own learning rate and momentum.

The data here is scikit-learn's bundled digits (8x8 images, 1797 samples;
nothing is downloaded), so the example runs anywhere.
"""

import os

import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import tune_report as tune

# --- the hyperparameters tune chooses (see space.json) -----------------------
p = tune.params()
lr = float(p.get("lr", 0.05))
momentum = float(p.get("momentum", 0.9))
batch_size = int(p.get("batch_size", 32))
hidden = int(p.get("hidden", 64))
dropout = float(p.get("dropout", 0.1))
epochs = int(os.environ.get("EPOCHS", "20"))

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
if device.type == "cpu":
    # The trial's CPUs (--cpus-per-trial), not the whole node's.
    torch.set_num_threads(max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))
print("training on %s" % (torch.cuda.get_device_name(device) if device.type == "cuda" else "the CPU"), flush=True)

# --- your data ---------------------------------------------------------------
X, y = load_digits(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X / 16.0, y, test_size=0.25, random_state=0, stratify=y)
X_train = torch.tensor(X_train, dtype=torch.float32, device=device)
y_train = torch.tensor(y_train, device=device)
X_val = torch.tensor(X_val, dtype=torch.float32, device=device)
y_val = torch.tensor(y_val, device=device)

# --- your model --------------------------------------------------------------
model = torch.nn.Sequential(
    torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Dropout(dropout), torch.nn.Linear(hidden, 10)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
loss_fn = torch.nn.CrossEntropyLoss()

# --- resume from the trial's checkpoint --------------------------------------
best, first = 0.0, 1
ckpt_dir = tune.checkpoint_dir()  # None when run by hand
ckpt = os.path.join(ckpt_dir, "checkpoint.pt") if ckpt_dir else None
if ckpt and tune.restored() and os.path.exists(ckpt):
    state = torch.load(ckpt, map_location=device)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    for group in opt.param_groups:  # this trial's, when it continues another's training (--algo pbt)
        group["lr"], group["momentum"] = lr, momentum
    best, first = state["best"], state["epoch"] + 1
    print("resumed from %s at epoch %d" % (ckpt, first), flush=True)

# --- train, report every epoch, checkpoint every epoch -----------------------
for epoch in range(first, min(epochs, tune.step_limit(epochs)) + 1):
    model.train()
    order = torch.randperm(len(X_train), device=device)
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        opt.zero_grad()
        loss = loss_fn(model(X_train[idx]), y_train[idx])
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = float(loss_fn(out, y_val))
        accuracy = float((out.argmax(1) == y_val).float().mean())
    if val_loss != val_loss:  # NaN: the learning rate diverged; what was reached stands
        break
    best = max(best, accuracy)
    tune.report(step=epoch, val_loss=val_loss, val_accuracy=accuracy)
    if ckpt:  # written whole, then renamed: an interruption never leaves half a checkpoint
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "best": best, "epoch": epoch},
                   ckpt + ".tmp")
        os.replace(ckpt + ".tmp", ckpt)
tune.objective(best)
