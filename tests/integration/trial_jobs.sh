#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Trial jobs (tune run/submit --trial-jobs) on the deployed configuration
# (sched/tune + select/cons_tres_gang): 2-GPU trials and a 2-node trial see
# exactly their own GPUs and nodes; the AppCore killed with -9 and resumed
# (every trial finished exactly once); a trial job scancelled and one on a
# node set DOWN are re-run; a forged connection is refused; a study stops at
# its target leaving no job, another ends itself once converged (--converged);
# population-based training runs each segment as a trial job;
# two studies under sched/tune: the plateaued
# study's pending trial jobs are passed by the other's.
source "$(dirname "$0")/tap.sh"
plan 11
user_tools  # $tune and $programs, reachable by the test users
studies_setup
# 5 CPUs a node: one 4-CPU trial job and one AppCore job fit side by side.
# Every node a host of its own (--hosts), as on a real cluster.
deployed_cluster_up trial_jobs 17750 --hosts --nodes 4 --cpus 5 --memory 5000 --gpus 4 --sched-conf "$work/sched_tune.conf"
cd "$work" || exit 1
cp "$TOP_SRCDIR/examples/synthetic/branin.json" .
cat >where.sh <<'SH'
#!/bin/bash
# Each task notes where it runs and what it sees; task 0 reports x1 after $TRIAL_SLEEP s.
echo "task=${SLURM_PROCID:-0} node=$SLURMD_NODENAME job=$SLURM_JOB_ID gpus=${CUDA_VISIBLE_DEVICES:-none} nodes=${SLURM_JOB_NUM_NODES:-?} leak=${SLURM_TUNE_TEST_LEAK:-none}" >>"$TUNE_TRIAL_DIR/where"
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
# A signal (scancel, a node set DOWN) may reach sleep before this shell: a
# program stopped mid-run reports nothing.
sleep "${TRIAL_SLEEP:-1}" || exit 143
if [ -n "${TUNE_REPORT_FD:-}" ]; then echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
else echo "objective=$TUNE_PARAM_x1" >>"$TUNE_REPORT_FILE"; fi
SH
chmod 755 where.sh
chmod 644 branin.json

# 1. 2-GPU trials through tune submit --trial-jobs (the AppCore is a job of its own, 1 CPU, no GPU).
# A SLURM_ variable planted in the AppCore job's environment must not reach the trial jobs.
out=$(SLURM_TUNE_TEST_LEAK=1 "$tune" submit --trial-jobs --name gpus --space branin.json --trials 4 --parallel 2 --gpus-per-trial 2 --seed 1 -- ./where.sh 2>&1)
appcore=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
wait_job "$appcore" 120
seen=$(cat gpus.trials/*/where 2>/dev/null)
appcore_tres=$(grep -c "gpu" <<<"$(scontrol show job "$appcore" 2>/dev/null | grep -i tres)")
if [ "$(count_final gpus.h5)" -eq 4 ] && [ "$(grep -c 'gpus=[0-9],[0-9] ' <<<"$seen")" -eq 4 ] &&
   [ "$(grep -c 'leak=none' <<<"$seen")" -eq 4 ] && [ "$appcore_tres" -eq 0 ]; then
  ok "tune submit --trial-jobs: 4 trial jobs of 2 GPUs each ($(awk '{print $2 "/" $4}' <<<"$seen" | paste -sd' ')), the AppCore without GPU, no SLURM_ variable of the AppCore's job in theirs"
else not_ok "2-GPU trial jobs" "$out" "$seen" "$(tail -5 gpus-"$appcore".out 2>&1)"; fi

# 2. A 2-node, 2-task trial: srun starts the program on both nodes; reports come through TUNE_REPORT_FILE.
out=$("$tune" run --trial-jobs --space branin.json --trials 2 --parallel 1 --nodes-per-trial 2 --tasks-per-trial 2 --slurm-poll 1s --history multi.h5 -- ./where.sh 2>&1)
nodes0=$(awk '{print $2}' multi.trials/0/where 2>/dev/null | sort -u | paste -sd' ')
if [ "$(count_final multi.h5)" -eq 2 ] && [ "$(wc -w <<<"$nodes0")" -eq 2 ] && [ "$(grep -c 'nodes=2' multi.trials/0/where)" -eq 2 ]; then
  ok "a 2-node trial job runs its program on both of its nodes ($nodes0) and reports its objective"
else not_ok "2-node trial" "$out" "$(cat multi.trials/*/where 2>&1)"; fi

