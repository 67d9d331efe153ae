# SPDX-License-Identifier: GPL-2.0-or-later
"""tune export's CSV and Optuna journal, read with Debian's pandas and Optuna.

Prints TAP. Studies run locally (tune run without mpirun: the AppCore runs
the trials itself), in a scratch directory.
"""
import collections
import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings

warnings.simplefilter("ignore")  # Optuna's JournalStorage is "experimental" in 3.1
import optuna  # noqa: E402
import pandas  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)
TUNE = os.environ["TUNE"]
n = 0
failed = 0


def ok(cond, name, *diag):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok"), n, "-", name)
    if not cond:
        failed += 1
        for d in diag:
            for line in str(d).splitlines():
                print("#", line)


def tune(*args, check=True):
    r = subprocess.run([TUNE, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("tune %s: %s%s" % (" ".join(args), r.stdout, r.stderr))
    return r.stdout


SPACE = """{"parameters": [
 {"name": "x", "type": "bound", "value": [0, 1]},
 {"name": "n", "type": "int", "value": [1, 4]},
 {"name": "lr", "type": "bound", "value": [0.001, 0.1], "log": true},
 {"name": "opt", "type": "choice", "value": ["sgd", "adam"]},
 {"name": "width", "type": "number", "value": [8, 16, 32]}
]}"""
# Trial 3 fails; the curves fall with the step, later trials' worse, so the
# median rule prunes some.
PROGRAM = textwrap.dedent("""\
    #!/bin/bash
    r=$TUNE_REPORT_FD
    [ "$TUNE_TRIAL_ID" = 3 ] && exit 2
    for s in 1 2 3 4; do
      echo "step=$s val_loss=$(python3 -c "print(($TUNE_PARAM_x + 0.1 * $TUNE_TRIAL_ID) * (5 - $s))")" >&$r
      sleep ${SLEEP:-0}
    done
    echo "loss=$TUNE_PARAM_x latency=$TUNE_PARAM_n objective=$TUNE_PARAM_x" >&$r
    """)


def status_counts(text):
    m = re.search(r"^trials: +\d+ \(([^)]*)\)", text, re.M)
    counts = collections.Counter()
    for part in m.group(1).split(", ") if m else []:
        k, state = part.split(" ", 1)
        counts[state] = int(k)
    return counts


def optuna_study(journal):
    storage = optuna.storages.JournalStorage(optuna.storages.JournalFileStorage(journal))
    return optuna.load_study(study_name=None, storage=storage)


with tempfile.TemporaryDirectory() as work:
    os.chdir(work)
    with open("space.json", "w") as f:
        f.write(SPACE)
    with open("train.sh", "w") as f:
        f.write(PROGRAM)
    os.chmod("train.sh", 0o755)
    common = ["--space", "space.json", "--trials", "10", "--seed", "1", "--prune", "median", "--prune-metric", "val_loss"]
    tune("run", "--history", "two.h5", "--objective", "loss,latency", "--direction", "min,min", *common, "--", "./train.sh")
    tune("run", "--history", "one.h5", "--direction", "min", *common, "--", "./train.sh")

    for h in ("two.h5", "one.h5"):
        status = tune("status", h)
        counts = status_counts(status)
        trials = pandas.read_csv(io.StringIO(tune("export", h, "--csv")))
        curves = pandas.read_csv(io.StringIO(tune("export", h, "--curves")))
        tune("export", h, "--optuna", "-o", h + ".journal")
        study = optuna_study(h + ".journal")
        by_state = collections.Counter(t.state.name for t in study.trials)
        # 1. pandas: the columns the guide documents, a row per trial and per report.
        want = {"id", "state", "objective", "x", "n", "lr", "opt", "width", "start_time", "end_time", "wall_time",
                "rank", "host", "exit_code", "signal", "peak_rss_kb", "last_step", "message"}
        if h == "two.h5":
            want |= {"loss", "latency"}
        ok(want <= set(trials.columns) and len(trials) == 10 and
           dict(trials["state"].value_counts()) == dict(counts) and
           list(curves.columns) == ["trial", "step", "time", "metric", "value"] and
           (curves["metric"] == "val_loss").sum() >= 10 and curves["trial"].isin(trials["id"]).all(),
           "%s: pandas reads the trials CSV (%d rows, states %s as tune status says) and the curves CSV (%d reports)"
           % (h, len(trials), dict(counts), len(curves)), trials.columns.tolist(), status, curves.head())
        # 2. Optuna: the same counts of complete, pruned and failed trials as tune status.
        ok(counts["failed"] >= 1 and counts["pruned"] >= 1 and
           by_state == {"COMPLETE": counts["ok"], "PRUNED": counts["pruned"], "FAIL": counts["failed"]},
           "%s: optuna.load_study: %s, tune status: %s" % (h, dict(by_state), dict(counts)), status)
        # 3. The best: tune status's best trial or Pareto front, Optuna's best_trial(s).
        if h == "one.h5":
            best = int(re.search(r"^best: +trial (\d+)", status, re.M).group(1))
            ok(study.direction == optuna.study.StudyDirection.MINIMIZE and study.best_trial.number == best and
               study.best_trial.user_attrs["tune_id"] == best,
               "one.h5: Optuna's best trial is tune's (trial %d), direction minimize" % best, status)
        else:
            front = sorted(int(m) for m in re.findall(r"^  (\d+) ", status.split("front:", 1)[1], re.M))
            ok([d.name for d in study.directions] == ["MINIMIZE", "MINIMIZE"] and
               sorted(t.number for t in study.best_trials) == front,
               "two.h5: Optuna's best trials are tune's Pareto front %s, both directions minimize" % front, status)
        # 4. Distributions, parameters and intermediate values as Optuna's own.
        t = next(t for t in study.trials if t.state.name == "PRUNED")
        row = trials[trials["id"] == t.number].iloc[0]
        dist = t.distributions
        ok(isinstance(dist["x"], optuna.distributions.FloatDistribution) and dist["lr"].log and
           isinstance(dist["n"], optuna.distributions.IntDistribution) and
           dist["opt"].choices == ("sgd", "adam") and dist["width"].choices == (8.0, 16.0, 32.0) and
           t.params["opt"] == row["opt"] and abs(t.params["x"] - row["x"]) < 1e-12 and t.intermediate_values and
           study.user_attrs["tune_intermediate_metric"] == "val_loss",
           "%s: a pruned trial's distributions, parameters and val_loss curve %s" % (h, t.intermediate_values),
           t, row)
    # 5. Optuna's plots and dataframe on the journal (what optuna-dashboard shows).
    two, one = optuna_study("two.h5.journal"), optuna_study("one.h5.journal")
    import optuna.visualization as vis
    figs = [vis.plot_pareto_front(two), vis.plot_optimization_history(one), vis.plot_intermediate_values(one),
            vis.plot_param_importances(one)]
    frame = one.trials_dataframe()
    ok(all(f.data for f in figs) and len(frame) == 10 and "params_lr" in frame.columns,
       "Optuna's Pareto front, history, intermediate values and importance plots and trials_dataframe work")
    # 6. The guide's snippet: a history read while its study runs.
    env = dict(os.environ, SLEEP="0.3")
    run = subprocess.Popen([TUNE, "run", "--history", "live.h5", "--space", "space.json", "--trials", "6", "--seed", "2",
                            "--", "./train.sh"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = []
    deadline = time.time() + 60
    while run.poll() is None and time.time() < deadline:
        if os.path.exists("live.h5"):
            # <!-- snippet: reading a running study -->
            out = subprocess.run([TUNE, "export", "live.h5", "--csv"], capture_output=True, text=True, check=True)
            df = pandas.read_csv(io.StringIO(out.stdout))
            done = df[df["state"] == "ok"]
            # <!-- /snippet -->
            seen.append((len(df), len(done)))
        time.sleep(0.2)
    run.wait(timeout=60)
    final = pandas.read_csv(io.StringIO(tune("export", "live.h5", "--csv")))
    ok(run.returncode == 0 and any(0 < d < 5 for _, d in seen) and len(final) == 6 and
       (final["state"] == "ok").sum() == 5,
       "tune export --csv read into pandas while the study runs: %d reads, ok trials seen %s; the study finished "
       "its 6 trials (5 ok, trial 3 fails by design)"
       % (len(seen), sorted({d for _, d in seen})), seen, final)

print("1..%d" % n)
sys.exit(1 if failed else 0)
