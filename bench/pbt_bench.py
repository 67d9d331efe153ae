#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Population-based training against random search and ASHA at the same
total steps, through the real `tune run` and real trial processes (one at a
time: a seed is then one study), on one of two problems:

  toy     the toy problem of the PBT paper (Jaderberg et al. 2017, section
          4.1; bench/programs/pbt_toy.py): maximise Q, 40 steps; the figure
          is the regret, the best fixed h's Q (h = (1, 1), which no schedule
          within [0, 1] can pass) minus the arm's best
  digits  a real PyTorch training (bench/programs/digits_sgd.py): an MLP on
          scikit-learn's digits by minibatch SGD, learning rate and
          momentum tuned, 30 epochs; the figure is the validation loss,
          beside two oracles computed on the same seed: the best fixed
          setting of a grid, and the best schedule of a grid (a learning
          rate cut by a factor after some epoch, or none): what a changing
          learning rate can give on this training (the best of grids, not
          bounds: a draw between the grid's points may beat them)

Each arm spends STEPS x POPULATION steps (epochs):
  pbt     --algo pbt --population P --pbt-interval I, segments in the order
          they ran until the steps spent reach the budget (a member that
          copies one ahead of it skips the steps between: more segments)
  random  --algo random, P trials of STEPS steps
  asha    --algo random --prune asha --min-resource I --reduction-factor 3,
          trials in the order they ran until the steps spent reach the budget
An arm's best is that of the ok trials within the budget that trained to
the last step. Each arm is paired by seed against random search (the
baseline, measured in the same run), and pbt against asha, with a two-sided
Wilcoxon signed-rank test (bench/search_stats.py).

    pbt_bench.py [--problem toy|digits] [--seeds N] [--first S] [--jobs J]
                 [--population P] [--interval I] [--steps K] [--pool OUTPUT...]
"""
import argparse
import csv
import io
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "programs"))
from search_stats import paired  # noqa: E402

tune = os.path.join(here, "..", "driver", "tune")


class Toy:
    program, space = "pbt_toy.py", "pbt_toy.json"
    direction, metric = "max", "q"
    population, interval, steps = 8, 4, 40
    figure_name = "regret"
    ETA = 0.02

    def env(self, seed, steps):
        return {"TOY_STEPS": str(steps), "TOY_ETA": str(self.ETA)}

    def q_star(self, steps):
        theta = 0.9 * (1 - 2 * self.ETA) ** steps
        return 1.2 - 2 * theta * theta

    def figure(self, best, steps):
        return self.q_star(steps) - best

    def oracles(self, seed, steps):
        return {}

    def describe(self, steps):
        return "oracle (h = (1, 1) fixed): Q = %.5f" % self.q_star(steps)


class Digits:
    program, space = "digits_sgd.py", "digits_sgd.json"
    direction, metric = "min", "val_loss"
    population, interval, steps = 8, 5, 30
    figure_name = "val loss"
    # The oracles' grids: every fixed setting below, and each schedule that
    # trains at lr until epoch `at`, then at lr x cut.
    FIXED_LR = (0.01, 0.03, 0.1, 0.2, 0.3, 0.45, 0.7, 1.0)
    FIXED_MOMENTUM = (0.0, 0.5, 0.8)
    SCHEDULE_LR = (0.2, 0.3, 0.45, 0.7)
    SCHEDULE_MOMENTUM = (0.0, 0.5)
    SCHEDULE_AT = (10, 20)
    SCHEDULE_CUT = (0.1, 0.3)

    def env(self, seed, steps):
        return {"DIGITS_SEED": str(seed), "DIGITS_EPOCHS": str(steps)}

    def figure(self, best, steps):
        return best

    def oracles(self, seed, steps):
        import torch
        import digits_sgd
        torch.set_num_threads(1)
        tensors = digits_sgd.data()

        def final(momentum, lr_of):
            model = digits_sgd.model_for(seed)
            opt = torch.optim.SGD(model.parameters(), lr=lr_of(1), momentum=momentum)
            return digits_sgd.train(model, opt, tensors, seed, range(1, steps + 1), lr_of)

        fixed = min(final(m, lambda e, lr=lr: lr) for lr in self.FIXED_LR for m in self.FIXED_MOMENTUM)
        scheduled = min(final(m, lambda e, lr=lr, at=at, cut=cut: lr if e <= at else lr * cut)
                        for lr in self.SCHEDULE_LR for m in self.SCHEDULE_MOMENTUM
                        for at in self.SCHEDULE_AT for cut in self.SCHEDULE_CUT if at < steps)
        return {"fixed oracle": fixed, "schedule oracle": min(fixed, scheduled)}

    def describe(self, steps):
        return ("oracles on each seed: the best of %d fixed settings, and the best of those and %d schedules" %
                (len(self.FIXED_LR) * len(self.FIXED_MOMENTUM),
                 len(self.SCHEDULE_LR) * len(self.SCHEDULE_MOMENTUM) * len(self.SCHEDULE_AT) * len(self.SCHEDULE_CUT)))


PROBLEMS = {"toy": Toy, "digits": Digits}
ARMS = ("pbt", "random", "asha")


def study(problem, work, name, seed, steps, flags):
    history = os.path.join(work, "%s-%d.h5" % (name, seed))
    env = dict(os.environ, **problem.env(seed, steps))
    subprocess.run([tune, "run", "--history", history, "--space", os.path.join(here, "programs", problem.space),
                    "--direction", problem.direction, "--prune-metric", problem.metric, "--seed", str(seed), "-q"]
                   + flags + ["--", os.path.join(here, "programs", problem.program)],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tune, "export", "--csv", history], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def best_within(rows, budget, steps, steps_of, better):
    """The best objective of the ok trials that trained to the last step,
    among those, in the order they ran, whose steps fit in `budget`; and the
    steps they spent."""
    spent, best = 0, None
    for r in sorted(rows, key=lambda r: int(r["id"])):
        spent += steps_of(r)
        if spent > budget:
            break
        if r["state"] == "ok" and r["objective"] and int(r["last_step"]) == steps:
            value = float(r["objective"])
            best = value if best is None else better(best, value)
    return best, min(spent, budget)


def one_seed(args):
    problem, o, seed = args
    budget = o.population * o.steps
    better = max if problem.direction == "max" else min

    def own_steps(r):  # a trial's steps: those it reported (from its start or its source's)
        last = int(r["last_step"])
        start = int(r["step_limit"]) - o.interval if r["step_limit"] else 0
        return max(0, last - start) if last >= 0 else 0

    with tempfile.TemporaryDirectory(dir=here) as work:
        arms = {
            "pbt": study(problem, work, "pbt", seed, o.steps,
                         ["--algo", "pbt", "--population", str(o.population), "--pbt-interval", str(o.interval),
                          "--trials", str(2 * budget // o.interval)]),
            "random": study(problem, work, "random", seed, o.steps, ["--algo", "random", "--trials", str(o.population)]),
            # No more trials than the budget holds at the first rung: trials
            # run one at a time, so those after the budget change nothing.
            "asha": study(problem, work, "asha", seed, o.steps,
                          ["--algo", "random", "--prune", "asha", "--min-resource", str(o.interval),
                           "--reduction-factor", "3", "--trials", str(budget // o.interval)]),
        }
    figures, line = {}, []
    for name, rows in arms.items():
        best, spent = best_within(rows, budget, o.steps, own_steps, better)
        figures[name] = problem.figure(best, o.steps) if best is not None else float("inf")
        line.append("%s %s (%d steps)" % (name, "%.5f" % best if best is not None else "none", spent))
    for name, value in problem.oracles(seed, o.steps).items():
        figures[name] = value
        line.append("%s %.5f" % (name, value))
    return seed, figures, "seed %d: %s" % (seed, ", ".join(line))


def read_seed_line(text):
    """A line one_seed made ("seed N: name value (K steps), ..."): N and
    {name: value} (an arm's best, none as inf; an oracle's figure); (None,
    {}) for any other line."""
    m = re.match(r"seed (\d+): (.*)$", text.strip())
    if not m:
        return None, {}
    out = {}
    for item in m.group(2).split(", "):
        name, value = re.match(r"(.+?) (\S+)(?: \(\d+ steps\))?$", item).groups()
        out[name] = float("inf") if value == "none" else float(value)
    return int(m.group(1)), out


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--problem", choices=sorted(PROBLEMS), default="toy")
    a.add_argument("--seeds", type=int, default=10)
    a.add_argument("--first", type=int, default=0)
    a.add_argument("--jobs", type=int, default=1, help="seeds at once (each runs its studies one trial at a time)")
    a.add_argument("--population", type=int)
    a.add_argument("--interval", type=int)
    a.add_argument("--steps", type=int)
    a.add_argument("--pool", nargs="+", metavar="OUTPUT",
                   help="no run: the table of the seed lines these outputs of earlier runs printed")
    o = a.parse_args()
    problem = PROBLEMS[o.problem]()
    for k in ("population", "interval", "steps"):
        if getattr(o, k) is None:
            setattr(o, k, getattr(problem, k))
    budget = o.population * o.steps
    figures = {}
    if o.pool:
        # Runs made in pieces (--first, --seeds): their seed lines, pooled.
        for path in o.pool:
            with open(path) as f:
                for text in f:
                    seed, f = read_seed_line(text)
                    for name, value in f.items():
                        if name in ARMS and value != float("inf"):
                            value = problem.figure(value, o.steps)
                        figures.setdefault(name, {})[seed] = value
        if not figures:
            sys.exit("pbt_bench: no 'seed N: ...' lines in %s" % ", ".join(o.pool))
    else:
        seeds = [(problem, o, s) for s in range(o.first, o.first + o.seeds)]
        with multiprocessing.Pool(o.jobs) as pool:
            for seed, f, line in pool.imap(one_seed, seeds):
                print(line, flush=True)
                for name, value in f.items():
                    figures.setdefault(name, {})[seed] = value

    seeds = sorted(figures["random"])
    print("\n%s; budget %d steps; %d seeds (%s)" % (problem.describe(o.steps), budget, len(seeds),
                                                  ", ".join(map(str, seeds))))
    print("%-16s %14s %22s %10s %8s" % ("arm", "median " + problem.figure_name, "median ratio to random", "p",
                                         "verdict"))
    for name in [n for n in figures if n != "random"] + ["random"]:
        med = statistics.median(figures[name].values())
        if name == "random":
            print("%-16s %14.5f %22s %10s %8s" % (name, med, "1 (baseline)", "", ""))
            continue
        p = paired(figures[name], figures["random"])
        print("%-16s %14.5f %22.3f %10.4f %8s" % (name, med, p.ratio, p.p, p.verdict))
    p = paired(figures["pbt"], figures["asha"])
    print("pbt against asha: median %s ratio %.3f, p %.4f, %s" % (problem.figure_name, p.ratio, p.p, p.verdict))


if __name__ == "__main__":
    main()