# 3. kill -9 of the AppCore mid-study, then --resume: running trial jobs are adopted; every trial once.
export TRIAL_SLEEP=4
"$tune" run --trial-jobs --space branin.json --trials 8 --parallel 3 --slurm-poll 1s --history killed.h5 -- ./where.sh >killed1.log 2>&1 &
core=$!
for _ in $(seq 1 100); do [ "$(squeue -h -t R -n killed.trial | wc -l)" -ge 2 ] && break; sleep 0.1; done
sleep 1
kill -9 $core; wait $core 2>/dev/null
orphans=$(squeue -h -n killed.trial | wc -l)
resumed=$("$tune" run --trial-jobs --resume --trials 8 --parallel 3 --slurm-poll 1s --history killed.h5 -- ./where.sh 2>&1)
if [ "$(count_final killed.h5)" -eq 8 ] && [ "$(ids_twice killed.h5)" -eq 0 ] && grep -q "adopted [1-9]" <<<"$resumed" &&
   [ -z "$(squeue -h -n killed.trial)" ]; then
  ok "AppCore killed with -9 ($orphans trial jobs alive), resumed: $(grep -o 'adopted [0-9]* trial job(s)' <<<"$resumed"), 8 trials each finished exactly once"
else not_ok "kill -9 and resume" "$(cat killed1.log)" "$resumed" "$("$tune" export killed.h5 --csv)"; fi

