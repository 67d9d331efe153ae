#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The yield on real Slurm, with accounting, under priority/multifactor and
# site_factor/tune with the default estimator, on studies of the project's
# recorded training tables (data/workloads, served by
# bench/programs/table_curve.py): the workload "ceiling" of
# bench/simulate_studies.sh at the size of a test. sprio is sampled every
# second while the studies run.
#   1. bob's study has a target above its model's ceiling (cancer-mlp16,
#      0.99: its best, 0.982, is tied by many runs); alice's, submitted
#      after it, a target its model meets after tens of trials
#      (digits-mlp32, 0.98). bob's pending trial jobs fall below alice's
#      once his results have stopped moving, before his budget ends and
#      while alice still has trials to run; alice's are never lowered. The
#      lag from bob's last improvement to that is measured and shown.
#   2. Two identical studies (alice's again, for alice and bob): neither is
#      lowered, both meet their target.
#   3. One study alone (bob's plateaued one): it runs its whole budget, each
#      trial once, and leaves nothing in the queue.
source "$(dirname "$0")/tap.sh"
plan 3
user_tools
studies_setup
# The plugins' defaults (the tail estimator), judged every second, never
# relaxed within the test.
cat >"$work/site_factor_tune.conf" <<'CONF'
interval = 1;
adaptive = { thresholds = [0.01]; relax_time = 3600; };
CONF
# Fair share off and one partition weight for every job, as in
# site_factor.sh: without the SITE term the older jobs (bob's) start first.
cluster_up yield_in_time 17890 --accounting --site-factor site_factor/tune --site-conf "$work/site_factor_tune.conf" \
  --nodes 4 --cpus 5 --memory 5000 \
  --conf PriorityWeightFairshare=0 --conf PriorityWeightPartition=100000
cd "$work" || exit 1
cp "$TOP_SRCDIR/bench/programs/table_curve.py" "$TOP_SRCDIR/data/workloads/space.json" \
  "$TOP_SRCDIR/data/workloads/cancer-mlp16.json" "$TOP_SRCDIR/data/workloads/digits-mlp32.json" .
