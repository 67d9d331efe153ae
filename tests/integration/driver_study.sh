#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tune run with real mpirun and real processes: outcomes of misbehaving trials,
# bad input, kill -9 at random moments, and a signal followed by --resume.
source "$(dirname "$0")/tap.sh"
plan 27
tune=$TOP_BUILDDIR/driver/tune
behave=$TOP_SRCDIR/tests/integration/programs/behave.sh
branin=$TOP_SRCDIR/examples/synthetic/branin.py
work=$TOP_BUILDDIR/tests/integration/driver_study.run
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
  OMPI_MCA_btl_tcp_if_include=127.0.0.1/8 OMPI_MCA_oob_tcp_if_include=127.0.0.1/8
mpi() { timeout 300 mpirun --oversubscribe -np "$@"; }
state_of() { # history -> "id:state" lines
  "$tune" export "$1" --csv | awk -F, 'NR > 1 {print $1 ":" $2}'
}
has_ok() { state_of "$1" 2>/dev/null | grep -q ':ok$'; }

# 1. Four ranks: rank 0 searches, three runners share 12 trials.
out=$(mpi 4 "$tune" run --history branin.h5 --space "$TOP_SRCDIR/examples/synthetic/branin.json" --trials 12 --seed 5 -q -- "$branin" 2>&1)
ranks=$("$tune" export branin.h5 --csv | awk -F, 'NR > 1 && $2 == "ok" {print $9}' | sort -u | paste -sd' ')
if [ "$(state_of branin.h5 | grep -c ':ok$')" -eq 12 ] && [ "$ranks" = "1 2 3" ]; then ok "mpirun -np 4: 12 trials ok, run by runner ranks $ranks"
else not_ok "mpirun -np 4: 12 trials ok on ranks 1-3" "$out" "ranks: $ranks"; fi

# 2. h5py and h5dump read the history (the documented schema).
py=$(/usr/bin/python3 -c "
import h5py
f = h5py.File('branin.h5', 'r')
t = f['trials']
print(f.attrs['format'].decode(), len(t), sorted(t.dtype['params'].names), int((f['reports']['metric'] == b'loss').sum()))" 2>&1)
if [ "$py" = "tune-history 12 ['x1', 'x2'] 60" ] && h5dump -d /trials branin.h5 >/dev/null; then ok "h5py and h5dump read the history ($py)"
else not_ok "h5py and h5dump read the history" "$py"; fi

# 3. Every kind of bad trial is a recorded outcome and the study goes on.
cat >modes.json <<'J'
{"parameters": [{"name": "mode", "type": "choice", "value": ["ok", "crash", "exit3", "hang", "garbage", "nan", "noobj"]},
                {"name": "x", "type": "number", "value": [7]}]}
J
out=$(mpi 3 "$tune" run --history modes.h5 --space modes.json --algo grid --trial-time-limit 2s --grace 1s -q -- "$behave" 2>&1); rc=$?
got=$(state_of modes.h5 | paste -sd' ')
expect="0:ok 1:failed 2:failed 3:timeout 4:invalid 5:invalid 6:invalid"
if [ $rc -eq 0 ] && [ "$got" = "$expect" ]; then ok "ok, crash, exit 3, hang, garbage, NaN, no objective: $got"
else not_ok "each misbehaviour is its own recorded outcome" "exit $rc" "got:    $got" "expect: $expect" "$out"; fi
msgs=$("$tune" export modes.h5 --json | /usr/bin/python3 -c "import json,sys; print('|'.join(t['message'] for t in json.load(sys.stdin)['trials']))")
case $msgs in
  *"killed by SIGSEGV"*"exit code 3"*"exceeded the trial time limit of 2 s"*"malformed report line"*"objective is nan"*"reported no objective"*)
    ok "each outcome says why in its message" ;;
  *) not_ok "each outcome says why in its message" "$msgs" ;;
esac
if pgrep -f 'sleep 1001' >/dev/null; then not_ok "a timed-out trial's whole process group is gone" "$(pgrep -af 'sleep 1001')"
else ok "a timed-out trial's whole process group is gone"; fi

# 4. A program that always fails stops the study, saying so.
out=$("$tune" run --history broken.h5 --space modes.json --max-failures 3 --trials 50 -- /bin/false 2>&1); rc=$?
if [ $rc -eq 3 ] && grep -q "the last 3 trials all failed; the program looks broken" <<<"$out" && [ "$(state_of broken.h5 | wc -l)" -eq 3 ]; then
  ok "--max-failures 3 stops a broken program after 3 trials, exit 3"
else not_ok "--max-failures stops a broken program" "exit $rc" "$out"; fi

# 5. --metric-regex reads the objective of a program that cannot be changed; {x} fills argv.
cat >one.json <<'J'
{"parameters": [{"name": "x", "type": "int", "value": [1, 3]}]}
J
out=$("$tune" run --history regex.h5 --space one.json --algo grid --metric-regex 'val_acc: ([0-9.]+)' -q -- \
  /bin/sh -c 'echo "epoch 1 val_acc: 0.$1"; echo "epoch 2 val_acc: 0.$1"5' sh '{x}' 2>&1)
objs=$("$tune" export regex.h5 --csv | awk -F, 'NR > 1 {print $3}' | paste -sd' ')
if [ "$objs" = "0.15 0.25 0.35" ]; then ok "--metric-regex takes the last match; {x} reaches argv ($objs)"
else not_ok "--metric-regex takes the last match; {x} reaches argv" "$objs" "$out"; fi

# 5b. A C program speaks the protocol through client/c/tune_report.h.
cat >c_trial.c <<'C'
#include "tune_report.h"
int main(void) {
  double x = tune_param_double("x", -1);
  for (long step = 1; step <= 3; ++step) tune_report(step, "loss", x / step);
  tune_objective(x * 10);
  return 0;
}
C
if cc -Wall -Wextra -Werror -I"$TOP_SRCDIR/client/c" -o c_trial c_trial.c 2>cc.err; then
  "$tune" run --history c.h5 --space one.json --algo grid -q -- ./c_trial >/dev/null 2>&1
  objs=$("$tune" export c.h5 --csv | awk -F, 'NR > 1 {print $3}' | paste -sd' ')
  steps=$("$tune" export c.h5 --json | /usr/bin/python3 -c "import json,sys; print(len(json.load(sys.stdin)['reports']))")
  if [ "$objs" = "10 20 30" ] && [ "$steps" = 12 ]; then ok "a C trial using tune_report.h reports steps and its objective ($objs)"
  else not_ok "a C trial using tune_report.h reports" "$objs / $steps reports"; fi
