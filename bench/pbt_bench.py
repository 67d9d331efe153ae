#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Population-based training against random search and ASHA at the same
total steps, on the toy problem of the PBT paper (Jaderberg et al. 2017,
section 4.1; bench/programs/pbt_toy.py), through the real `tune run` and
real trial processes (one at a time: a seed is then one study).

Each arm spends STEPS x POPULATION steps (the toy's epochs):
  pbt     --algo pbt --population P --pbt-interval I, segments in the order
          they ran until the steps spent reach the budget (a member that
          copies one ahead of it skips the steps between: more segments)
  random  --algo random, P trials of STEPS steps
  asha    --algo random --prune asha --min-resource I --reduction-factor 3,
          trials in the order they ran until the steps spent reach the budget
The figure is each arm's regret: the oracle's Q (the best fixed h, h = (1, 1),
which no schedule within [0, 1] can pass) minus the best objective an ok
trial reached within the budget; PBT's and ASHA's are paired by seed against
random search's (the baseline, measured in the same run) with a two-sided
Wilcoxon signed-rank test (bench/search_stats.py).

    pbt_bench.py [--seeds N] [--first S] [--population P] [--interval I] [--steps K]
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from search_stats import paired  # noqa: E402

tune = os.path.join(here, "..", "driver", "tune")
toy = os.path.join(here, "programs", "pbt_toy.py")
space = os.path.join(here, "programs", "pbt_toy.json")
ETA = 0.02


def oracle(steps):
    theta = 0.9 * (1 - 2 * ETA) ** steps
    return 1.2 - 2 * theta * theta


def study(work, name, seed, steps, flags):
    history = os.path.join(work, "%s-%d.h5" % (name, seed))
    env = dict(os.environ, TOY_STEPS=str(steps), TOY_ETA=str(ETA))
    subprocess.run([tune, "run", "--history", history, "--space", space, "--direction", "max",
                    "--prune-metric", "q", "--seed", str(seed), "-q"] + flags + ["--", toy],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tune, "export", "--csv", history], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def best_within(rows, budget, steps_of):
    """The best objective of an ok trial among those, in the order they ran,
    whose steps fit in `budget`; and the steps they spent."""
    spent, best = 0, None
    for r in sorted(rows, key=lambda r: int(r["id"])):
        spent += steps_of(r)
        if spent > budget:
            break
        if r["state"] == "ok" and r["objective"]:
            best = max(best, float(r["objective"])) if best is not None else float(r["objective"])
    return best, min(spent, budget)


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--seeds", type=int, default=10)
    a.add_argument("--first", type=int, default=0)
    a.add_argument("--population", type=int, default=8)
    a.add_argument("--interval", type=int, default=4)
    a.add_argument("--steps", type=int, default=40)
    o = a.parse_args()
    budget = o.population * o.steps
    q_star = oracle(o.steps)
    regret = {"pbt": {}, "random": {}, "asha": {}}
    with tempfile.TemporaryDirectory(dir=here) as work:
        for seed in range(o.first, o.first + o.seeds):
            def own_steps(r):  # a trial's steps: those it reported (from its start or its source's)
                last = int(r["last_step"])
                start = int(r["step_limit"]) - o.interval if r["step_limit"] else 0
                return max(0, last - start) if last >= 0 else 0

            pbt = study(work, "pbt", seed, o.steps, ["--algo", "pbt", "--population", str(o.population),
                                                    "--pbt-interval", str(o.interval),
                                                    "--trials", str(2 * budget // o.interval)])
            rnd = study(work, "random", seed, o.steps, ["--algo", "random", "--trials", str(o.population)])
            asha = study(work, "asha", seed, o.steps, ["--algo", "random", "--prune", "asha", "--min-resource",
                                                      str(o.interval), "--reduction-factor", "3",
                                                      "--trials", str(2 * budget // o.interval)])
            line = []
            for name, rows in (("pbt", pbt), ("random", rnd), ("asha", asha)):
                best, spent = best_within(rows, budget, own_steps)
                regret[name][seed] = q_star - best
                line.append("%s %.5f (%d steps)" % (name, best, spent))
            print("seed %d: %s" % (seed, ", ".join(line)), flush=True)
    print("\noracle (h = (1, 1) fixed): Q = %.5f; budget %d steps; %d seeds" % (q_star, budget, o.seeds))
    print("%-8s %14s %22s %10s %8s" % ("arm", "median regret", "median ratio to random", "p", "verdict"))
    for name in ("pbt", "asha", "random"):
        med = statistics.median(regret[name].values())
        if name == "random":
            print("%-8s %14.5f %22s %10s %8s" % (name, med, "1 (baseline)", "", ""))
            continue
        p = paired(regret[name], regret["random"])
        print("%-8s %14.5f %22.3f %10.4f %8s" % (name, med, p.ratio, p.p, p.verdict))
    p = paired(regret["pbt"], regret["asha"])
    print("pbt against asha: median regret ratio %.3f, p %.4f, %s" % (p.ratio, p.p, p.verdict))


if __name__ == "__main__":
    main()
