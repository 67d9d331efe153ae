#!/usr/bin/python3
"""Summarises the broad search benchmark: JSON lines from `search_bench
compare` and bench/optuna_compare.py (files given as arguments) into a table
per checkpoint (median regret over seeds of every sampler, tune's bayes over
Optuna's TPE) and the issue's aims.

Regret ratios use a floor of 1e-8 (COCO's final target precision): two
regrets below it are a tie.
"""
import json
import statistics
import sys
from collections import defaultdict

FLOOR = 1e-8


def ratio(a, b):
    return (a + FLOOR) / (b + FLOOR)


def main():
    runs = defaultdict(list)  # (problem, sampler, checkpoint) -> regrets
    halves = defaultdict(lambda: ([], []))  # (problem, sampler, checkpoint) -> regrets of even, odd seeds
    seconds = defaultdict(list)
    problems, samplers, checkpoints = [], [], set()
    for path in sys.argv[1:]:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r["problem"] not in problems:
                    problems.append(r["problem"])
                if r["sampler"] not in samplers:
                    samplers.append(r["sampler"])
                seconds[r["sampler"]].append(r["seconds"])
                for c, v in r["regret"].items():
                    runs[(r["problem"], r["sampler"], int(c))].append(v)
                    halves[(r["problem"], r["sampler"], int(c))][r["seed"] % 2].append(v)
                    checkpoints.add(int(c))
    if not runs:
        raise SystemExit("search_compare.py: no results in " + " ".join(sys.argv[1:]))
    order = [s for s in ("tune-bayes", "tune-bayes-8", "tune-random", "optuna-tpe", "optuna-cmaes", "optuna-random")
             if s in samplers] + [s for s in samplers if not s.startswith(("tune-", "optuna-"))]
    order += [s for s in samplers if s not in order]
    seeds = max(len(v) for v in runs.values())
    aims_at = 100 if 100 in checkpoints else max(checkpoints)
    summary = {}
    summary_own = []
    for c in sorted(checkpoints):
        print(f"\nmedian regret after {c} trials over {seeds} seeds (0 = the optimum)")
        head = f"{'problem':32s}" + "".join(f"{s:>15s}" for s in order) + f"{'bayes/TPE':>11s}{'8/1 run':>9s}"
        print(head)
        ratios, parallel = [], []
        for p in problems:
            med = {s: statistics.median(runs[(p, s, c)]) for s in order if runs.get((p, s, c))}
            row = f"{p:32s}" + "".join(f"{med[s]:15.4g}" if s in med else f"{'-':>15s}" for s in order)
            r = ratio(med["tune-bayes"], med["optuna-tpe"]) if "tune-bayes" in med and "optuna-tpe" in med else None
            q = ratio(med["tune-bayes-8"], med["tune-bayes"]) if "tune-bayes-8" in med and "tune-bayes" in med else None
            row += f"{r:11.3g}" if r is not None else f"{'-':>11s}"
            row += f"{q:9.3g}" if q is not None else f"{'-':>9s}"
            print(row)
            if r is not None:
                ratios.append((r, p))
            if q is not None:
                parallel.append(q)
        line = f"summary at {c} trials: {len(problems)} problems"
        if ratios:
            values = [r for r, _ in ratios]
            worse = [(r, p) for r, p in ratios if r > 1]
            line += (f"; bayes/TPE median {statistics.median(values):.3g}, "
                     f"geometric mean {statistics.geometric_mean(values):.3g}; bayes worse on {len(worse)} "
                     f"({100 * len(worse) / len(ratios):.0f}%), worst {max(values):.3g} ({max(ratios)[1]})")
            summary[c] = (values, worse, parallel)
        if parallel:
            within = sum(1 for q in parallel if q <= 1.5)
            line += f"; 8 runners within 1.5x of 1 on {within} of {len(parallel)} ({100 * within / len(parallel):.0f}%)"
        print(line)
        # tune's own TPE (--algo tpe, and bayes's fallback on noisy results)
        # against Optuna's: the same algorithm, so near 1 apart from seeds.
        own = [ratio(statistics.median(runs[(p, "tune-tpe", c)]), statistics.median(runs[(p, "optuna-tpe", c)]))
               for p in problems if runs.get((p, "tune-tpe", c)) and runs.get((p, "optuna-tpe", c))]
        if own:
            # The same algorithm against itself is the floor of the aims on
            # "worse than TPE": what seeds alone make of them.
            print(f"tune's tpe / Optuna's tpe at {c} trials: median {statistics.median(own):.3g}, "
                  f"geometric mean {statistics.geometric_mean(own):.3g}; worse on {sum(1 for q in own if q > 1)} "
                  f"of {len(own)} ({100 * sum(1 for q in own if q > 1) / len(own):.0f}%), by over 1.5x on "
                  f"{sum(1 for q in own if q > 1.5)}, worst {max(own):.3g}")
            if c == aims_at:
                summary_own = own
        # The seeds' own noise: bayes against itself, even seeds against odd
        # ones; a ratio aim cannot be judged finer than this.
        null = [ratio(statistics.median(halves[(p, "tune-bayes", c)][1]),
                      statistics.median(halves[(p, "tune-bayes", c)][0]))
                for p in problems if all(len(h) >= 2 for h in halves.get((p, "tune-bayes", c), ([], [])))]
        if null:
            print(f"seed noise at {c} trials: bayes on its odd seeds within 1.5x of its even seeds on "
                  f"{sum(1 for q in null if q <= 1.5)} of {len(null)} "
                  f"({100 * sum(1 for q in null if q <= 1.5) / len(null):.0f}%)")
    print("\nseconds per study (mean): " + ", ".join(f"{s} {statistics.mean(seconds[s]):.2f}" for s in order))
    if aims_at in summary:
        values, worse, parallel = summary[aims_at]
        share = len(worse) / len(values)
        print(f"\naims at {aims_at} trials:")
        print(f"  median bayes/TPE <= 0.5: {statistics.median(values):.3g} "
              f"{'met' if statistics.median(values) <= 0.5 else 'NOT met'}")
        print(f"  worse than TPE on <= 10% of problems: {100 * share:.0f}% {'met' if share <= 0.1 else 'NOT met'}")
        print(f"  never worse than 1.5x TPE: worst {max(values):.3g}, over 1.5x on {sum(1 for v in values if v > 1.5)} "
              f"{'met' if max(values) <= 1.5 else 'NOT met'}")
        if summary_own:
            print(f"  (the same two aims for tune's tpe against Optuna's, one algorithm: worse on "
                  f"{100 * sum(1 for q in summary_own if q > 1) / len(summary_own):.0f}%, over 1.5x on "
                  f"{sum(1 for q in summary_own if q > 1.5)}, worst {max(summary_own):.3g}: at this many seeds "
                  f"they are judged below the seeds' noise)")
        if parallel:
            within = sum(1 for q in parallel if q <= 1.5) / len(parallel)
            print(f"  8 runners within 1.5x of 1 on >= 90%: {100 * within:.0f}% {'met' if within >= 0.9 else 'NOT met'}")


if __name__ == "__main__":
    main()
