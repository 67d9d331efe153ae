#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Optuna's side of the broad search benchmark (bench/search_compare.sh).

Runs Optuna's TPE, CMA-ES and random samplers on the problems that
`search_bench problems ARGS` lists, with the same seeds and trial budgets as
`search_bench compare ARGS`, evaluating every trial through `search_bench
serve` so both sides meet the same functions and the same noise. Prints one
JSON line per study: problem, sampler, seed, regret at each checkpoint (the
true value of the trial that observed best), seconds.

    optuna_compare.py SEARCH_BENCH [--samplers tpe,cmaes,random,tpe-8] -- COMPARE_ARGS...

A sampler named NAME-K runs with K asynchronous runners, as search_bench's
"bayes-8" does: K trials asked before the first is told, then one asked as
each finishes, oldest first (search_bench's trials all take the same
simulated second, so they finish in the order they started). TPE with
runners uses Optuna's constant liar (running trials count as bad ones),
which Optuna's documentation recommends for parallel studies.
"""
import collections
import json
import subprocess
import sys
import time
import warnings

import optuna

optuna.logging.set_verbosity(optuna.logging.ERROR)
warnings.filterwarnings("ignore")


def option(args, name, default):
    """The last value given for `name`, as search_bench takes it (a piece's options override its set's)."""
    at = [i for i, a in enumerate(args[:-1]) if a == name]
    return args[at[-1] + 1] if at else default


def int_list(text):
    out = []
    for item in text.split(","):
        if "-" in item[1:]:
            a, b = item.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif item:
            out.append(int(item))
    return out


def distributions(space):
    out = {}
    for p in space["parameters"]:
        kind, value, log = p["type"], p["value"], p.get("log", False)
        if kind == "bound":
            out[p["name"]] = optuna.distributions.FloatDistribution(value[0], value[1], log=log)
        elif kind == "int":
            out[p["name"]] = optuna.distributions.IntDistribution(int(value[0]), int(value[1]), log=log)
        else:  # choice, number
            out[p["name"]] = optuna.distributions.CategoricalDistribution(value)
    return out


def ask(study, space, dists):
    """A trial with the space's active parameters: a parameter with "when"
    is suggested only when its parents took one of the listed values (Optuna's
    define-by-run way to write a conditional space)."""
    if not any("when" in p for p in space["parameters"]):
        return study.ask(dists)
    trial = study.ask()
    for p in space["parameters"]:
        when = p.get("when", {})
        if all(name in trial.params and trial.params[name] in (v if isinstance(v, list) else [v])
               for name, v in when.items()):
            d = dists[p["name"]]
            if isinstance(d, optuna.distributions.FloatDistribution):
                trial.suggest_float(p["name"], d.low, d.high, log=d.log)
            elif isinstance(d, optuna.distributions.IntDistribution):
                trial.suggest_int(p["name"], d.low, d.high, log=d.log)
            else:
                trial.suggest_categorical(p["name"], d.choices)
    return trial


def runners_of(name):
    """("tpe", 8) for "tpe-8"; ("tpe", 1) for "tpe"."""
    base, _, k = name.partition("-")
    if k and not k.isdigit():
        raise SystemExit(f"optuna_compare.py: sampler {name!r}: NAME-K takes a number of runners, as tpe-8")
    return base, int(k) if k else 1


def make_sampler(name, seed):
    name, runners = runners_of(name)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=runners > 1)
    if name == "cmaes":
        # Categorical parameters fall back to Optuna's independent (random) sampler.
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise SystemExit(f"optuna_compare.py: unknown sampler {name!r}: use tpe, cmaes or random (NAME-K: K runners)")


def main():
    if len(sys.argv) < 2 or "--" not in sys.argv:
        raise SystemExit(__doc__)
    search_bench = sys.argv[1]
    own = sys.argv[2:sys.argv.index("--")]
    args = sys.argv[sys.argv.index("--") + 1:]
    samplers = option(own, "--samplers", "tpe,cmaes,random").split(",")
    trials = int(option(args, "--trials", "100"))
    seeds = int(option(args, "--seeds", "10"))
    first_seed = int(option(args, "--first-seed", "0"))
    checkpoints = sorted(int_list(option(args, "--checkpoints", str(trials))))
    listed = subprocess.run([search_bench, "problems"] + args, check=True, capture_output=True, text=True)
    problems = [json.loads(line) for line in listed.stdout.splitlines()]
    server = subprocess.Popen([search_bench, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def evaluate(problem, seed, trial, params):
        server.stdin.write(json.dumps({"problem": problem, "seed": seed, "trial": trial, "params": params}) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        if "error" in answer:
            raise SystemExit(f"optuna_compare.py: search_bench serve: {answer['error']}")
        return answer["value"], answer["truth"]

    for p in problems:
        dists = distributions(p["space"])
        for name in samplers:
            runners = runners_of(name)[1]
            for seed in range(first_seed, first_seed + seeds):
                start = time.monotonic()
                study = optuna.create_study(sampler=make_sampler(name, seed), direction="minimize")
                best_seen, best_true, regrets = float("inf"), float("inf"), {}
                running, asked = collections.deque(), 0
                for finished in range(1, trials + 1):
                    while len(running) < runners and asked < trials:
                        running.append((asked, ask(study, p["space"], dists)))
                        asked += 1
                    t, trial = running.popleft()
                    value, truth = evaluate(p["problem"], seed, t, trial.params)
                    study.tell(trial, value)
                    if value < best_seen:
                        best_seen, best_true = value, truth
                    if finished in checkpoints:
                        regrets[str(finished)] = max(0.0, best_true)
                print(json.dumps({"problem": p["problem"], "sampler": "optuna-" + name, "seed": seed,
                                  "seconds": time.monotonic() - start, "regret": regrets}), flush=True)
    server.stdin.close()
    server.wait()


if __name__ == "__main__":
    main()
