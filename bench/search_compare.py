#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Summarises the broad search benchmark: JSON lines from `search_bench
compare` and bench/optuna_compare.py (files or directories of .jsonl files
given as arguments; a later line for the same problem, sampler and seed
replaces an earlier one) into a table per checkpoint and the issue's aims.

Every comparison is paired by seed (the same noise draws) and judged with a
two-sided Wilcoxon signed-rank test on log10 regret (bench/search_stats.py):
"worse" or "better" at p < 0.05, with the median per-seed regret ratio as
the effect size. The calibration row comes first: tune's tpe against
Optuna's TPE, one algorithm written twice, so every significant difference
there is what the test makes of seeds alone.

    search_compare.py FILE_OR_DIR...                 the tables and the aims
    search_compare.py --ab A B [--at C] [--against CB] [--best] FILE_OR_DIR...
        one paired comparison (an A/B of a change): sampler A after C trials
        (the largest checkpoint by default) against sampler B after CB (C by
        default), and every problem where A is significantly worse or better.
        A may be several samplers joined by "+" (A1+A2+...): per problem and
        seed their geometric mean regret (of regret + floor), i.e. the
        typical one of several rules measured on the same seeds, and how
        many problems each of them alone is worse on. With --best, their
        per-seed minimum instead: every study's best rule chosen after the
        fact, a bound that none of these rules, nor a choice among them made
        in advance, can pass
"""
import glob
import lzma
import json
import math
import os
import signal
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_stats import ALPHA, FLOOR, chance_bound, paired  # noqa: E402

TPE = "optuna-tpe"


def read(paths):
    """(problem, sampler, checkpoint) -> {seed: regret}; seconds per sampler; order of problems and samplers."""
    runs = defaultdict(dict)
    seconds = defaultdict(list)
    problems, samplers = [], []
    files = []
    for p in paths:
        files += sorted(glob.glob(os.path.join(p, "*.jsonl*"))) if os.path.isdir(p) else [p]
    for path in files:
        # The results kept in the tree are xz-compressed JSON lines.
        with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    problem, sampler, seed = r["problem"], r["sampler"], int(r["seed"])
                    regrets = {int(c): float(v) for c, v in r["regret"].items()}
                except (ValueError, KeyError, TypeError) as e:
                    raise SystemExit(f"search_compare.py: {path}:{n}: not a result line ({e}); "
                                     "rerun the piece that wrote it")
                if problem not in problems:
                    problems.append(problem)
                if sampler not in samplers:
                    samplers.append(sampler)
                seconds[sampler].append(r.get("seconds", 0.0))
                for c, v in regrets.items():
                    runs[(problem, sampler, c)][seed] = v
    if not runs:
        raise SystemExit("search_compare.py: no results in " + " ".join(paths))
    return runs, seconds, problems, samplers


def severe_noise(problem):
    return "noisy" in problem


class Comparison:
    """Sampler a at checkpoint c against sampler b at checkpoint cb (c unless given), on every problem both ran."""

    def __init__(self, runs, problems, a, b, c, cb=None):
        self.a, self.b = a, b
        self.rows = {}
        for p in problems:
            ra, rb = runs.get((p, a, c)), runs.get((p, b, c if cb is None else cb))
            if ra and rb and set(ra) & set(rb):
                self.rows[p] = paired(ra, rb)

    def __bool__(self):
        return bool(self.rows)

    def worse(self):
        return [p for p, r in self.rows.items() if r.worse]

    def better(self):
        return [p for p, r in self.rows.items() if r.better]

    def share(self, names):
        return len(names) / len(self.rows)

    def line(self, label):
        w, b = self.worse(), self.better()
        seeds = sorted({r.seeds for r in self.rows.values()})
        text = (f"{label}: {len(self.rows)} problems, {'-'.join(map(str, (seeds[0], seeds[-1]))) if len(seeds) > 1 else seeds[0]}"
                f" seeds; significantly worse on {len(w)} ({100 * self.share(w):.0f}%), better on {len(b)} "
                f"({100 * self.share(b):.0f}%)")
        if w:
            worst = max(w, key=lambda p: self.rows[p].ratio)
            text += f"; worst worse: {self.rows[worst].ratio:.3g}x ({worst})"
        return text


def oracle(runs, problems, samplers, c, against=TPE):
    """What a choice made in hindsight reaches: per problem, the samplers
    (of every one measured, bayes among them, each its own runners) that are
    significantly better than `against` at checkpoint c. A problem where none
    is cannot count as a win for any one sampler measured here. (With many
    samplers some of these wins are chance: it is a generous bound.)"""
    out = {}
    for p in problems:
        if not runs.get((p, against, c)):
            continue
        out[p] = [s for s in samplers if s != against and runs.get((p, s, c))
                  and set(runs[(p, s, c)]) & set(runs[(p, against, c)])
                  and paired(runs[(p, s, c)], runs[(p, against, c)]).better]
    return out


def pool(runs, names, c, best=False):
    """Per problem, the geometric mean over `names` of regret + floor (minus
    the floor), or with `best` their minimum, on the seeds all of them ran
    after c trials: {problem: {seed: regret}}."""
    out = {}
    for p in {k[0] for k in runs}:
        per = [runs.get((p, s, c)) for s in names]
        if not all(per):
            continue
        seeds = set.intersection(*(set(r) for r in per))
        if best:
            out[p] = {s: min(r[s] for r in per) for s in seeds}
        else:
            out[p] = {s: max(0.0, 10 ** statistics.mean(math.log10(r[s] + FLOOR) for r in per) - FLOOR) for s in seeds}
    return out


def verdict_cell(r):
    """A comparison's cell: effect size, W or B when significant, p."""
    if r is None:
        return f"{'-':>16s}"
    mark = {"worse": " W", "better": " B", "-": "  "}[r.verdict]
    return f"{r.ratio:9.3g}{mark} {r.p:4.2f}"


def ab(argv):
    """--ab A B [--at C] [--against CB] paths...: one comparison, its line and its significant rows."""
    usage = "usage: search_compare.py --ab A B [--at C] [--against CB] [--best] FILE_OR_DIR..."
    if len(argv) < 3:
        raise SystemExit(usage)
    a, b, rest = argv[0], argv[1], list(argv[2:])
    at = {}
    best = False
    while rest and rest[0] in ("--at", "--against", "--best"):
        if rest[0] == "--best":
            best, rest = True, rest[1:]
            continue
        if len(rest) < 2 or not rest[1].isdigit():
            raise SystemExit(f"search_compare.py: {rest[0]} needs a checkpoint (a number of trials)\n{usage}")
        at[rest[0]] = int(rest[1])
        rest = rest[2:]
    if not rest:
        raise SystemExit(usage)
    if best and "+" not in a:
        raise SystemExit(f"search_compare.py: --best picks among several samplers: give A as A1+A2+...\n{usage}")
    runs, _, problems, samplers = read(rest)
    checkpoints = sorted({c for (_, _, c) in runs})
    c = at.get("--at", max(checkpoints))
    cb = at.get("--against", c)
    parts = a.split("+")
    for name, point in [(s, c) for s in parts] + [(b, cb)]:
        if not any(k[1] == name and k[2] == point for k in runs):
            raise SystemExit(f"search_compare.py: no results of {name} after {point} trials in these files "
                             f"(samplers: {', '.join(samplers)}; checkpoints: {', '.join(map(str, checkpoints))})")
    alone = []
    if len(parts) > 1:
        alone = [Comparison(runs, problems, s, b, c, cb) for s in parts]
        for p, seeds in pool(runs, parts, c, best).items():
            runs[(p, a, c)] = seeds
    cmp = Comparison(runs, problems, a, b, c, cb)
    print(cmp.line(f"{a} after {c} trials against {b} after {cb}"))
    for p, r in cmp.rows.items():
        if r.worse or r.better:
            print(f"  {p:32s} {r.ratio:9.3g}x  {'worse' if r.worse else 'better'}  p {r.p:.3f}")
    if alone:
        some = {p for x in alone for p in x.worse()}
        print(f"each alone significantly worse on: {', '.join(f'{s} {len(x.worse())}' for s, x in zip(parts, alone))}; "
              f"at least one of them on {len(some)}, all of them on {len(set.intersection(*(set(x.worse()) for x in alone)))}")
    return cmp


def keep(argv):
    """--keep OUT.jsonl.xz paths...: the lines read() would use, one per problem, sampler and seed."""
    if len(argv) < 2 or not argv[0].endswith(".jsonl.xz"):
        raise SystemExit("usage: search_compare.py --keep OUT.jsonl.xz FILE_OR_DIR...")
    read(argv[1:])  # refuses what is not a result line, naming it
    rows = {}
    files = []
    for p in argv[1:]:
        files += sorted(glob.glob(os.path.join(p, "*.jsonl*"))) if os.path.isdir(p) else [p]
    for path in files:
        with (lzma.open(path, "rt") if path.endswith(".xz") else open(path)) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    rows[(r["problem"], r["sampler"], int(r["seed"]))] = r
    with lzma.open(argv[0], "wt") as out:
        for r in rows.values():
            r["seconds"] = round(r.get("seconds", 0.0), 3)
            out.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"search_compare.py: {len(rows)} results in {argv[0]}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    if len(sys.argv) > 1 and sys.argv[1] == "--ab":
        ab(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--keep":
        keep(sys.argv[2:])
        return
    runs, seconds, problems, samplers = read(sys.argv[1:])
    order = [s for s in ("tune-bayes", "tune-bayes-8", "tune-bayes-32", "tune-tpe", "tune-cmaes", "tune-random", "optuna-tpe",
                         "optuna-cmaes", "optuna-random", "optuna-tpe-8") if s in samplers]
    order += [s for s in samplers if s not in order]
    checkpoints = sorted({c for (_, _, c) in runs})
    aims_at = max(checkpoints)  # the set's trial budget
    print(f"paired by seed; two-sided Wilcoxon signed-rank on log10 regret, p < {ALPHA}; effect size: the median "
          f"per-seed regret ratio (W: significantly worse, B: better; the second figure is p)")
    verdicts = {}
    for c in checkpoints:
        comps = {
            "calibration": Comparison(runs, problems, "tune-tpe", TPE, c),
            "bayes/TPE": Comparison(runs, problems, "tune-bayes", TPE, c),
            "8/1 runners": Comparison(runs, problems, "tune-bayes-8", "tune-bayes", c),
            "32/1 runners": Comparison(runs, problems, "tune-bayes-32", "tune-bayes", c),
        }
        print(f"\nmedian regret after {c} trials (0 = the optimum), and paired comparisons")
        shown = [k for k, v in comps.items() if v]
        print(f"{'problem':32s}" + "".join(f"{s:>14s}" for s in order) + "".join(f"{k:>17s}" for k in shown))
        for p in problems:
            row = f"{p:32s}"
            for s in order:
                v = runs.get((p, s, c))
                row += f"{statistics.median(v.values()):14.4g}" if v else f"{'-':>14s}"
            for k in shown:
                row += " " + verdict_cell(comps[k].rows.get(p))
            print(row)
        print(f"at {c} trials:")
        labels = {"calibration": "  calibration, tune's tpe against Optuna's TPE (one algorithm)",
                  "bayes/TPE": "  bayes against Optuna's TPE",
                  "8/1 runners": "  bayes, 8 asynchronous runners against 1",
                  "32/1 runners": "  bayes, 32 asynchronous runners against 1"}
        for k in shown:
            print(comps[k].line(labels[k]))
        verdicts[c] = comps
    print("\nseconds per study (mean): " + ", ".join(f"{s} {statistics.mean(seconds[s]):.2f}" for s in order))

    comps = verdicts[aims_at]
    print(f"\naims at {aims_at} trials (read each against the calibration row):")

    def aim(text, ok, figures):
        print(f"  {text}: {figures} -> {'met' if ok else 'NOT met'}")

    cal = comps["calibration"]
    if cal:
        # "About 5%": a test at p < 0.05 calls one algorithm against itself
        # different on Binomial(problems, 0.05) problems; up to its 95th
        # percentile is what chance alone does.
        k, n = len(cal.worse()) + len(cal.better()), len(cal.rows)
        aim("calibration: tune's tpe and Optuna's TPE significantly different on about 5% of problems or fewer",
            k <= chance_bound(n), f"{k} of {n} ({100 * k / n:.0f}%; chance alone makes up to {chance_bound(n)} "
            f"of {n} in 95% of runs)")
    bt = comps["bayes/TPE"]
    if bt:
        w = bt.worse()
        big = [p for p in w if bt.rows[p].ratio > 3]
        aim("bayes significantly worse than Optuna's TPE on at most 5% of problems, none by a median ratio above 3",
            bt.share(w) <= 0.05 and not big,
            f"worse on {len(w)} of {len(bt.rows)} ({100 * bt.share(w):.0f}%), above 3x on {len(big)}"
            + (f" ({', '.join(big)})" if big else ""))
        b = bt.better()
        aim("bayes significantly better than Optuna's TPE on at least half", bt.share(b) >= 0.5,
            f"better on {len(b)} of {len(bt.rows)} ({100 * bt.share(b):.0f}%)")
        noisy = [p for p in bt.rows if severe_noise(p)]
        bad = [p for p in noisy if bt.rows[p].worse]
        if noisy:
            aim("on each severe-noise problem, bayes not significantly worse than Optuna's TPE", not bad,
                f"worse on {len(bad)} of {len(noisy)}" + (f" ({', '.join(bad)})" if bad else ""))
        best = oracle(runs, problems, samplers, aims_at)
        won = [p for p, who in best.items() if who]
        print(f"  (reference) the best of the {len(samplers)} samplers measured, chosen per problem in hindsight "
              f"({', '.join(s for s in order if s != TPE)}): some sampler significantly better than Optuna's TPE "
              f"on {len(won)} of {len(best)} ({100 * len(won) / len(best):.0f}%); bayes on {len(b)} of those "
              f"{len(won)}")
    par = comps["8/1 runners"]
    if par:
        w = par.worse()
        aim("8 asynchronous runners significantly worse than 1 on at most 10%", par.share(w) <= 0.10,
            f"worse on {len(w)} of {len(par.rows)} ({100 * par.share(w):.0f}%)")
    if comps["32/1 runners"]:
        print(comps["32/1 runners"].line("  (reported) 32 runners against 1"))
    # What the 8-runner aim is measured against: an asynchronous TPE (the
    # same trial budget, 8 in flight), and 8 runners against one runner given
    # fewer trials (half, or the nearest checkpoint below), i.e. at least that
    # speed-up in wall-clock time.
    cma = Comparison(runs, problems, "tune-cmaes", "optuna-cmaes", aims_at)
    if cma:
        print(cma.line("  (reference) a second calibration, tune's cmaes against Optuna's CMA-ES (one algorithm)"))
    tpe8 = Comparison(runs, problems, "tune-tpe-8", "tune-tpe", aims_at)
    if tpe8:
        print(tpe8.line("  (reference) tune's tpe, 8 asynchronous runners against 1"))
    otpe8 = Comparison(runs, problems, "optuna-tpe-8", TPE, aims_at)
    if otpe8:
        print(otpe8.line("  (reference) Optuna's TPE with its constant liar, 8 asynchronous runners against 1"))
    fewer = [c for c in checkpoints if c <= aims_at // 2]
    if fewer and par:
        half = Comparison(runs, problems, "tune-bayes-8", "tune-bayes", aims_at, max(fewer))
        w = half.worse()
        aim(f"(proposed) 8 runners after {aims_at} trials significantly worse than 1 runner after {max(fewer)} "
            f"(a {aims_at / max(fewer):.3g}x speed-up at least) on at most 10%", half.share(w) <= 0.10,
            half.line("8 runners").split(": ", 1)[1])


if __name__ == "__main__":
    main()