# 4. One trial job scancelled, one on a node set DOWN: both trials run again with the same parameters.
TRIAL_SLEEP=10 "$tune" run --trial-jobs --space branin.json --trials 4 --parallel 3 --slurm-poll 1s --history lost.h5 -- ./where.sh >lost.log 2>&1 &
core=$!
# Wait until three trials have started in their jobs (a job that runs but has
# not yet been handed a trial loses none when it ends), then take two of them.
bound_jobs() { cat lost.trials/*/where 2>/dev/null | sed -n 's/.* node=\([^ ]*\) job=\([0-9]*\) .*/\2 \1/p' | sort -n; }
for _ in $(seq 1 300); do [ "$(bound_jobs | wc -l)" -ge 3 ] && break; sleep 0.1; done
read -r cancelled _ < <(bound_jobs | head -1)
read -r downed down_node < <(bound_jobs | sed -n 2p)
scancel "$cancelled"
scontrol update nodename="$down_node" state=down reason=tune-test
wait $core
scontrol update nodename="$down_node" state=resume 2>/dev/null
rerun=$("$tune" export lost.h5 --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(1 for t in d["trials"] if t["state"] == "ok"))' 2>&1)
if [ "$rerun" = 4 ] && grep -q "trial job $cancelled ended CANCELLED" lost.log && grep -q "trial job $downed ended NODE_FAIL" lost.log &&
   [ -z "$(squeue -h -n lost.trial)" ]; then
  ok "scancel (job $cancelled) and a node set DOWN ($down_node, job $downed): both trials ran again, 4 ok"
else not_ok "lost trial jobs re-run (cancelled ${cancelled:-none}, downed ${downed:-none} on ${down_node:-none}, $rerun ok, left: $(squeue -h -n lost.trial -o %i | paste -sd' '))" "$(cat lost.log)"; fi

# 5. A forged connection (an older tune's hello with a wrong secret, a numeric type, garbage, an
# oversized frame) is refused; the study goes on (channel_attacks.sh attacks it as another user).
TRIAL_SLEEP=3 "$tune" run --trial-jobs --space branin.json --trials 3 --parallel 3 --slurm-poll 1s --history forged.h5 -- ./where.sh >forged.log 2>&1 &
core=$!
for _ in $(seq 1 50); do [ -s forged.channel ] && break; sleep 0.1; done
mode=$(stat -c %a forged.channel)
/usr/bin/python3 - forged.channel <<'PY'
import json, socket, struct, sys
c = json.load(open(sys.argv[1]))
for body in [json.dumps({"type": "hello", "secret": "0" * 64, "job": 1}).encode(), b'{"type": 1}', b"not json", None]:
    s = socket.create_connection(("127.0.0.1", c["port"]))
    s.sendall(struct.pack(">I", 50_000_000) if body is None else struct.pack(">I", len(body)) + body)
    s.settimeout(5)
    try: s.recv(10)
    except OSError: pass
    s.close()
PY
wait $core; rc=$?
if [ $rc -eq 0 ] && [ "$mode" = 600 ] && [ "$(grep -c 'refused a connection' forged.log)" -eq 4 ] && [ "$(count_final forged.h5)" -eq 3 ]; then
  ok "channel file mode $mode; an old tune's hello, a numeric type, garbage and a 50 MB frame refused and logged; the study finished its 3 trials"
else not_ok "forged connections" "rc=$rc mode=$mode" "$(cat forged.log)"; fi
unset TRIAL_SLEEP

# 6. A study that reaches its target: pending trial jobs cancelled, none left in squeue.
# Bayesian search: its model proposes on a worker while the loop serves the other jobs.
sbatch -n 20 -o /dev/null --wrap 'sleep 4' >/dev/null  # the queue waits a moment: jobs pend
out=$("$tune" run --trial-jobs --algo bayes --seed 1 --space branin.json --trials 40 --parallel 6 --target -4.8 --slurm-poll 1s --history target.h5 -- ./where.sh 2>&1)
sleep 1
left=$(squeue -h -n target.trial)
if grep -q "target reached" <<<"$out" && [ -z "$left" ] && [ "$(count_final target.h5)" -lt 40 ]; then
  ok "the study stopped at its target after $(count_final target.h5) ok trials; no trial job left in squeue"
else not_ok "stop at target, nothing left" "$out" "left: $left"; fi

# 6b. --converged in trial-jobs mode, on a recorded training table (it
# plateaus below its budget): the study ends itself, says so in tune status,
# and leaves no trial job in squeue.
cp "$TOP_SRCDIR/bench/programs/table_curve.py" "$TOP_SRCDIR/data/workloads/digits-mlp4.json" "$TOP_SRCDIR/data/workloads/space.json" .
out=$(TABLE_EPOCH=0 "$tune" run --trial-jobs --seed 3 --space space.json --trials 60 --parallel 4 --direction max --converged 0.02 \
  --slurm-poll 1s --history conv.h5 -- ./table_curve.py digits-mlp4.json 2>&1)
sleep 1
left=$(squeue -h -n conv.trial)
status=$("$tune" status conv.h5 2>&1)
if grep -q "study 'conv' converged: the [0-9]* trials left" <<<"$out" && [ -z "$left" ] && [ "$(count_final conv.h5)" -lt 60 ] &&
   grep -q "^ended: *converged:" <<<"$status"; then
  ok "--converged ended the study of trial jobs after $(count_final conv.h5) of 60 trials; no trial job left in squeue"
else not_ok "--converged with trial jobs" "$out" "left: $left" "$status"; fi

# 6c. Population-based training with trial jobs (the PBT paper's toy): every
# segment a job of its own, starting from its member's or a better member's
# checkpoint (copied across trial jobs), to its step limit; no trial job and
# no checkpoint left once the study has ended.
cp "$TOP_SRCDIR/bench/programs/pbt_toy.py" "$TOP_SRCDIR/bench/programs/pbt_toy.json" .
out=$(TOY_STEPS=40 "$tune" run --trial-jobs --seed 4 --space pbt_toy.json --trials 9 --parallel 2 --direction max \
  --prune-metric q --algo pbt --population 3 --pbt-interval 4 --slurm-poll 1s --history pbt.h5 -- ./pbt_toy.py 2>&1)
sleep 1
left=$(squeue -h -n pbt.trial)
lineage=$("$tune" export pbt.h5 --csv | /usr/bin/python3 -c "
import csv, sys
rows = list(csv.DictReader(sys.stdin))
by = {int(r['id']): r for r in rows}
bad = [r['id'] for r in rows if r['state'] != 'ok' or r['member'] == '' or
       (int(r['id']) >= 3 and (r['from'] == '' or int(r['step_limit']) != int(by[int(r['from'])]['last_step']) + 4))]
print('%d trials, best q %s; %s' % (len(rows), max(float(r['objective']) for r in rows if r['objective']),
                                   'bad: ' + ' '.join(bad) if bad else 'ok'))
")
kept=$(find pbt.trials -name checkpoint.json 2>/dev/null | wc -l)
if grep -q "^9 trials, best q .*; ok$" <<<"$lineage" && [ -z "$left" ] && [ "$kept" -eq 0 ]; then
  ok "pbt with trial jobs: $lineage; no trial job and no checkpoint left"
else not_ok "pbt with trial jobs" "$out" "lineage: $lineage" "left: $left" "checkpoints: $kept"; fi

# 7. Bad input: no readable slurm.conf (nothing created), a partition Slurm refuses (named, nothing left).
noconf=$(SLURM_CONF=/nonexistent/slurm.conf "$tune" run --trial-jobs --space branin.json --trials 2 --history noconf.h5 -- ./where.sh 2>&1); rc1=$?
badpart=$("$tune" run --trial-jobs --space branin.json --trials 2 -p nosuch --history badpart.h5 -- ./where.sh 2>&1); rc2=$?
if [ $rc1 -eq 1 ] && grep -q "no Slurm cluster is reachable: SLURM_CONF names /nonexistent/slurm.conf, which is not a file" <<<"$noconf" && grep -q "set SLURM_CONF" <<<"$noconf" && [ ! -e noconf.h5 ] &&
   [ $rc2 -eq 1 ] && grep -q "Slurm refused a trial job: Invalid partition name specified; check --partition" <<<"$badpart" &&
   [ -z "$(squeue -h -n badpart.trial)" ]; then
  ok "no slurm.conf: refused before a history exists; an unknown partition: Slurm's reason and the flag to fix, exit 1"
else not_ok "bad input to --trial-jobs" "rc $rc1: $noconf" "rc $rc2: $badpart"; fi

# 8-9. Two studies under sched/tune. bob's is plateaued and keeps 16 trial jobs
# (4 running, 12 pending); alice's starts later. Her trial jobs pass bob's older
# pending ones; nothing is signalled or requeued.
cat >flat.json <<'JSON'
{"parameters": [{"name": "x1", "type": "bound", "value": [1.0, 1.001]}]}
JSON
cat >improving.json <<'JSON'
{"parameters": [{"name": "x1", "type": "number", "value": [100, 90, 70, 40, 10, 1, 0.5, 0.1]}]}
JSON
chmod 644 flat.json improving.json
as "$bob" "TRIAL_SLEEP=3 $tune submit --trial-jobs --name flat --space flat.json --trials 80 --parallel 16 --cpus-per-trial 4 --mem-per-trial 500M -A physics -- $work/where.sh" >bob.out 2>&1
for _ in $(seq 1 300); do
  level=$(trial_study_level "$bob")
  [ "${level:-0}" -ge 1 ] && [ "$(squeue -h -u "$bob" -t PD -n flat.trial | wc -l)" -ge 8 ] && break
  sleep 0.2
done
as "$alice" "TRIAL_SLEEP=3 $tune submit --trial-jobs --name improving --algo grid --space improving.json --trials 8 --parallel 4 --cpus-per-trial 4 --mem-per-trial 500M -A bio -- $work/where.sh" >alice.out 2>&1
# Once alice's first trial job exists, bob's pending trial jobs submitted before
# it would start first in submission order (FIFO); under sched/tune they wait.
first=
for _ in $(seq 1 300); do first=$(squeue -h -u "$alice" -n improving.trial -o %i | sort -n | head -1); [ -n "$first" ] && break; sleep 0.1; done
older=$(squeue -h -u "$bob" -t PD -n flat.trial -o %i | awk -v f="${first:-0}" '$1 < f' | paste -sd' ')
# Nor may a trial job bob's AppCore submits after alice's first (the successor
# of a trial that ended) take a freed slot before it: a job new since the last
# pass must wait below every job sched/tune has ordered.
passed=no still=0 newer_ran=
for _ in $(seq 1 300); do
  newer_ran+=$(squeue -h -u "$bob" -t R -n flat.trial -o %i | awk -v f="${first:-0}" '$1 > f {printf " %s", $1}')
  if [ -n "$(squeue -h -u "$alice" -t R -n improving.trial)" ]; then
    for j in $older; do [ "$(squeue -h -j "$j" -o %T 2>/dev/null)" = PENDING ] && still=$((still + 1)); done
    [ $still -gt 0 ] && passed=yes
    break
  fi
  sleep 0.2
done
queue=$(as "$alice" "$tune queue 2>&1")
if [ $passed = yes ] && [ -z "$newer_ran" ] && [ "${level:-0}" -ge 1 ] && grep -q "study flat-.* of $bob: .*yield level [1-9]" <<<"$queue"; then
  ok "alice's first trial job ($first) started while $still of bob's older pending trial jobs ($older) waited and none of bob's newer ones had run (bob's study at yield level $level)"
else not_ok "the plateaued study's pending trial jobs are passed" "passed=$passed level=$level first=$first older=$older bob's newer jobs that ran first:$newer_ran" "$queue"; fi
diag "$queue"
scancel -u "$bob" -n flat 2>/dev/null  # bob's AppCore: cancelling it ends its study
for _ in $(seq 1 450); do [ -z "$(squeue -h -u "$alice")" ] && [ -z "$(squeue -h -u "$bob")" ] && break; sleep 0.4; done
log=$CLUSTER_DIR/log/slurmctld.log
if [ "$(count_final improving.h5)" -eq 8 ] && ! grep -q "study yields" "$log" && [ -z "$(squeue -h -u "$alice")" ] &&
   [ -z "$(squeue -h -u "$bob")" ]; then
  ok "alice's study finished its 8 trials; no job was signalled to yield or requeued; bob's cancelled AppCore left no trial job"
else not_ok "alice's study under sched/tune" "$(cat improving-*.out 2>&1 | tail -5)" "$(cat flat-*.out 2>&1 | tail -5)" "$(grep 'study yields' "$log")" "$(squeue)"; fi
