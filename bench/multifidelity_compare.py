#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hyperband and BOHB at equal epochs, beside ASHA and Optuna's TPE with its
HyperbandPruner (Debian's python3-optuna), on the problems of
bench/multifidelity_bench (recorded real training of data/workloads and
multi-fidelity test functions).

tune's arms run in `multifidelity_bench run`; Optuna's here, on the same
clock (K runners, one epoch per tick each, in runner order; a free runner
asks for a trial; each epoch reported, `should_prune()` asked after it) and
the same epochs, every value served by `multifidelity_bench serve` so both
sides see the same training runs. Optuna: TPESampler(seed, constant_liar
with more than one runner) and HyperbandPruner(min_resource=1,
max_resource=max_step, reduction_factor=3), Optuna's own bracket count; and
the same pruner under RandomSampler(seed), Optuna's Hyperband alone.

The figure is each study's regret at the end of the budget (the best
result any trial reached, against the table's best run or the function's
minimum; by half the budget too). Pairs of arms are compared seed by seed
with a two-sided Wilcoxon signed-rank test (bench/search_stats.py): the
ratio is the median over seeds of the first arm's regret over the
second's.

    multifidelity_compare.py MULTIFIDELITY_BENCH [--seeds A-B] [--workers K]
                             [--budget N] TABLE.json...
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import optuna

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_stats import paired  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore")

TUNE_ARMS = ["random", "asha", "hyperband", "bohb", "tpe-hyperband"]
OPTUNA_ARM = "optuna-tpe-hyperband"
# Optuna's Hyperband under random search: how Hyperband itself fares against
# ASHA on a problem, apart from tune's implementation of it.
OPTUNA_HB = "optuna-random-hyperband"
# (a, b): is a better than b? The aims' pairs first.
PAIRS = [("bohb", OPTUNA_ARM), ("hyperband", "asha"), ("bohb", "hyperband"), ("bohb", "asha"),
         ("hyperband", "random"), (OPTUNA_HB, "asha"), ("hyperband", OPTUNA_HB), ("tpe-hyperband", OPTUNA_ARM)]


def distributions(space):
    out = {}
    for p in space["parameters"]:
        low, high = p["value"]
        out[p["name"]] = optuna.distributions.FloatDistribution(low, high, log=p.get("log", False))
    return out


def optuna_study(problem, arm, seed, serve):
    """One Optuna study on the bench's clock; {"1", "2", "4"}: regret at each quarter mark."""
    dists = distributions(problem["space"])
    workers, epochs, max_step = problem["workers"], problem["epochs"], problem["max_step"]
    # HyperbandPruner draws a trial's bracket from the study's name and the
    # trial's number: a fixed name makes the run repeatable.
    study = optuna.create_study(
        study_name="%s-%s-%d" % (problem["problem"], arm, seed),
        direction="minimize" if problem["minimize"] else "maximize",
        sampler=optuna.samplers.TPESampler(seed=seed, constant_liar=workers > 1) if arm == OPTUNA_ARM
        else optuna.samplers.RandomSampler(seed=seed),
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=max_step, reduction_factor=3))
    slots = [None] * workers
    spent, best, trials, regret = 0, float("inf"), 0, {}
    while spent < epochs:
        busy = False
        for i in range(workers):
            if spent >= epochs:
                break
            if slots[i] is None:
                slots[i] = [study.ask(dists), 0]
                trials += 1
            busy = True
            trial = slots[i][0]
            slots[i][1] += 1
            step = slots[i][1]
            value, r = serve(problem["problem"], trial.number, trial.params, step)
            spent += 1
            trial.report(value, step)
            if trial.should_prune():
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                slots[i] = None
            elif step == max_step:
                study.tell(trial, value)
                best = min(best, r)
                slots[i] = None
            for q in (1, 2, 4):
                if spent == epochs * q // 4:
                    regret[str(q)] = best if best != float("inf") else None
        if not busy:
            break
    return regret, trials