else not_ok "a C trial using tune_report.h compiles cleanly" "$(cat cc.err)"; fi

# 6. Bad input gets a message naming it, and nothing is created.
printf '{"parameters": [\n {"name": "lr", "type": "bound", "value": [1, 0]}]}\n' >bad.json
m1=$("$tune" run --history bad.h5 --space bad.json -- true 2>&1); r1=$?
m2=$("$tune" run --history bad2.h5 --space one.json -- echo '{y}' 2>&1); r2=$?
m3=$("$tune" run --history branin.h5 --space one.json -- true 2>&1); r3=$?
m4=$("$tune" run --history nothere.h5 --resume -- true 2>&1); r4=$?
m5=$("$tune" run --history noprog.h5 --space one.json -- no-such-program-xyz 2>&1); r5=$?
if [ $r1 -eq 1 ] && grep -q "bad.json: parameter 'lr': low must be below high" <<<"$m1" && [ ! -e bad.h5 ] &&
   [ $r2 -eq 1 ] && grep -q "names {y}, which is not a parameter" <<<"$m2" && [ ! -e bad2.h5 ] && [ ! -e noprog.h5 ] &&
   [ $r3 -eq 1 ] && grep -q "already holds a study; continue it with --resume" <<<"$m3" &&
   [ $r4 -eq 1 ] && grep -q "no such history file" <<<"$m4" &&
   [ $r5 -eq 1 ] && grep -q "the program 'no-such-program-xyz' is not on PATH" <<<"$m5"; then
  ok "bad space, unknown placeholder, existing or missing history, missing program: named, exit 1, no history left behind"
else not_ok "bad input gets a message naming it" "$m1" "$m2" "$m3" "$m4" "$m5"; fi

# 7. kill -9 at random moments, then --resume: nothing completed is lost or run twice.
cat >slow.json <<'J'
{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}, {"name": "mode", "type": "choice", "value": ["slow"]},
                {"name": "sleep", "type": "number", "value": [0.15]}]}
J
problems=()
prev_ok=0
flags=(--history killed.h5 --space slow.json --trials 60 --seed 9 -q)
for i in $(seq 1 15); do
  resume=(); [ -e killed.h5 ] && resume=(--resume)
  "$tune" run "${flags[@]}" "${resume[@]}" -- "$behave" >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 6 + 1))"
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  now_ok=$(state_of killed.h5 2>/dev/null | grep -c ':ok$' || true)
  [ "$now_ok" -ge "$prev_ok" ] || problems+=("kill $i: ok trials went from $prev_ok to $now_ok")
  prev_ok=$now_ok
