# SPDX-License-Identifier: GPL-2.0-or-later
"""The paired statistic of the search benchmark (bench/search_compare.py).

Two samplers run on the same problem with the same seeds (the same noise
draws): pair their regrets by seed and compare log10(regret + floor) with a
two-sided Wilcoxon signed-rank test (scipy). A pair of samplers is
"significantly worse" or "better" on a problem at p < ALPHA, with the median
of the per-seed regret ratios as the effect size.

Regrets use a floor of 1e-8 (COCO's final target precision): two regrets
below it are a tie, and a seed whose two regrets tie adds nothing to the
test (Wilcoxon's own treatment of zero differences).
"""
import math
import statistics
from dataclasses import dataclass

from scipy.stats import binom, wilcoxon

FLOOR = 1e-8
ALPHA = 0.05


@dataclass
class Paired:
    """One problem, sampler a against sampler b over the seeds both ran."""
    seeds: int         # seeds both samplers ran
    p: float           # two-sided Wilcoxon signed-rank p-value (1 when every seed ties)
    ratio: float       # median over seeds of a's regret / b's (the effect size)

    @property
    def worse(self):   # a significantly worse than b
        return self.p < ALPHA and self.ratio > 1

    @property
    def better(self):  # a significantly better than b
        return self.p < ALPHA and self.ratio < 1

    @property
    def verdict(self):
        return "worse" if self.worse else "better" if self.better else "-"


def log_regret(r):
    return math.log10(r + FLOOR)


def signed_rank_p(differences):
    """Two-sided p of Wilcoxon's signed-rank test on paired differences
    (zeros dropped; exact distribution when there are no ties, as scipy
    chooses); 1.0 when nothing is left to rank."""
    d = [x for x in differences if x != 0]
    if not d:
        return 1.0
    return float(wilcoxon(d, alternative="two-sided").pvalue)


def paired(a, b):
    """a, b: {seed: regret}. Compares them on the seeds both have."""
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("no seed in common")
    diffs = [0.0 if a[s] <= FLOOR and b[s] <= FLOOR else log_regret(a[s]) - log_regret(b[s]) for s in common]
    ratio = statistics.median((a[s] + FLOOR) / (b[s] + FLOOR) for s in common)
    return Paired(len(common), signed_rank_p(diffs), ratio)


def chance_bound(problems, level=0.95):
    """How many of `problems` comparisons of one algorithm with itself come out
    significant by chance at most, in `level` of benchmark runs: the
    `level` quantile of Binomial(problems, ALPHA). The calibration row is
    judged against it."""
    return int(binom.ppf(level, problems, ALPHA))