chmod 755 table_curve.py && chmod 644 ./*.json

# submit USER NAME TABLE TARGET TRIALS: a study of 1-CPU-node trial jobs (4
# CPUs each: one per node), 4 at a time, random search with seed 2 (whose
# cancer-mlp16 study finds its final best at its first trial and whose
# digits-mlp32 one meets 0.98 at its 23rd), each epoch 0.1 s (EPOCH=S: S).
submit() {
  as "$1" "TABLE_EPOCH=${EPOCH:-0.1} $tune submit --trial-jobs --name $2 --space space.json --algo random --seed 2 \
    --trials $5 --target $4 --direction max --parallel 4 --cpus-per-trial 4 --mem-per-trial 300M \
    -A $([ "$1" = "$bob" ] && echo physics || echo bio) -- $work/table_curve.py $work/$3.json"
}
# sample FILE: every second until stopped, each pending trial job as sprio
# shows it: TIME USER JOBID SITE PRIORITY.
sample() {
  while :; do
    local t; t=$(date +%s.%N)
    sprio -h -o '%u %i %S %Y' 2>/dev/null | awk -v t="$t" '{print t, $0}' >>"$1"
    sleep 1
  done
}
quiet() { [ -z "$(squeue -h -u "$alice")" ] && [ -z "$(squeue -h -u "$bob")" ]; }
# judge STUDY.h5 SAMPLES USER: from the history and the samples, the study's
# results, its last improvement (results then), its first lowering (results
# then, from the first sample with one of USER's pending jobs below 0), and
# whether USER's pending jobs were then all below every other user's.
judge() {
  "$tune" export "$1" --csv 2>/dev/null | /usr/bin/python3 -c '
import csv, sys
samples, user = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(sys.stdin) if r["state"] == "ok"]
rows.sort(key=lambda r: float(r["end_time"]))
best, last, last_t = None, 0, 0
for i, r in enumerate(rows, 1):
    v = float(r["objective"])
    if best is None or v > best: best, last, last_t = v, i, float(r["end_time"])
by_time = {}
for line in open(samples):
    t, u, j, site, prio = line.split()
    by_time.setdefault(t, []).append((u, int(site), int(prio)))
first, below = "-", "no"
for t in sorted(by_time, key=float):
    mine = [p for u, s, p in by_time[t] if u == user and s < 0]
    if not mine: continue
    if first == "-": first = sum(1 for r in rows if float(r["end_time"]) <= float(t))
    others = [p for u, s, p in by_time[t] if u != user]
    if others:
        below = "yes" if max(p for u, s, p in by_time[t] if u == user) < min(others) else "no"
        break
print(len(rows), last, first, below)' "$2" "$3"
}
lowered() { awk -v u="$2" '$2 == u && $4 < 0 {n++} END {print n + 0}' "$1"; }
ok_trials() { "$tune" export "$1" --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok"' | wc -l; }
once() { "$tune" export "$1" --csv 2>/dev/null | awk -F, 'NR > 1 {print $1}' | sort | uniq -d | wc -l; }

# 1. Plateau first, then a study that needs tens of trials.
sample s1.txt & sampler=$!
submit "$bob" ceiling cancer-mlp16 0.99 30 >bob1.out 2>&1
wait_until 60 bash -c "[ -n \"\$(squeue -h -u $bob -n ceiling.trial)\" ]"
# alice's epochs take twice bob's: bob is lowered at one of his results (his
# 20th) and alice ends at hers (her 23rd), and on a loaded machine her
# results must not outrun his, or nobody is left for his jobs to fall below.
EPOCH=0.2 submit "$alice" rising digits-mlp32 0.98 40 >alice1.out 2>&1
wait_until 600 quiet || diag "$(squeue)"
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
read -r bob_n bob_last bob_first bob_below <<<"$(judge ceiling.h5 s1.txt "$bob")"
alice_low=$(lowered s1.txt "$alice")
alice_best=$("$tune" status rising.h5 2>&1 | grep -i -m1 "best")
if [ "${bob_first:--}" != - ] && [ "$bob_first" -lt "$bob_n" ] && [ "$bob_below" = yes ] && [ "$alice_low" -eq 0 ] &&
   [ "$bob_n" -eq 30 ] && [ "$(once ceiling.h5)" -eq 0 ] && grep -q "0.98" <<<"$alice_best" && quiet; then
  ok "bob's plateaued study (final best at its result $bob_last) lowered at its result $bob_first of $bob_n: $((bob_first - bob_last)) results after its last improvement, its pending trial jobs below alice's; alice's never lowered, she met her target ($alice_best)"
else not_ok "the plateaued study falls below the improving one" "bob: $bob_n results, last improvement at $bob_last, first lowered at $bob_first, below alice's: $bob_below" \
  "alice's samples below 0: $alice_low; $alice_best" "$(tail -20 s1.txt)" "$(cat bob1.out alice1.out)"; fi

# 2. Identical studies: alice's improving study, for both.
sample s2.txt & sampler=$!
submit "$alice" twin_a digits-mlp32 0.98 40 >alice2.out 2>&1
submit "$bob" twin_b digits-mlp32 0.98 40 >bob2.out 2>&1
wait_until 600 quiet || diag "$(squeue)"
kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
low=$(($(lowered s2.txt "$alice") + $(lowered s2.txt "$bob")))
a=$("$tune" status twin_a.h5 2>&1 | grep -i -m1 "best") b=$("$tune" status twin_b.h5 2>&1 | grep -i -m1 "best")
if [ "$low" -eq 0 ] && [ -s s2.txt ] && grep -q "0.98" <<<"$a" && grep -q "0.98" <<<"$b" && quiet; then
  ok "two identical improving studies: neither lowered in $(wc -l <s2.txt) samples of their pending jobs; both met their target"
else not_ok "identical studies" "samples below 0: $low" "alice: $a" "bob: $b" "$(head -20 s2.txt)"; fi

# 3. One study alone: the plateaued one, nobody else waiting.
submit "$bob" alone cancer-mlp16 0.99 30 >bob3.out 2>&1
wait_until 600 quiet || diag "$(squeue)"
n=$(ok_trials alone.h5)
if [ "$n" -eq 30 ] && [ "$(once alone.h5)" -eq 0 ] && quiet; then
  ok "one plateaued study alone ran its whole budget (30 trials, each once) and left no job"
else not_ok "one study alone" "ok trials: $n, run twice: $(once alone.h5)" "$(cat bob3.out)" "$(squeue)"; fi
