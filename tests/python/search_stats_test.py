#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The search benchmark's paired statistic (bench/search_stats.py) against
published critical values of Wilcoxon's signed-rank test, and its handling
of ties, floors and seeds; and how the summary (bench/search_compare.py)
reads results and pairs checkpoints. Prints TAP."""
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ.get("TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                                "bench"))
import search_compare as sc  # noqa: E402
import search_stats as st  # noqa: E402


def ranks_with_negatives(n, negative):
    """Differences 1..n with the ranks in `negative` negative: T- = their sum."""
    return [-r if r in negative else r for r in range(1, n + 1)]


class SignedRank(unittest.TestCase):
    def test_critical_values_of_the_table(self):
        # Two-sided alpha 0.05: reject when T <= 2 for n = 7, T <= 8 for n = 10,
        # T <= 25 for n = 15 (the standard table of critical values, e.g.
        # Siegel, Nonparametric Statistics, Table G).
        self.assertLess(st.signed_rank_p(ranks_with_negatives(10, {1, 7})), 0.05)       # T = 8
        self.assertGreater(st.signed_rank_p(ranks_with_negatives(10, {2, 7})), 0.05)    # T = 9
        self.assertLess(st.signed_rank_p(ranks_with_negatives(7, {2})), 0.05)           # T = 2
        self.assertGreater(st.signed_rank_p(ranks_with_negatives(7, {3})), 0.05)        # T = 3
        self.assertLess(st.signed_rank_p(ranks_with_negatives(15, {1, 2, 3, 4, 15})), 0.05)     # T = 25
        self.assertGreater(st.signed_rank_p(ranks_with_negatives(15, {1, 2, 3, 5, 15})), 0.05)  # T = 26

    def test_darwins_plants(self):
        # Darwin's Zea mays pairs (Fisher, The Design of Experiments): exact two-sided p = 0.0413.
        d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75]
        self.assertAlmostEqual(st.signed_rank_p(d), 0.041259765625, places=9)

    def test_five_seeds_can_never_be_significant(self):
        # The smallest two-sided p with 5 pairs is 2/32: why the aims need 10 seeds.
        self.assertAlmostEqual(st.signed_rank_p([1, 2, 3, 4, 5]), 0.0625)
        self.assertEqual(st.signed_rank_p([0, 0, 0]), 1.0)


class Calibration(unittest.TestCase):
    def test_what_chance_alone_makes_significant(self):
        # Binomial(59, 0.05): P(X <= 5) = 0.92, P(X <= 6) = 0.97.
        self.assertEqual(st.chance_bound(59), 6)
        self.assertEqual(st.chance_bound(20), 3)
        self.assertEqual(st.chance_bound(1), 0)  # one problem: P(not significant) = 0.95


class Paired(unittest.TestCase):
    def test_worse_better_and_the_effect_size(self):
        base = {s: 1.0 + s for s in range(10)}
        worse = {s: 10 * v for s, v in base.items()}
        r = st.paired(worse, base)
        self.assertEqual(r.seeds, 10)
        self.assertTrue(r.worse)
        self.assertFalse(r.better)
        self.assertAlmostEqual(r.ratio, 10.0)
        self.assertEqual(r.verdict, "worse")
        b = st.paired(base, worse)
        self.assertTrue(b.better)
        self.assertAlmostEqual(b.ratio, 0.1)

    def test_regrets_below_the_floor_tie(self):
        a = {s: 1e-12 for s in range(10)}
        b = {s: 1e-15 for s in range(10)}
        r = st.paired(a, b)
        self.assertEqual(r.p, 1.0)
        self.assertEqual(r.verdict, "-")

    def test_mixed_signs_are_not_significant(self):
        a = {s: 1.0 for s in range(10)}
        b = {s: (2.0 if s % 2 else 0.5) for s in range(10)}
        self.assertEqual(st.paired(a, b).verdict, "-")

    def test_only_common_seeds_are_paired(self):
        r = st.paired({0: 1.0, 1: 2.0, 7: 3.0}, {1: 1.0, 7: 1.0, 9: 5.0})
        self.assertEqual(r.seeds, 2)
        with self.assertRaises(ValueError):
            st.paired({0: 1.0}, {1: 1.0})


class Summary(unittest.TestCase):
    @staticmethod
    def lines(problem, sampler, regrets_by_seed):
        return "".join(json.dumps({"problem": problem, "sampler": sampler, "seed": seed, "regret": regrets})
                       + "\n" for seed, regrets in regrets_by_seed.items())

    def test_a_later_line_replaces_an_earlier_one_and_pieces_combine(self):
        with tempfile.TemporaryDirectory() as d:
            old, new = os.path.join(d, "a_tune.jsonl"), os.path.join(d, "b_tune.jsonl")
            with open(old, "w") as f:
                f.write(self.lines("p", "tune-bayes", {0: {"100": 5.0}, 1: {"100": 6.0}}))
            with open(new, "w") as f:
                f.write(self.lines("p", "tune-bayes", {1: {"100": 1.0}}) + self.lines("q", "tune-tpe", {0: {"100": 2.0}}))
            runs, _, problems, samplers = sc.read([d])
            self.assertEqual(runs[("p", "tune-bayes", 100)], {0: 5.0, 1: 1.0})
            self.assertEqual(problems, ["p", "q"])
            self.assertEqual(samplers, ["tune-bayes", "tune-tpe"])
            with open(os.path.join(d, "c_tune.jsonl"), "w") as f:
                f.write('{"problem": "p"}\n')
            with self.assertRaises(SystemExit) as e:
                sc.read([d])
            self.assertIn("c_tune.jsonl:1: not a result line", str(e.exception))

    def test_8_runners_against_1_at_fewer_trials(self):
        # 8 runners: 4x one runner's regret at the same budget, 0.8x of one runner's after half of it.
        one_50 = {s: 10.0 + s for s in range(10)}
        one_100 = {s: 1.0 + s / 10 for s in range(10)}
        runs = {("p", "tune-bayes", 50): one_50, ("p", "tune-bayes", 100): one_100,
                ("p", "tune-bayes-8", 100): {s: 4 * v for s, v in one_100.items()}}
        same = sc.Comparison(runs, ["p"], "tune-bayes-8", "tune-bayes", 100)
        self.assertEqual(same.worse(), ["p"])
        half = sc.Comparison(runs, ["p"], "tune-bayes-8", "tune-bayes", 100, 50)
        self.assertEqual(half.worse(), [])
        self.assertEqual(half.better(), ["p"])
        self.assertAlmostEqual(half.rows["p"].ratio, statistics.median(
            [4 * one_100[s] / one_50[s] for s in range(10)]))

    def test_ab_compares_two_samplers_or_two_checkpoints(self):
        # p: b at half of a's regret on every seed; q: a tie; one sampler at two checkpoints.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x_tune.jsonl")
            with open(path, "w") as f:
                f.write(self.lines("p", "a", {s: {"100": 2.0 + s, "50": 9.0 + s} for s in range(10)})
                        + self.lines("p", "b", {s: {"100": 1.0 + s / 2} for s in range(10)})
                        + self.lines("q", "a", {s: {"100": 1.0 + s} for s in range(10)})
                        + self.lines("q", "b", {s: {"100": (1.0 + s) * (2 if s % 2 else 0.5)} for s in range(10)}))
            with contextlib.redirect_stdout(io.StringIO()) as out:
                cmp = sc.ab(["a", "b", path])
            self.assertEqual((cmp.worse(), cmp.better()), (["p"], []))
            self.assertIn("a after 100 trials against b after 100: 2 problems", out.getvalue())
            self.assertIn("worse  p 0.002", out.getvalue())
            with contextlib.redirect_stdout(io.StringIO()):
                cmp = sc.ab(["a", "a", "--at", "50", "--against", "100", path])
            self.assertEqual(cmp.worse(), ["p"])
            with self.assertRaises(SystemExit) as e:
                sc.ab(["a", "b", "--at", "50", path])
            self.assertIn("no results of b after 50 trials", str(e.exception))
            with self.assertRaises(SystemExit) as e:
                sc.ab(["a", "b", "--at", "x", path])
            self.assertIn("--at needs a checkpoint", str(e.exception))

    def test_ab_pools_several_rules_by_their_geometric_mean(self):
        # p: a1 at 2x and a2 at 8x b's regret on every seed, pooled 4x (worse);
        # each alone is worse on p too. q: a1 at 4x or a quarter by turns, a2
        # equal to b: pooled 2x or half by turns, neither worse nor better.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x_tune.jsonl")
            b = {s: 1.0 + s for s in range(10)}
            with open(path, "w") as f:
                for problem, k1, k2 in (("p", lambda s: 2, 8), ("q", lambda s: 4 if s % 2 else 0.25, 1)):
                    f.write(self.lines(problem, "b", {s: {"100": v} for s, v in b.items()})
                            + self.lines(problem, "a1", {s: {"100": k1(s) * v} for s, v in b.items()})
                            + self.lines(problem, "a2", {s: {"100": k2 * v} for s, v in b.items()}))
            with contextlib.redirect_stdout(io.StringIO()) as out:
                cmp = sc.ab(["a1+a2", "b", path])
            self.assertEqual((cmp.worse(), cmp.better()), (["p"], []))
            self.assertAlmostEqual(cmp.rows["p"].ratio, 4.0, places=6)
            self.assertIn("each alone significantly worse on: a1 1, a2 1; at least one of them on 1, all of them on 1",
                          out.getvalue())
            with self.assertRaises(SystemExit) as e:
                sc.ab(["a1+a3", "b", path])
            self.assertIn("no results of a3 after 100 trials", str(e.exception))

    def test_ab_best_takes_each_seeds_best_rule(self):
        # p: on odd seeds a1 at 16x b's regret and a2 at a quarter, on even
        # ones a1 at half and a2 equal: the typical rule (2x and 0.71x by
        # turns) ties b, the best of the two (a quarter and a half by turns)
        # is better. q: both at 3x everywhere, worse however they are pooled.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x_tune.jsonl")
            b = {s: 1.0 + s for s in range(10)}
            with open(path, "w") as f:
                for problem, k1, k2 in (("p", lambda s: 16 if s % 2 else 0.5, lambda s: 0.25 if s % 2 else 1),
                                        ("q", lambda s: 3, lambda s: 3)):
                    f.write(self.lines(problem, "b", {s: {"100": v} for s, v in b.items()})
                            + self.lines(problem, "a1", {s: {"100": k1(s) * v} for s, v in b.items()})
                            + self.lines(problem, "a2", {s: {"100": k2(s) * v} for s, v in b.items()}))
            with contextlib.redirect_stdout(io.StringIO()):
                typical = sc.ab(["a1+a2", "b", path])
                best = sc.ab(["a1+a2", "b", "--best", path])
            self.assertEqual((typical.worse(), typical.better()), (["q"], []))
            self.assertEqual((best.worse(), best.better()), (["q"], ["p"]))
            self.assertAlmostEqual(best.rows["p"].ratio, 0.375, places=6)
            with self.assertRaises(SystemExit) as e:
                sc.ab(["a1", "b", "--best", path])
            self.assertIn("--best picks among several samplers", str(e.exception))

    def test_the_oracle_counts_a_problem_some_sampler_wins(self):
        # p: cmaes at a tenth of TPE's regret on every seed; q: everyone ties
        # TPE or loses; r: no TPE result, so not judged.
        tpe = {s: 1.0 + s for s in range(10)}
        runs = {("p", "optuna-tpe", 100): tpe, ("q", "optuna-tpe", 100): tpe,
                ("p", "optuna-cmaes", 100): {s: v / 10 for s, v in tpe.items()},
                ("p", "tune-bayes", 100): dict(tpe),
                ("q", "optuna-cmaes", 100): {s: v * 10 for s, v in tpe.items()},
                ("q", "tune-bayes", 100): {s: v * (2 if s % 2 else 0.5) for s, v in tpe.items()},
                ("r", "tune-bayes", 100): {s: 0.0 for s in range(10)}}
        best = sc.oracle(runs, ["p", "q", "r"], ["optuna-tpe", "optuna-cmaes", "tune-bayes"], 100)
        self.assertEqual(best, {"p": ["optuna-cmaes"], "q": []})

    def test_the_oracle_skips_a_sampler_run_on_other_seeds(self):
        # A piece run on seeds 10-19 beside TPE's results on seeds 0-9 (a
        # summary read with files of both seed sets) is not compared.
        tpe = {s: 1.0 + s for s in range(10)}
        runs = {("p", "optuna-tpe", 100): tpe,
                ("p", "optuna-cmaes", 100): {s: v / 10 for s, v in tpe.items()},
                ("p", "tune-bayes-8", 100): {s + 10: 0.0 for s in range(10)}}
        best = sc.oracle(runs, ["p"], ["optuna-tpe", "optuna-cmaes", "tune-bayes-8"], 100)
        self.assertEqual(best, {"p": ["optuna-cmaes"]})


class Tap(unittest.TextTestResult):
    count = 0

    def addSuccess(self, test):
        Tap.count += 1
        print(f"ok {Tap.count} - {test.id().split('.', 1)[1]}")

    def addFailure(self, test, err):
        Tap.count += 1
        print(f"not ok {Tap.count} - {test.id().split('.', 1)[1]}\n# " + self._exc_info_to_string(err, test).replace("\n", "\n# "))

    addError = addFailure


if __name__ == "__main__":
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    print(f"1..{suite.countTestCases()}")
    result = unittest.TextTestRunner(stream=open(os.devnull, "w"), resultclass=Tap).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