def run_optuna(bench, common, problems, seeds):
    server = subprocess.Popen([bench, "serve"] + common, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def serve(problem, trial, params, step):
        server.stdin.write(json.dumps({"problem": problem, "trial": trial, "params": params, "step": step}) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        if "error" in answer:
            raise SystemExit("multifidelity_compare.py: multifidelity_bench serve: " + answer["error"])
        return answer["value"], answer["regret"]

    out = []
    for p in problems:
        for arm in (OPTUNA_ARM, OPTUNA_HB):
            for seed in seeds:
                start = time.monotonic()
                regret, trials = optuna_study(p, arm, seed, serve)
                out.append({"problem": p["problem"], "arm": arm, "seed": seed, "regret": regret,
                            "trials": trials, "seconds": time.monotonic() - start})
    server.stdin.close()
    server.wait()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", help="the built bench/multifidelity_bench")
    ap.add_argument("tables", nargs="*", help="tables of data/workloads")
    ap.add_argument("--seeds", default="0-9", help="A-B (default 0-9)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--budget", type=int, default=30, help="epochs as whole trials (default 30)")
    a = ap.parse_intermixed_args()
    first, last = (int(x) for x in a.seeds.split("-"))
    seeds = list(range(first, last + 1))
    common = ["--workers", str(a.workers), "--budget", str(a.budget)] + a.tables
    listed = subprocess.run([a.bench, "problems"] + common, check=True, capture_output=True, text=True)
    problems = [json.loads(line) for line in listed.stdout.splitlines()]
    start = time.monotonic()
    ran = subprocess.run([a.bench, "run", "--seeds", a.seeds, "--arms", ",".join(TUNE_ARMS)] + common,
                         check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in ran.stdout.splitlines()]
    tune_seconds = time.monotonic() - start
    start = time.monotonic()
    rows += run_optuna(a.bench, common, problems, seeds)
    optuna_seconds = time.monotonic() - start

    by = collections.defaultdict(dict)  # (problem, arm, mark) -> {seed: regret}
    for r in rows:
        for mark, v in r["regret"].items():
            if v is not None:
                by[(r["problem"], r["arm"], mark)][r["seed"]] = v
    arms = TUNE_ARMS + [OPTUNA_ARM, OPTUNA_HB]
    print("%d seeds (%s), %d runners, budget %d trials' epochs; tune's arms %.0f s, Optuna's %.0f s\n"
          % (len(seeds), a.seeds, a.workers, a.budget, tune_seconds, optuna_seconds))
    for mark, label in (("4", "at the whole budget"), ("2", "at half the budget")):
        print("Median regret %s:\n" % label)
        print("| problem | epochs | " + " | ".join(arms) + " |")
        print("|---|---|" + "---|" * len(arms))
        for p in problems:
            cells = []
            for arm in arms:
                v = by.get((p["problem"], arm, mark), {})
                cells.append("%.4g" % statistics.median(v.values()) if v else "-")
            print("| %s | %d | %s |" % (p["problem"], p["epochs"] * int(mark) // 4, " | ".join(cells)))
        print()
    print("Paired over seeds at the whole budget (ratio: median of a's regret / b's; p: Wilcoxon):\n")
    print("| problem | " + " | ".join("%s vs %s" % pair for pair in PAIRS) + " |")
    print("|---|" + "---|" * len(PAIRS))
    verdicts = collections.Counter()
    for p in problems:
        cells = []
        for x, y in PAIRS:
            a_, b_ = by.get((p["problem"], x, "4"), {}), by.get((p["problem"], y, "4"), {})
            if not set(a_) & set(b_):
                cells.append("-")
                continue
            r = paired(a_, b_)
            verdicts[(x, y, r.verdict)] += 1
            cells.append("%.3g (p %.3f) %s" % (r.ratio, r.p, r.verdict))
        print("| %s | %s |" % (p["problem"], " | ".join(cells)))
    print()
    n = len(problems)
    for x, y in PAIRS[:2]:
        print("%s vs %s: better on %d of %d problems, worse on %d" %
              (x, y, verdicts[(x, y, "better")], n, verdicts[(x, y, "worse")]))


if __name__ == "__main__":
    main()
