#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Several objectives: tune's samplers against Optuna's NSGA-II and MOTPE on
ZDT1-3 and DTLZ2 (bench/mo_bench), by the hypervolume of the front found after
the same number of trials, in one run.

  bench/mo_compare.py bench/mo_bench [--trials 150] [--checkpoints 50,150] [--seeds 10]

Prints a JSON line per study, then per problem and checkpoint the median
hypervolume of each sampler, the true front's, and the ratios of tune's
medians to NSGA-II's and MOTPE's.
"""
import json
import statistics
import subprocess
import sys
import time

import optuna

optuna.logging.set_verbosity(optuna.logging.ERROR)


def option(args, name, default):
    return args[args.index(name) + 1] if name in args else default


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    mo_bench, args = sys.argv[1], sys.argv[2:]
    trials = int(option(args, "--trials", "150"))
    seeds = int(option(args, "--seeds", "10"))
    checkpoints = [int(c) for c in option(args, "--checkpoints", str(trials)).split(",")]
    rows = []
    tune_out = subprocess.run([mo_bench, "compare", "--trials", str(trials), "--seeds", str(seeds), "--checkpoints",
                               ",".join(map(str, checkpoints)), "--samplers", "random,tpe,bayes"],
                              check=True, capture_output=True, text=True).stdout
    for line in tune_out.splitlines():
        print(line, flush=True)
        rows.append(json.loads(line))
    problems = [json.loads(l) for l in subprocess.run([mo_bench, "problems"], check=True, capture_output=True,
                                                       text=True).stdout.splitlines()]
    server = subprocess.Popen([mo_bench, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(request):
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        answer = json.loads(server.stdout.readline())
        if "error" in answer:
            raise SystemExit("mo_compare.py: mo_bench serve: " + answer["error"])
        return answer

    samplers = {
        "nsga2": lambda seed: optuna.samplers.NSGAIISampler(seed=seed),
        "motpe": lambda seed: optuna.samplers.MOTPESampler(seed=seed),
    }
    for p in problems:
        dists = {q["name"]: optuna.distributions.FloatDistribution(q["value"][0], q["value"][1])
                 for q in p["space"]["parameters"]}
        for name, make in samplers.items():
            for seed in range(seeds):
                start = time.monotonic()
                study = optuna.create_study(sampler=make(seed), directions=["minimize"] * p["objectives"])
                seen, hv = [], {}
                for t in range(trials):
                    trial = study.ask(dists)
                    values = ask({"problem": p["problem"], "params": trial.params})["values"]
                    study.tell(trial, values)
                    seen.append(values)
                    if t + 1 in checkpoints:
                        hv[str(t + 1)] = ask({"problem": p["problem"], "params": trial.params, "front": seen})["hv"]
                row = {"problem": p["problem"], "sampler": "optuna-" + name, "seed": seed, "hv": hv,
                       "seconds": time.monotonic() - start}
                print(json.dumps(row), flush=True)
                rows.append(row)
    server.stdin.close()
    server.wait()

    print("\nmedian hypervolume over %d seeds (reference: 1.1 x each objective's worst; 'front' = the true front's)" % seeds)
    for p in problems:
        front = subprocess.run([mo_bench, "front", p["problem"]], check=True, capture_output=True, text=True).stdout.split()[1]
        for c in checkpoints:
            med = {}
            for r in rows:
                if r["problem"] == p["problem"]:
                    med.setdefault(r["sampler"], []).append(r["hv"][str(c)])
            med = {s: statistics.median(v) for s, v in med.items()}
            cells = " ".join("%s %.4f" % (s, v) for s, v in sorted(med.items()))
            ratios = " ".join("%s/%s %.3f" % (t, o, med["tune-" + t] / med["optuna-" + o])
                              for t in ("bayes", "tpe") for o in ("nsga2", "motpe"))
            print("%-6s @%-4d front %s  %s  |  %s" % (p["problem"], c, front, cells, ratios))


if __name__ == "__main__":
    main()
