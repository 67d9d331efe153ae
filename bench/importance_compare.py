#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Parameter importance of `tune report` beside Optuna's default evaluator
(fANOVA over scikit-learn's random forest, Debian's python3-optuna) on the
same trials: for each problem, Optuna's random sampler draws the trials
(seeded), Optuna computes its importances, and the same parameter sets run
through `tune run --enqueue` with a program computing the same function, so
tune's history holds exactly those trials; `tune report` prints tune's.

    bench/importance_compare.py [TUNE_BINARY] [--trials 200] [--seeds 3]

Prints both importances per parameter, the largest difference per problem and
whether the two orders agree. Both sides are random forests with their own
random draws: the spread between two Optuna seeds is printed as the yardstick.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)

PROBLEMS = {
    # name: (space, function of the parameter dict)
    "linear-10-1-0": (
        [{"name": "x1", "type": "bound", "value": [0, 1]},
         {"name": "x2", "type": "bound", "value": [0, 1]},
         {"name": "x3", "type": "bound", "value": [0, 1]}],
        "10 * p['x1'] + p['x2']"),
    "mixed-lr-depth-opt": (
        [{"name": "lr", "type": "bound", "value": [0.0001, 1], "log": True},
         {"name": "depth", "type": "int", "value": [1, 10]},
         {"name": "opt", "type": "choice", "value": ["sgd", "adam", "rmsprop"]}],
        "(math.log10(p['lr']) + 2) ** 2 + 0.2 * p['depth'] + {'sgd': 1.5, 'adam': 0, 'rmsprop': 0.5}[p['opt']]"),
    "interaction": (
        [{"name": "a", "type": "bound", "value": [-1, 1]},
         {"name": "b", "type": "bound", "value": [-1, 1]},
         {"name": "c", "type": "bound", "value": [-1, 1]},
         {"name": "d", "type": "bound", "value": [-1, 1]}],
        "p['a'] * p['b'] + 2 * p['c'] ** 2 + 0.3 * p['d']"),
}


def distributions(space):
    out = {}
    for p in space:
        if p["type"] == "bound":
            out[p["name"]] = optuna.distributions.FloatDistribution(p["value"][0], p["value"][1], log=p.get("log", False))
        elif p["type"] == "int":
            out[p["name"]] = optuna.distributions.IntDistribution(p["value"][0], p["value"][1])
        else:
            out[p["name"]] = optuna.distributions.CategoricalDistribution(p["value"])
    return out


def optuna_side(space, expr, trials, seed):
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    dists = distributions(space)

    def objective(trial):
        p = {name: (trial.suggest_float(name, d.low, d.high, log=d.log) if isinstance(d, optuna.distributions.FloatDistribution)
                    else trial.suggest_int(name, d.low, d.high) if isinstance(d, optuna.distributions.IntDistribution)
                    else trial.suggest_categorical(name, d.choices)) for name, d in dists.items()}
        return eval(expr, {"math": math, "p": p})

    study.optimize(objective, n_trials=trials)
    sets = [t.params for t in study.trials]
    imp = lambda s: optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=s))
    return sets, imp(0), imp(1)


def tune_side(tune, space, expr, sets, work):
    with open(os.path.join(work, "space.json"), "w") as f:
        json.dump({"parameters": space}, f)
    with open(os.path.join(work, "enqueue.json"), "w") as f:
        json.dump(sets, f)
    program = os.path.join(work, "f.py")
    with open(program, "w") as f:
        f.write("#!/usr/bin/python3\nimport json, math, os\n"
                "p = json.load(open(os.environ['TUNE_PARAMS_FILE']))\n"
                "os.write(int(os.environ['TUNE_REPORT_FD']), b'objective=%%r\\n' %% (%s,))\n" % expr)
    os.chmod(program, 0o755)
    history = os.path.join(work, "h.h5")
    subprocess.run([tune, "run", "--history", history, "--space", os.path.join(work, "space.json"),
                    "--trials", str(len(sets)), "--enqueue", os.path.join(work, "enqueue.json"), "-q", "--", program],
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tune, "report", history, "-o", os.path.join(work, "h.html")], check=True,
                         capture_output=True, text=True).stdout
    line = next(l for l in out.splitlines() if l.startswith("parameter importance"))
    pairs = re.findall(r" (\S+) ([0-9.e+-]+)", line.split(":", 1)[1])
    return {name: float(v) for name, v in pairs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tune", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "driver", "tune"))
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    agree = total = 0
    worst = 0.0
    print("%-20s %-8s %10s %10s %10s" % ("problem/seed", "param", "tune", "optuna", "optuna'"))
    for name, (space, expr) in PROBLEMS.items():
        for seed in range(a.seeds):
            sets, opt, opt2 = optuna_side(space, expr, a.trials, seed)
            with tempfile.TemporaryDirectory() as work:
                mine = tune_side(a.tune, space, expr, sets, work)
            for p in space:
                n = p["name"]
                print("%-20s %-8s %10.3f %10.3f %10.3f" % ("%s/%d" % (name, seed), n, mine.get(n, 0), opt.get(n, 0), opt2.get(n, 0)))
            diff = max(abs(mine.get(p["name"], 0) - opt.get(p["name"], 0)) for p in space)
            noise = max(abs(opt2.get(p["name"], 0) - opt.get(p["name"], 0)) for p in space)
            order_mine = sorted(mine, key=lambda k: -mine[k])
            order_opt = sorted(opt, key=lambda k: -opt[k])
            same = order_mine[0] == order_opt[0]
            agree += same
            total += 1
            worst = max(worst, diff)
            print("%-20s largest |tune - optuna| %.3f (optuna seed 0 vs 1: %.3f); most important: %s / %s%s" %
                  ("", diff, noise, order_mine[0], order_opt[0], "" if same else "  DIFFER"))
    print("summary: %d problems x seeds, the most important parameter agrees on %d; largest difference %.3f" %
          (total, agree, worst))


if __name__ == "__main__":
    main()