done
out=$("$tune" run "${flags[@]}" --resume -- "$behave" 2>&1); rc=$?
final=$(state_of killed.h5)
ids=$(cut -d: -f1 <<<"$final" | sort -n | uniq | wc -l)
oks=$(grep -c ':ok$' <<<"$final" || true)
objs=$("$tune" export killed.h5 --csv | awk -F, 'NR > 1 {print $4}' | sort | uniq -d | wc -l)
if [ $rc -eq 0 ] && [ ${#problems[@]} -eq 0 ] && [ "$ids" -eq 60 ] && [ "$oks" -eq 60 ] && [ "$objs" -eq 0 ]; then
  ok "15 kill -9 at random moments, then --resume: 60 distinct trials, all ok, none lost ($prev_ok were done before the last resume)"
else not_ok "kill -9 at random moments, then --resume" "exit $rc" "${problems[@]}" "ids $ids ok $oks duplicate params $objs" "$out"; fi

# 8. SIGUSR1 (Slurm's warning): drain, exit 75, and --resume finishes the study.
flags=(--history usr1.h5 --space slow.json --trials 24 --seed 2 -q)
sed -i 's/0.15/0.5/' slow.json
mpirun --oversubscribe -np 4 "$tune" run "${flags[@]}" -- "$behave" >usr1.out 2>&1 &
pid=$!
# Once a trial is done and others run, however long the start takes.
wait_until 120 has_ok usr1.h5 || diag "no trial ok in usr1.h5 after 120 s"
kill -USR1 $pid
wait $pid; rc=$?
before=$(state_of usr1.h5)
n_ok=$(grep -c ':ok$' <<<"$before" || true)
n_int=$(grep -c ':interrupted$' <<<"$before" || true)
if [ $rc -eq 75 ] && [ "$n_ok" -gt 0 ] && [ "$n_ok" -lt 24 ] && grep -q "run again with --resume" usr1.out; then
  ok "SIGUSR1 stops the study with exit 75 ($n_ok ok, $n_int interrupted)"
else not_ok "SIGUSR1 stops the study with exit 75" "exit $rc" "$before" "$(cat usr1.out)"; fi
out=$(mpi 4 "$tune" run "${flags[@]}" --resume -- "$behave" 2>&1); rc=$?
after=$(state_of usr1.h5)
kept=$(comm -12 <(grep ':ok$' <<<"$before" | sort) <(sort <<<"$after") | wc -l)
if [ $rc -eq 0 ] && [ "$(grep -c ':ok$' <<<"$after")" -eq 24 ] && [ "$kept" -eq "$n_ok" ] && [ "$(wc -l <<<"$after")" -eq 24 ]; then
  ok "--resume after the signal: 24 trials ok, the $n_ok done before kept, none repeated"
else not_ok "--resume after the signal finishes the study" "exit $rc" "$after" "$out"; fi

# 9. SIGTERM to a single-process study: the same drain, exit 75.
sed -i 's/0.5/0.3/' slow.json
"$tune" run --history term.h5 --space slow.json --trials 50 --seed 4 -q -- "$behave" >term.out 2>&1 &
pid=$!
wait_until 120 has_ok term.h5 || diag "no trial ok in term.h5 after 120 s"
kill -TERM $pid
wait $pid; rc=$?
st=$(state_of term.h5)
if [ $rc -eq 75 ] && grep -q ':interrupted$' <<<"$st" && ! grep -q ':running$' <<<"$st" && grep -q ':ok$' <<<"$st"; then
  ok "SIGTERM: the running trial is recorded interrupted, exit 75"
else not_ok "SIGTERM drains the study with exit 75" "exit $rc" "$st" "$(cat term.out)"; fi

# 10. tune simulate replays the history this test wrote (branin.h5, 12 real
# trials) as a study beside nothing else: its target is its own best, so it
# meets it under every policy; a bad key in --study names itself.
printf 'NodeName=n[1-2] CPUs=4 RealMemory=8000 Gres=gpu:2\nPartitionName=p Nodes=n[1-2] Default=YES\n' >sim.conf
best=$("$tune" export branin.h5 --json | /usr/bin/python3 -c "import json,sys; print(min(t['objective'] for t in json.load(sys.stdin)['trials'] if t['state'] == 'ok'))")
out=$("$tune" simulate --cluster sim.conf --study "branin.h5,target=$best,time-scale=60,gpus=1,parallel=2" \
  --priority fifo,tune --study-mode trials,whole 2>&1); rc=$?
reached=$(awk '/^STUDIES/ {on=1; next} /^(GPU SHARE|TIME TO TARGET)/ {on=0} on && $1 ~ /[+]/ {print $2}' <<<"$out" | sort -u | paste -sd' ')
bad=$("$tune" simulate --cluster sim.conf --study branin.h5,gpu=1 2>&1); bad_rc=$?
if [ $rc -eq 0 ] && [ "$reached" = "1/1" ] && grep -q "^study: branin.*12 trials, 2 at a time" <<<"$out" \
   && [ $bad_rc -eq 1 ] && grep -q "unknown key 'gpu'" <<<"$bad"; then
  ok "tune simulate --study replays the history: target met under fifo and tune, trial jobs and whole; a bad key named"
else not_ok "tune simulate --study replays the history" "exit $rc, reached '$reached'" "$out" "exit $bad_rc: $bad"; fi

# 11. --algo tpe through mpirun, and bayes on results that are nothing but
# noise: it says it hands its proposals to tpe, and the study still ends.
out=$(mpi 3 "$tune" run --history tpe.h5 --space "$TOP_SRCDIR/examples/synthetic/branin.json" --algo tpe --trials 20 --seed 2 -q -- "$branin" 2>&1); rc=$?
tpe_ok=$(state_of tpe.h5 | grep -c ':ok$')
cat >noise.py <<'PY'
#!/usr/bin/python3
import os, random
os.write(int(os.environ["TUNE_REPORT_FD"]), b"objective=%r\n" % random.gauss(0, 1))
PY
chmod +x noise.py
echo '{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}' >noise.json
noisy=$("$tune" run --history noisy.h5 --space noise.json --algo bayes --trials 30 --seed 1 -- ./noise.py {x} 2>&1); noisy_rc=$?
if [ $rc -eq 0 ] && [ "$tpe_ok" -eq 20 ] && grep -q "^study: .*(tpe search" <<<"$("$tune" status tpe.h5 2>&1)" \
   && [ $noisy_rc -eq 0 ] && grep -q "^tune: bayes: the results look too noisy .*proposing with tpe" <<<"$noisy" \
   && [ "$(state_of noisy.h5 | grep -c ':ok$')" -eq 30 ]; then
  ok "--algo tpe: 20 trials ok on 2 runners; bayes on pure noise says it proposes with tpe and finishes its 30 trials"
else not_ok "--algo tpe runs, bayes switches to tpe on noise" "exit $rc, $tpe_ok ok: $out" "exit $noisy_rc: $noisy" "$("$tune" status tpe.h5 2>&1)"; fi

# 12. bayes on 4 runners with trials shorter than its proposals: a runner
# that asks while the model proposes for another gets tpe's proposal at
# once (how many depends on the machine's speed; the unit tests pin the
# rule). Every trial is handed out once and ends ok; no runner is left waiting.
cat >bowl.sh <<'SH'
#!/bin/sh
awk -v a="$TUNE_PARAM_x1" -v b="$TUNE_PARAM_x2" -v c="$TUNE_PARAM_x3" 'BEGIN {print "objective=" (a-.3)^2 + (b-.6)^2 + (c-.1)^2}' >&"$TUNE_REPORT_FD"
SH
chmod +x bowl.sh
echo '{"parameters": [{"name": "x1", "type": "bound", "value": [0, 1]}, {"name": "x2", "type": "bound", "value": [0, 1]}, {"name": "x3", "type": "bound", "value": [0, 1]}]}' >bowl.json
out=$(mpi 5 "$tune" run --history bowl.h5 --space bowl.json --algo bayes --trials 60 --seed 4 -- ./bowl.sh 2>&1); rc=$?
st=$(state_of bowl.h5)
ids=$(cut -d: -f1 <<<"$st" | sort -n | uniq | paste -sd' ')
stood=$(sed -n "s/^tune: \([0-9]*\) of this run's trials were proposed by tpe while bayes was busy.*/\1/p" <<<"$out")
if [ $rc -eq 0 ] && [ "$(grep -c ':ok$' <<<"$st")" -eq 60 ] && [ "$ids" = "$(seq 0 59 | paste -sd' ')" ] \
   && [ "${stood:-0}" -le 53 ]; then
  ok "bayes on 4 runners with short trials: 60 trials once each, all ok; tpe stood in for ${stood:-0} while the model was busy"
else not_ok "bayes with a stand-in while its model proposes" "exit $rc" "$out" "$st"; fi

# 13. Warm starts through mpirun: bowl.h5's finished trials imported (not run
# again), two enqueued sets run first, then the model's own proposals; a bad
# enqueued value is named and leaves no history; resume with the same flags.
echo '[{"x1": 0.3, "x2": 0.6, "x3": 0.1}, {"x1": 0.5, "x2": 0.5, "x3": 0.5}]' >enq.json
echo '[{"x1": 0.3, "x2": 1.6, "x3": 0.1}]' >enq_bad.json
bad=$("$tune" run --history warm_bad.h5 --space bowl.json --trials 5 --enqueue enq_bad.json -- ./bowl.sh 2>&1); bad_rc=$?
out=$(mpi 3 "$tune" run --history warm.h5 --space bowl.json --algo bayes --trials 6 --seed 2 --warm-start bowl.h5 --enqueue enq.json -- ./bowl.sh 2>&1); rc=$?
csv=$("$tune" export warm.h5 --csv)
imported=$(awk -F, 'NR > 1 && $NF ~ /^imported from bowl.h5 trial/' <<<"$csv" | wc -l)
first=$(awk -F, 'NR == 62 {print $4 "," $5 "," $6}' <<<"$csv")
oks=$(awk -F, 'NR > 1 && $2 == "ok"' <<<"$csv" | wc -l)
again=$("$tune" run --history warm.h5 --resume --trials 8 --enqueue enq.json -q -- ./bowl.sh 2>&1); again_rc=$?
status=$("$tune" status warm.h5 2>&1)
if [ $bad_rc -eq 1 ] && grep -q "enq_bad.json: entry 1: parameter 'x2'" <<<"$bad" && [ ! -e warm_bad.h5 ] &&
   [ $rc -eq 0 ] && grep -q "imported 60 finished trial(s) of .*bowl.h5" <<<"$out" && [ "$imported" -eq 60 ] &&
   [ "$first" = "0.3,0.6,0.1" ] && [ "$oks" -eq 66 ] &&
   [ $again_rc -eq 0 ] && grep -q "^trials: *68 (68 ok)" <<<"$status" && grep -q "^imported: *trials 0-59 from .*bowl.h5" <<<"$status" &&
   grep -q "^enqueued: *trials 60-61" <<<"$status"; then
  ok "--warm-start imports 60 trials without running them, --enqueue's sets run first (trial 60 = the first set), a bad set is named; resumed to 8 more"
else not_ok "warm starts" "exit $bad_rc: $bad" "exit $rc: $out" "imported $imported, trial 60: $first" "exit $again_rc: $again" "$status"; fi

# 14. Trial checkpoints: the digits example checkpoints every epoch in
# TUNE_CHECKPOINT_DIR. Its study is stopped with SIGTERM mid-trial; on
# --resume the interrupted trial gets the same directory back, is told it was
# restored, and does only the remaining epochs. A finished trial's checkpoint
# directory is removed, unless --keep-checkpoints.
echo '{"parameters": [{"name": "lr", "type": "bound", "value": [0.05, 0.1]}]}' >digits.json
DIGITS_EPOCHS=60 "$tune" run --history digits.h5 --space digits.json --trials 1 --seed 1 -- "$TOP_SRCDIR/examples/digits/train.py" >digits1.out 2>&1 &
pid=$!
for _ in $(seq 1 2400); do grep -q "^epoch 5$" digits.trials/0/stdout 2>/dev/null && break; sleep 0.05; done
kill -TERM $pid; wait $pid; rc1=$?
before=$(grep -c '^epoch' digits.trials/0/stdout)
saved=$(ls digits.trials/0/checkpoint 2>&1)
DIGITS_EPOCHS=60 "$tune" run --history digits.h5 --resume --trials 1 -- "$TOP_SRCDIR/examples/digits/train.py" >digits2.out 2>&1; rc2=$?
from=$(sed -n 's/^restored from .*: continuing at epoch \([0-9]*\)$/\1/p' digits.trials/0/stdout)
after=$(grep -c '^epoch' digits.trials/0/stdout)
DIGITS_EPOCHS=3 "$tune" run --history kept.h5 --space digits.json --trials 2 --keep-checkpoints -- "$TOP_SRCDIR/examples/digits/train.py" >kept.out 2>&1; rc3=$?
# The program prints "epoch N", reports, then checkpoints epoch N: the signal
# can land before that checkpoint (the trial resumes at N) or after it (at
# N+1), and a write cut short leaves state.pt.tmp beside the last whole one.
if [ $rc1 -eq 75 ] && grep -qx "state.pt" <<<"$saved" && [ $rc2 -eq 0 ] && [ -n "$from" ] && [ "$from" -ge 5 ] && [ "$from" -le $((before + 1)) ] &&
   [ "$after" -eq $((60 - from + 1)) ] && [ "$(state_of digits.h5)" = "0:ok" ] && [ ! -e digits.trials/0/checkpoint ] &&
   [ $rc3 -eq 0 ] && [ -s kept.trials/0/checkpoint/state.pt ] && [ -s kept.trials/1/checkpoint/state.pt ]; then
  ok "a trial stopped after $before epochs resumed from its checkpoint at epoch $from and ran only the remaining $after; checkpoints removed once finished, kept with --keep-checkpoints"
else not_ok "trial checkpoints across an interruption" "exit $rc1, $before epochs, checkpoint: $saved" "$(cat digits1.out)" \
  "exit $rc2, restored at '${from}', $after epochs after" "$(cat digits2.out)" "$(head -3 digits.trials/0/stdout)" "exit $rc3: $(ls -R kept.trials 2>&1 | head)"; fi

# 15. A study that ends for good (here its target, reached while another trial
# runs) removes the interrupted trial's checkpoints too: it will not run again.
cat >fast_slow.json <<'JSON'
[{"lr": 0.1, "momentum": 0.9, "batch_size": 256, "hidden": 64, "weight_decay": 0.0001},
 {"lr": 0.1, "momentum": 0.9, "batch_size": 8, "hidden": 64, "weight_decay": 0.0001}]
JSON
out=$(DIGITS_EPOCHS=30 mpi 3 "$tune" run --history target.h5 --space "$TOP_SRCDIR/examples/digits/space.json" --trials 2 \
  --enqueue fast_slow.json --direction max --target 0.5 -- "$TOP_SRCDIR/examples/digits/train.py" 2>&1); rc=$?
epochs=$(grep -c '^epoch' target.trials/1/stdout 2>/dev/null)
left=$(ls -d target.trials/*/checkpoint 2>/dev/null)
if [ $rc -eq 0 ] && [ "$(state_of target.h5 | paste -sd' ')" = "0:ok 1:interrupted" ] && [ "${epochs:-0}" -ge 1 ] && [ -z "$left" ]; then
  ok "target reached while trial 1 ran ($epochs epochs checkpointed): the study ended and its checkpoints are gone"
else not_ok "checkpoints of a study that ended for good" "exit $rc" "$out" "$(state_of target.h5)" "epochs: $epochs" "left: $left"; fi

# 16. Conditional parameters: momentum and nesterov exist only with sgd,
# dampening only with nesterov=no (nested), beta2 only with adam. Each trial
# gets exactly its active parameters (environment and params.json), a
# placeholder of a conditional parameter is refused before a history exists,
# and readers see inactive values as absent (h5py: active false and NaN; CSV
# an empty cell; JSON null).
cat >cond.json <<'J'
{"parameters": [
  {"name": "optimizer", "type": "choice", "value": ["sgd", "adam"]},
  {"name": "lr", "type": "bound", "value": [0.0001, 1], "log": true},
  {"name": "momentum", "type": "bound", "value": [0, 0.99], "when": {"optimizer": ["sgd"]}},
  {"name": "nesterov", "type": "choice", "value": ["yes", "no"], "when": {"optimizer": ["sgd"]}},
  {"name": "dampening", "type": "bound", "value": [0, 0.5], "when": {"nesterov": ["no"]}},
  {"name": "beta2", "type": "number", "value": [0.99, 0.999], "when": {"optimizer": ["adam"]}}]}
J
cat >cond.py <<'P'
#!/usr/bin/python3
# Checks that the environment and params.json name the same parameters, the
# active ones, and reports an objective that prefers adam at lr 0.01.
import json, math, os
env = {k[len("TUNE_PARAM_"):]: v for k, v in os.environ.items() if k.startswith("TUNE_PARAM_")}
params = json.load(open(os.environ["TUNE_PARAMS_FILE"]))
want = {"optimizer", "lr"} | ({"momentum", "nesterov"} if env["optimizer"] == "sgd" else {"beta2"})
if env.get("nesterov") == "no":
    want.add("dampening")
ok = set(env) == want and set(params) == want
with open("seen.txt", "a") as f:
    f.write("%s %s\n" % ("ok" if ok else "WRONG", " ".join(sorted(env))))
y = abs(math.log10(float(env["lr"])) + 2) + (0 if env["optimizer"] == "adam" else 0.5 + float(env["momentum"]))
with os.fdopen(int(os.environ["TUNE_REPORT_FD"]), "w") as r:
    r.write("objective=%r\n" % y)
P
chmod +x cond.py
refused=$("$tune" run --history refused.h5 --space cond.json --trials 2 -- ./cond.py --m {momentum} 2>&1); refused_rc=$?
out=$(mpi 3 "$tune" run --history cond.h5 --space cond.json --trials 30 --algo bayes --seed 4 -q -- ./cond.py 2>&1); rc=$?
wrong=$(grep -c WRONG seen.txt); seen=$(wc -l <seen.txt)
branches=$(awk '{print $2 == "beta2" ? "adam" : "sgd"}' seen.txt | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')
py=$(/usr/bin/python3 -c "
import h5py, numpy as np
t = h5py.File('cond.h5', 'r')['trials'][:]
sgd = t['params']['optimizer'] == b'sgd'
a = t['active']
print(sorted(a.dtype.names), a['momentum'].dtype, bool((a['momentum'] == sgd).all() and (a['beta2'] == ~sgd).all()),
      bool(np.isnan(t['params']['momentum'][~sgd]).all() and np.isnan(t['params']['beta2'][sgd]).all()))" 2>&1)
csv_ok=$("$tune" export cond.h5 --csv | awk -F, 'NR > 1 && $4 == "adam" && $6 != "" {bad++} NR > 1 && $4 == "sgd" && $9 != "" {bad++} END {print bad + 0}')
json_ok=$("$tune" export cond.h5 --json | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
print(all((t['params']['beta2'] is None) == (t['params']['optimizer'] == 'sgd') for t in d['trials']))")
report=$("$tune" report cond.h5 2>&1)
if [ $refused_rc -eq 1 ] && grep -q "names {momentum}, but parameter 'momentum' exists only when optimizer is sgd" <<<"$refused" && [ ! -e refused.h5 ] &&
   [ $rc -eq 0 ] && [ "$seen" -eq 30 ] && [ "$wrong" -eq 0 ] && [ "$(state_of cond.h5 | grep -c ':ok$')" -eq 30 ] &&
   [ "$py" = "['beta2', 'dampening', 'momentum', 'nesterov'] bool True True" ] && [ "$csv_ok" = 0 ] && [ "$json_ok" = True ] &&
   grep -q "left out: momentum, nesterov, dampening, beta2" <<<"$report"; then
  ok "conditional parameters: 30 trials ($branches) each got exactly its active parameters; {momentum} refused before a history; h5py/CSV/JSON show inactive values as absent"
else not_ok "conditional parameters" "exit $refused_rc: $refused" "exit $rc: $out" "seen $seen, wrong $wrong: $(head -3 seen.txt)" "h5py: $py" "csv bad: $csv_ok json: $json_ok" "$report"; fi

# 17. Several objectives: --objective f1,f2 reads each trial's last f1= and
# f2= reports (ZDT1 here); the answer is the Pareto front (tune run's summary,
# tune status, tune report's chart, HDF5 and export); --target with a value
# per objective stops the study once one trial meets both.
cat >zdt.json <<'J'
{"parameters": [{"name": "x1", "type": "bound", "value": [0, 1]}, {"name": "x2", "type": "bound", "value": [0, 1]},
                {"name": "x3", "type": "bound", "value": [0, 1]}]}
J
cat >zdt1.py <<'P'
#!/usr/bin/python3
import math, os
x = [float(os.environ["TUNE_PARAM_x%d" % i]) for i in (1, 2, 3)]
g = 1 + 9 * (x[1] + x[2]) / 2
with os.fdopen(int(os.environ["TUNE_REPORT_FD"]), "w") as r:
    r.write("f1=%r\n" % x[0])
    r.write("f2=%r\n" % (g * (1 - math.sqrt(x[0] / g))))
P
chmod +x zdt1.py
out=$(mpi 3 "$tune" run --history zdt.h5 --space zdt.json --trials 30 --algo tpe --seed 3 --objective f1,f2 -- ./zdt1.py 2>&1); rc=$?
status=$("$tune" status zdt.h5 2>&1)
front_n=$(sed -n 's/^front: *\([0-9]*\) trial(s).*/\1/p' <<<"$status")
py=$(/usr/bin/python3 -c "
import h5py, json
f = h5py.File('zdt.h5', 'r')
t = f['trials'][:]
ok = t['state'] == 1
print([(o['name'], o['direction']) for o in json.loads(f.attrs['objectives'])], sorted(t.dtype['objectives'].names), int(ok.sum()),
      bool((t['objectives']['f1'][ok] == t['objective'][ok]).all()))" 2>&1)
json_front=$("$tune" export zdt.h5 --json | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
ok = [t['objectives'] for t in d['trials'] if t['state'] == 'ok']
front = [p for p in ok if not any(q['f1'] <= p['f1'] and q['f2'] <= p['f2'] and q != p for q in ok)]
print(len(front), [(o['name'], o['direction']) for o in d['study']['objectives']])")
report=$("$tune" report zdt.h5 2>&1)
targ=$(mpi 3 "$tune" run --history zdt_t.h5 --space zdt.json --trials 200 --algo bayes --seed 1 --objective f1,f2 --target 0.5,0.8 -q -- ./zdt1.py 2>&1); targ_rc=$?
met=$("$tune" export zdt_t.h5 --csv | awk -F, 'NR > 1 && $2 == "ok" && $4 <= 0.5 && $5 <= 0.8 {n++} END {print n + 0}')
if [ $rc -eq 0 ] && grep -q "Pareto front: $front_n trial(s)" <<<"$out" && [ "${front_n:-0}" -ge 2 ] &&
   grep -q "^study: .*minimize f1, minimize f2" <<<"$status" &&
   [ "$py" = "[('f1', 'min'), ('f2', 'min')] ['f1', 'f2'] $(state_of zdt.h5 | grep -c ':ok$') True" ] &&
   [ "$json_front" = "$front_n [('f1', 'min'), ('f2', 'min')]" ] &&
   grep -q "^Pareto front: $front_n trial(s)" <<<"$report" && grep -q 'id="front"' zdt-report.html &&
   grep -q "parameter importance for f2" <<<"$report" &&
   [ $targ_rc -eq 0 ] && grep -q "target reached" <<<"$targ" && [ "$met" -ge 1 ] && [ "$(state_of zdt_t.h5 | wc -l)" -lt 200 ]; then
  ok "several objectives: ZDT1 with tpe, a front of $front_n trials in run, status, report, h5py and export; --target 0.5,0.8 met after $(state_of zdt_t.h5 | wc -l) trials"
else not_ok "several objectives" "exit $rc: $(tail -5 <<<"$out")" "$status" "h5py: $py" "json: $json_front" "$report" "exit $targ_rc: $targ" "met $met"; fi

# 18. A trial's output reaches stdout and stderr in its directory, each
# created with its first byte: a silent trial leaves only params.json.
cat >quiet.json <<'J'
{"parameters": [{"name": "mode", "type": "choice", "value": ["silent", "loud"]}]}
J
out=$("$tune" run --history quiet.h5 --space quiet.json --algo grid --shell -q -- \
  'if [ "$TUNE_PARAM_mode" = loud ]; then echo out; echo err >&2; fi; echo objective=1 >&$TUNE_REPORT_FD' 2>&1); rc=$?
silent=$(ls quiet.trials/0 | paste -sd' '); loud=$(ls quiet.trials/1 | paste -sd' ')
if [ $rc -eq 0 ] && [ "$silent" = "params.json" ] && [ "$loud" = "params.json stderr stdout" ] &&
   [ "$(cat quiet.trials/1/stdout)" = out ] && [ "$(cat quiet.trials/1/stderr)" = err ]; then
  ok "a silent trial leaves only params.json; a loud one its stdout and stderr"
else not_ok "trial logs created at their first byte" "exit $rc: $out" "silent: $silent" "loud: $loud"; fi

# 19. --trials is kept in the history: a resumed run without it runs to that
# number (not without limit), says so when it is reached, and --trials again
# is a new total, kept for the next resume (a refused resume keeps the old).
cat >budget.json <<'J'
{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}
J
report_x='echo objective=$TUNE_PARAM_x >&$TUNE_REPORT_FD'
first=$("$tune" run --history budget.h5 --space budget.json --trials 3 --shell -q -- "$report_x" 2>&1); rc1=$?
again=$("$tune" run --resume --history budget.h5 --shell -q -- "$report_x" 2>&1); rc2=$?
n2=$(state_of budget.h5 | wc -l)
more=$("$tune" run --resume --history budget.h5 --trials 5 --shell -q -- "$report_x" 2>&1); rc3=$?
n3=$(state_of budget.h5 | grep -c ':ok$')
refused=$("$tune" run --resume --history budget.h5 --trials 9 --space missing.json --shell -q -- "$report_x" 2>&1); rc4=$?
last=$("$tune" run --resume --history budget.h5 --shell -q -- "$report_x" 2>&1); rc5=$?
attr=$(/usr/bin/python3 -c "import h5py; print(int(h5py.File('budget.h5', 'r').attrs['trials']))" 2>&1)
status=$("$tune" status budget.h5 2>&1)
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && [ $rc4 -eq 1 ] && [ $rc5 -eq 0 ] && [ "$n2" -eq 3 ] && [ "$n3" -eq 5 ] &&
   [ "$attr" = 5 ] && [ "$(state_of budget.h5 | wc -l)" -eq 5 ] &&
   grep -q "3 trials (the study's --trials)" <<<"$again" &&
   grep -q "its 3 trials (its last --trials) are done; give --trials N (a total, more than 3)" <<<"$again" &&
   grep -q "missing.json: cannot read the file" <<<"$refused" && grep -q "its 5 trials (its last --trials) are done" <<<"$last" &&
   grep -q "^trials: *5 (5 ok), 5 planned (--trials 5)" <<<"$status"; then
  ok "--trials kept in the history: a resume without it ran nothing past 3 and said how to; --trials 5 ran to 5 and was kept (a refused --trials 9 was not)"
else not_ok "the trial budget on resume" "exit $rc1: $first" "exit $rc2 ($n2 trials): $again" "exit $rc3 ($n3 ok): $more" \
  "exit $rc4: $refused" "exit $rc5: $last" "attr: $attr" "$status"; fi

# 24. A study on a recorded real-training table (data/workloads: an MLP of 4
# hidden units on scikit-learn's digits, which cannot reach 0.95): every
# trial reports its 20 recorded epochs, its objective is one of the table's
# final accuracies, and tune simulate replays it under the stagnation rule
# beside priority/multifactor; a missing table is named with how to make one.
table=$TOP_SRCDIR/data/workloads/digits-mlp4.json
out=$(TABLE_EPOCH=0 mpi 3 "$tune" run --history table.h5 --space "$TOP_SRCDIR/data/workloads/space.json" --trials 12 \
  --seed 3 --direction max -q -- "$TOP_SRCDIR/bench/programs/table_curve.py" "$table" 2>&1); rc=$?
check=$("$tune" export table.h5 --json | /usr/bin/python3 -c "
import json, sys
h = json.load(sys.stdin)
t = json.load(open('$table'))
finals = {round(r['accuracy'][-1], 5) for p in t['points'] for r in p['runs']}
ok = [x for x in h['trials'] if x['state'] == 'ok']
print(len(ok), all(round(x['objective'], 5) in finals for x in ok), max(x['objective'] for x in ok) < 0.95)" 2>&1)
epochs=$(/usr/bin/python3 -c "
import h5py
r = h5py.File('table.h5', 'r')['reports']
print(int((r['metric'] == b'accuracy').sum()))" 2>&1)
sim=$("$tune" simulate --cluster sim.conf --study "table.h5,target=0.95,time-scale=60,gpus=1,parallel=2" \
  --study "branin.h5,target=$best,time-scale=60,gpus=1,parallel=2" \
  --priority multifactor,multifactor+tune:stagnation --study-mode trials 2>&1); sim_rc=$?
missing=$(TUNE_PARAM_lr=0.01 TUNE_PARAM_momentum=0.9 "$TOP_SRCDIR/bench/programs/table_curve.py" nowhere.json 2>&1); missing_rc=$?
if [ $rc -eq 0 ] && [ "$check" = "12 True True" ] && [ "$epochs" = 240 ] && [ $sim_rc -eq 0 ] &&
   grep -q "^multifactor+tune:stagnation+cons_tres  *1/2" <<<"$sim" &&
   [ $missing_rc -ne 0 ] && grep -q "nowhere.json.*make it with data/workloads/make_tables.py" <<<"$missing"; then
  ok "a study on a recorded training table: 12 trials of 20 recorded epochs, replayed under multifactor with the stagnation rule; a missing table named"
else not_ok "a study on a recorded training table" "exit $rc: $out" "check: $check" "epochs: $epochs" "exit $sim_rc: $sim" \
  "exit $missing_rc: $missing"; fi

# 25. --converged on the same recorded table: the study ends itself before its
# 60 trials, through mpirun, and says so (its summary, tune status, the
# history's ended attribute, the JSON export); a resume with the same flags
# runs nothing and says how to run more; a larger --trials continues it and
# drops how it ended; --converged without a budget is refused, nothing created.
conv() { TABLE_EPOCH=0 mpi 3 "$tune" run --direction max "$@" -- "$TOP_SRCDIR/bench/programs/table_curve.py" "$table"; }
out=$(conv --history conv.h5 --space "$TOP_SRCDIR/data/workloads/space.json" --trials 60 --seed 3 --converged 0.01 2>&1); rc=$?
n=$(state_of conv.h5 | grep -c ':ok$')  # one more may have been running: interrupted, not run
status=$("$tune" status conv.h5 2>&1)
attr=$(/usr/bin/python3 -c "import h5py; print(h5py.File('conv.h5', 'r').attrs['ended'].decode()[:10])" 2>&1)
json=$("$tune" export conv.h5 --json | /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['study']['ended'][:10])" 2>&1)
again=$(conv --resume --history conv.h5 --converged 0.01 2>&1); rc2=$?
n2=$(state_of conv.h5 | grep -c ':ok$')
more=$(conv --resume --history conv.h5 --trials 70 -q 2>&1); rc3=$?
status3=$("$tune" status conv.h5 2>&1)
refused=$(conv --history open.h5 --space "$TOP_SRCDIR/data/workloads/space.json" --converged 0.01 2>&1); rc4=$?
if [ $rc -eq 0 ] && [ "$n" -ge 5 ] && [ "$n" -lt 60 ] &&
   grep -q "study 'conv' converged: the $((60 - n)) trials left have a .*% chance of beating the best (.*) by 0.01 (--converged)" <<<"$out" &&
   grep -q "^ended: *converged: the $((60 - n)) trials left" <<<"$status" && [ "$attr" = "converged:" ] && [ "$json" = "converged:" ] &&
   [ $rc2 -eq 0 ] && [ "$n2" -eq "$n" ] && grep -q "it has converged by its --converged already; to run more" <<<"$again" &&
   [ $rc3 -eq 0 ] && [ "$(state_of conv.h5 | grep -c ':ok$')" -eq 70 ] && grep -q "^ended: *all trials done" <<<"$status3" &&
   [ $rc4 -ne 0 ] && grep -q -- "--converged judges the trials a budget has left: give --trials too" <<<"$refused" && [ ! -e open.h5 ]; then
  ok "--converged ended the study after $n of 60 trials and said so in its summary, status, history and export; resumed alike it ran nothing; --trials 70 ran on"
else not_ok "--converged" "exit $rc ($n trials): $out" "$status" "attr: $attr" "json: $json" "exit $rc2 ($n2): $again" \
  "exit $rc3: $more" "$status3" "exit $rc4: $refused"; fi

# 26. BOHB through mpirun on the same recorded table: --algo bohb with
# --prune hyperband, its model fed every trial's epoch reports. The study
# runs its 24 trials (Hyperband stops some at a rung, the rest run their 20
# epochs), says when the model takes over from random proposals, and a
# resume to 30 replays the reports and runs 6 more; bohb with two objectives
# is refused before a history exists.
bohb() { TABLE_EPOCH=0 mpi 3 "$tune" run --direction max "$@" -- "$TOP_SRCDIR/bench/programs/table_curve.py" "$table"; }
out=$(bohb --history bohb.h5 --space "$TOP_SRCDIR/data/workloads/space.json" --trials 24 --seed 5 --algo bohb \
  --prune hyperband --prune-metric accuracy --min-resource 1 --reduction-factor 3 2>&1); rc=$?
states=$(state_of bohb.h5 | cut -d: -f2 | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ')
more=$(bohb --resume --history bohb.h5 --trials 30 --prune hyperband --prune-metric accuracy -q 2>&1); rc2=$?
n2=$(state_of bohb.h5 | grep -c ':ok$\|:pruned$')
refused=$(bohb --history two.h5 --space "$TOP_SRCDIR/data/workloads/space.json" --trials 4 --algo bohb \
  --objective accuracy,loss 2>&1); rc3=$?
if [ $rc -eq 0 ] && grep -q "pruned=" <<<"$states" && grep -q "ok=" <<<"$states" &&
   [ "$(state_of bohb.h5 | head -24 | grep -c ':ok$\|:pruned$')" -eq 24 ] &&
   grep -q "bohb: random until 5 trials reach one budget" <<<"$out" &&
   [ $rc2 -eq 0 ] && [ "$n2" -eq 30 ] &&
   [ $rc3 -ne 0 ] && grep -q -- "--algo bohb models one objective" <<<"$refused" && [ ! -e two.h5 ]; then
  ok "bohb with hyperband through mpirun: 24 trials ($states), its model after 5 reached a budget; resumed to 30; two objectives refused"
else not_ok "bohb with hyperband" "exit $rc: $out" "states: $states" "exit $rc2 ($n2): $more" "exit $rc3: $refused"; fi

# 27. Population-based training through mpirun (two runners) on the PBT
# paper's toy problem: 4 members, 4 steps a segment, 16 segments. Every trial
# names its member and step limit; a segment starts from its member's last
# (or, exploiting, a better member's) checkpoint, so its steps go on from
# there; the worst copy the best at least once; a resume to 20 goes on with
# the same members; no checkpoint is left once the study has ended. A
# program that ignores TUNE_STEP_LIMIT is ended at it.
toy=$TOP_SRCDIR/bench/programs/pbt_toy.py
pbt() { TOY_STEPS=40 mpi 3 "$tune" run --direction max --prune-metric q "$@" -- "$toy"; }
out=$(pbt --history pbt.h5 --space "$TOP_SRCDIR/bench/programs/pbt_toy.json" --trials 16 --seed 3 --algo pbt \
  --population 4 --pbt-interval 4 2>&1); rc=$?
more=$(pbt --resume --history pbt.h5 --trials 20 -q 2>&1); rc2=$?
lineage=$("$tune" export pbt.h5 --csv | /usr/bin/python3 -c "
import csv, sys
rows = list(csv.DictReader(sys.stdin))
by = {int(r['id']): r for r in rows}
bad, exploits = [], 0
for r in rows:
    i, m, limit = int(r['id']), r['member'], r['step_limit']
    if r['state'] != 'ok' or m == '' or limit == '': bad.append('trial %d: %s member=%r limit=%r' % (i, r['state'], m, limit)); continue
    if i < 4:
        if r['from'] != '' or int(m) != i or int(limit) != 4: bad.append('first trial %d' % i)
        continue
    f = by[int(r['from'])]
    if int(r['from']) >= i: bad.append('trial %d from a later one' % i)
    exploits += f['member'] != m
    # Its steps go on from where its source's checkpoint stood.
    if int(f['last_step']) >= 0 and int(limit) != int(f['last_step']) + 4:
        bad.append('trial %d limit %s after %s at step %s' % (i, limit, f['id'], f['last_step']))
print('%d trials, %d exploits; %s' % (len(rows), exploits, '; '.join(bad) or 'ok'))
")
left=$(find pbt.trials -name checkpoint.json | wc -l)
# tune report draws the best trial's lineage and its parameter schedule.
"$tune" report pbt.h5 -o pbt.html --svg pbt.svg >/dev/null 2>&1
drawn=$(ls pbt.svg/lineage.svg pbt.svg/schedule-h0.svg pbt.svg/schedule-h1.svg 2>/dev/null | wc -l)
ignore=$(TOY_IGNORE_LIMIT=1 pbt --history ignore.h5 --space "$TOP_SRCDIR/bench/programs/pbt_toy.json" --trials 4 \
  --algo pbt --population 2 --pbt-interval 4 -q 2>&1); rc3=$?
ended=$("$tune" export ignore.h5 --csv | grep -c 'pruned,.*trained to step 4, its segment')
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "^20 trials, [1-9][0-9]* exploits; ok$" <<<"$lineage" &&
   grep -q "pbt: member . takes member .'s checkpoint" <<<"$out" && [ "$left" -eq 0 ] &&
   [ "$drawn" -eq 3 ] && grep -q "Lineage of trial" pbt.html &&
   [ $rc3 -eq 0 ] && [ "$ended" -ge 2 ]; then
  ok "pbt through mpirun: $lineage; resumed to 20; no checkpoint left; the report drew the lineage and both schedules; a program past its step limit ended there ($ended)"
else not_ok "pbt through mpirun" "exit $rc: $out" "exit $rc2: $more" "lineage: $lineage" "checkpoints left: $left" \
  "report's lineage charts: $drawn of 3 ($(ls pbt.svg 2>&1 | paste -sd' '))" \
  "exit $rc3 ($ended): $ignore" "$("$tune" export ignore.h5 --csv 2>&1 | head -5)"; fi
