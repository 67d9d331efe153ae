#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The AppCore and its history across hosts, on a test cluster whose nodes
# are hosts (scripts/cluster start --hosts): tune status read on another
# host while the study writes; the writer claim across hosts, judged by its
# record as on a file system without locks (a second writer on another host
# refused by name; the claim of a writer whose job Slurm says has ended
# taken over); the AppCore's own node cut off (Slurm requeues its job
# elsewhere, the new run takes the history over and carries on with the
# trial jobs and their saved results, the cut-off one stops by itself when it
# sees that, nothing is recorded twice or left behind); the AppCore killed
# before it could end its trial jobs, by a scancel or a crash (they see
# Slurm ended its job, cancel the pending one and leave rather than wait out
# --appcore-wait, ending their trials first if it was cancelled; a resume
# then finishes the study).
source "$(dirname "$0")/tap.sh"
plan 6
user_tools
scratch_dir work || { echo "Bail out! cannot make a scratch directory"; exit 1; }
deployed_cluster_up appcore_hosts 17720 --hosts --nodes 3 --cpus 5 --memory 5000 --gpus 0 --conf SlurmdTimeout=10
cd "$work" || exit 1
preload=$TOP_BUILDDIR/tests/integration/programs/no_locks.so
hosts_study_setup

# 1. tune status on another host while the study writes.
TRIAL_SLEEP=0.5 "$tune" submit --trial-jobs --name read --space branin.json --trials 16 --parallel 2 --cpus-per-trial 2 --seed 7 -- ./where.sh >read.out 2>&1
appcore=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' read.out)
for _ in $(seq 1 300); do core_node=$(squeue -h -j "$appcore" -t R -o %N 2>/dev/null); [ -n "$core_node" ] && break; sleep 0.1; done
reader=node3; [ "$core_node" = node3 ] && reader=node2
reads=0 failed=
for i in $(seq 1 6); do
  wait_bound read $((i * 2)) || break
  # -Q: on a busy machine the step may wait for CPUs, and srun's "queued
  # and waiting" notes are not the reader's output.
  out=$(srun -Q -w $reader sh -c 'hostname; "$0" status read.h5' "$tune" 2>&1)
  if grep -qx "$reader" <<<"$out" && grep -q "trials" <<<"$out"; then reads=$((reads + 1))
  else failed+="$out"$'\n'; fi
done
wait_job "$appcore" 120
# Its trial jobs may still be completing (their epilog) when the AppCore's ends.
wait_until 180 queue_empty
final=$(srun -Q -w $reader "$tune" status read.h5 2>&1)
if [ $reads -ge 3 ] && [ -z "$failed" ] && [ "$(count_final read.h5)" -eq 16 ] && [ -z "$(squeue -h)" ]; then
  ok "tune status on $reader read the history $reads times while the AppCore on $core_node wrote it; 16 trials recorded"
else not_ok "tune status from another host ($reads reads, AppCore on ${core_node:-?})" "$failed" "$final" "$(tail -5 read-*.out 2>&1)" \
  "final trials: $(count_final read.h5); queue: $(squeue -h 2>&1)"; fi
diag "$final"

# 2-3. The writer claim across hosts, judged by its record (no flock, as on
# NFS without lockd): an AppCore on node1 as a job step; a second writer on
# node2 is refused, naming it; once its process is killed and Slurm says its
# job has ended, node2 takes the history over and the study finishes.
claim_env=(env LD_PRELOAD="$preload" TUNE_TEST_LOCK_ERRNO=ENOLCK TRIAL_SLEEP=3)
srun -w node1 -J claim "${claim_env[@]}" "$tune" run --trial-jobs --space branin.json --trials 8 --parallel 2 --cpus-per-trial 2 --seed 8 --slurm-poll 1s --history claim.h5 -- ./where.sh >claim1.log 2>&1 &
step=$!
wait_bound claim 2
owner=$(cat claim.h5.lock 2>/dev/null)
second=$(srun -w node2 "${claim_env[@]}" "$tune" run --trial-jobs --resume --trials 8 --history claim.h5 -- ./where.sh 2>&1); rc2=$?
owner_job=$(/usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[1])["job"])' "$owner" 2>/dev/null)
owner_pid=$(/usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[1])["pid"])' "$owner" 2>/dev/null)
if [ $rc2 -ne 0 ] && grep -q "another tune process is writing this history: pid $owner_pid on host node1 (Slurm job $owner_job on cluster tune)" <<<"$second" &&
   grep -q "Slurm job $owner_job is still RUNNING" <<<"$second"; then
  ok "a second writer on node2 refused: the history's writer is pid $owner_pid on node1 in Slurm job $owner_job, still RUNNING"
else not_ok "a second writer on another host" "rc $rc2: $second" "record: $owner"; fi
kill -9 "${owner_pid:-0}" 2>/dev/null
wait $step 2>/dev/null
wait_job "$owner_job" 30
took=$(srun -w node2 "${claim_env[@]}" "$tune" run --trial-jobs --resume --trials 8 --parallel 2 --cpus-per-trial 2 --slurm-poll 1s --history claim.h5 -- ./where.sh 2>&1); rc3=$?
wait_until 180 queue_empty
if [ $rc3 -eq 0 ] && grep -q "took over claim.h5 from pid $owner_pid on host node1 (Slurm job $owner_job.*Slurm job $owner_job has ended" <<<"$took" &&
   [ "$(count_final claim.h5)" -eq 8 ] && [ "$(ids_twice claim.h5)" -eq 0 ] && [ -z "$(squeue -h)" ] && [ ! -e claim.h5.lock ]; then
  ok "its process killed and its job ended, node2 took the history over ($(grep -o 'Slurm job [0-9]* has ended ([^)]*)' <<<"$took")); 8 trials each once, no job left"
else not_ok "a stale claim from another host taken over (rc $rc3)" "$took" "$(cat claim1.log)" "$(export_csv claim.h5)" "$(squeue -h)"; fi

# 4. The AppCore's node cut off. Slurm finds the node DOWN and requeues the
# AppCore's job (tune submit asks for --requeue); the new run, on another
# node, takes the history over (the cut-off one's job was requeued), collects
# the results that trial jobs saved while no AppCore listened, and finishes
# the study. The cut-off AppCore, still running on its node, finds the
# history taken over and stops by itself, touching nothing. Record-only
# claims, as in 2-3: one kernel's flock() here would outlive the cut, where
# a network file system's lock would lapse with its lease.
env LD_PRELOAD="$preload" TUNE_TEST_LOCK_ERRNO=ENOLCK TRIAL_SLEEP=20 "$tune" submit --trial-jobs --name corecut --space branin.json --trials 6 --parallel 2 --cpus-per-trial 4 --seed 9 -- ./where.sh >corecut.out 2>&1
appcore=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' corecut.out)
wait_bound corecut 2
core_node=$(squeue -h -j "$appcore" -o %N)
"$cluster" link-down "$core_node" --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
for _ in $(seq 1 600); do [ "$(squeue -h -j "$appcore" -o %T)" = PENDING ] && break; sleep 0.2; done
requeued=$(squeue -h -j "$appcore" -o %T)
# Slurm holds a requeued job back for a while (its BeginTime); start it now.
scontrol update jobid="$appcore" starttime=now
for _ in $(seq 1 100); do [ "$(squeue -h -j "$appcore" -t R -o %N)" != "" ] && break; sleep 0.2; done
new_node=$(squeue -h -j "$appcore" -t R -o %N)
wait_job "$appcore" 300
"$cluster" link-up "$core_node" --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
corecut_gone() { settled && [ -z "$(pgrep -f 'tune run --history [^ ]*corecut.h5')" ]; }
wait_until 180 corecut_gone
out=$(cat corecut-"$appcore".out 2>&1)
if [ "$requeued" = PENDING ] && [ -n "$new_node" ] && [ "$new_node" != "$core_node" ] &&
   grep -q "took over .*corecut.h5 from pid [0-9]* on host $core_node (Slurm job $appcore.*was requeued since" <<<"$out" &&
   grep -q "stopping: .*corecut.h5 has been taken over by" <<<"$out" && grep -q "all trials done: 6 ok" <<<"$out" &&
   [ "$(count_final corecut.h5)" -eq 6 ] && [ "$(ids_twice corecut.h5)" -eq 0 ] && [ -z "$(squeue -h)" ] &&
   [ -z "$(trial_processes)" ] && [ -z "$(pgrep -f 'tune run --history [^ ]*corecut.h5')" ]; then
  ok "the AppCore's node $core_node cut off: its job requeued to $new_node, which took the history over and finished 6 trials, none twice; the cut-off AppCore stopped by itself; no job or process left"
else not_ok "the AppCore's node cut off (on ${core_node:-?}, requeued: ${requeued:-?}, then on ${new_node:-?})" "$out" "$(export_csv corecut.h5)" "jobs left: $(squeue -h)" "processes left: $(trial_processes) $(pgrep -af 'tune run --history [^ ]*corecut.h5')"; fi

# orphan_setup NAME SLEEP SEED: a study of 6 trials, 4 at a time, as a batch
# job; returns once 3 trials run and the 4th job waits (the cluster holds 3).
# Sets appcore (its job), core_pid (its tune run), wrap_pid (the batch
# script's tune wrap above it) and pending (the waiting trial job).
orphan_setup() {
  TRIAL_SLEEP=$2 "$tune" submit --trial-jobs --name "$1" --space branin.json --trials 6 --parallel 4 --cpus-per-trial 4 --seed "$3" -- ./where.sh >"$1.out" 2>&1
  appcore=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' "$1.out")
  wait_bound "$1" 3
  for _ in $(seq 1 100); do pending=$(squeue -h -n "$1.trial" -t PD -o %A | paste -sd' '); [ -n "$pending" ] && break; sleep 0.2; done
  core_pid=$(pgrep -f "^[^ ]*/tune run .*$1.h5" | head -1)
  wrap_pid=$(ps -o ppid= -p "${core_pid:-0}" | tr -d ' ')
}
# orphan_left NAME LIMIT: seconds until NAME's trial jobs have left the queue (LIMIT if they have not).
orphan_left() {
  local t0=$SECONDS
  for _ in $(seq 1 $(($2 * 5))); do [ -z "$(squeue -h -n "$1.trial")" ] && break; sleep 0.2; done
  echo $((SECONDS - t0))
}
# The trial job's line that says it cancelled the pending ones, and how many ended their trial.
orphan_said() { cat "$1".trials/job-*.out 2>/dev/null | grep -o "has ended [A-Z_]*, so no AppCore comes back.*cancelled its pending trial jobs [0-9, ]*" | head -1; }
orphan_ended() { cat "$1".trials/job-*.out 2>/dev/null | grep -c "ending the running trial"; }
orphan_resume() { TRIAL_SLEEP=0.5 "$tune" run --trial-jobs --resume --trials 6 --parallel 4 --cpus-per-trial 4 --slurm-poll 1s --history "$1.h5" -- ./where.sh 2>&1; }
# Trials whose where file has more than one line: run more than once.
runs_twice() { for f in "$1".trials/*/where; do [ "$(wc -l <"$f")" -gt 1 ] && echo "$f"; done 2>/dev/null | wc -l; }

# 5. The AppCore killed by a scancel before it could end its trial jobs (its
# cancels stuck behind a slurmctld too slow to answer before KillWait, a
# stall seen under load). Made certain here: the AppCore is killed while its
# batch script (tune wrap) is stopped, so that the job still runs; then the
# scancel. The trial jobs find Slurm ended the AppCore's job CANCELLED: the
# running ones end their trials and leave, one cancels the pending job,
# long before the trials' 60 s or --appcore-wait's 300 s. A resume runs the
# ended trials again and finishes the study, every trial once.
orphan_setup stopped 60 10
kill -STOP "${wrap_pid:-0}"
kill -KILL "${core_pid:-0}"
sleep 1
scancel "$appcore"
wait_job "$appcore" 30
core_state=$(scontrol show job "$appcore" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
left=$(orphan_left stopped 40)
said=$(orphan_said stopped) ended=$(orphan_ended stopped)
resumed=$(orphan_resume stopped); rc=$?
wait_until 180 settled
if [ -n "$core_pid" ] && [ -n "$pending" ] && [ "$core_state" = CANCELLED ] && [ "$left" -lt 40 ] && [ "$ended" -eq 3 ] &&
   grep -q "has ended CANCELLED.*cancelled its pending trial jobs $pending" <<<"$said" &&
   [ $rc -eq 0 ] && [ "$(count_final stopped.h5)" -eq 6 ] && [ "$(ids_twice stopped.h5)" -eq 0 ] && [ "$(runs_twice stopped)" -eq 3 ] &&
   [ -z "$(squeue -h)" ] && [ -z "$(trial_processes)" ]; then
  ok "the AppCore killed before it could end its trial jobs, its job CANCELLED: they ended their 3 trials, cancelled pending job $pending and left within $left s; the resume ran those 3 again and finished 6, none twice"
else not_ok "the AppCore killed before it could end its trial jobs (its job ${core_state:-?}, pid ${core_pid:-none}, pending ${pending:-none}; left after $left s, $ended trials ended)" \
  "${said:-no trial job said it cancelled the pending one}" "$(tail -n 4 stopped.trials/job-*.out 2>&1)" \
  "resume (rc $rc): $resumed" "$(export_csv stopped.h5)" "jobs left: $(squeue -h)" "processes left: $(trial_processes)"; fi

# 6. The AppCore crashed (killed, its job FAILED). The pending trial job is
# cancelled at once; the running trials finish, their results wait in their
# trial directories, and their jobs leave then rather than after
# --appcore-wait. A resume collects those results: nothing runs twice.
orphan_setup crashed 20 11
kill -KILL "${core_pid:-0}"
wait_job "$appcore" 30
core_state=$(scontrol show job "$appcore" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
pending_left=$(for _ in $(seq 1 100); do squeue -h -j "$pending" -t PD 2>/dev/null | grep -q . || break; sleep 0.2; done; squeue -h -j "$pending" -t PD 2>/dev/null)
left=$(orphan_left crashed 60)
said=$(orphan_said crashed) ended=$(orphan_ended crashed)
resumed=$(orphan_resume crashed); rc=$?
wait_until 180 settled
if [ -n "$core_pid" ] && [ -n "$pending" ] && [ "$core_state" = FAILED ] && [ -z "$pending_left" ] && [ "$left" -lt 60 ] && [ "$ended" -eq 0 ] &&
   grep -q "has ended FAILED.*cancelled its pending trial jobs $pending" <<<"$said" &&
   [ $rc -eq 0 ] && [ "$(grep -c 'collected from' <<<"$resumed")" -eq 3 ] &&
   [ "$(count_final crashed.h5)" -eq 6 ] && [ "$(ids_twice crashed.h5)" -eq 0 ] && [ "$(runs_twice crashed)" -eq 0 ] &&
   [ -z "$(squeue -h)" ] && [ -z "$(trial_processes)" ]; then
  ok "the AppCore crashed, its job FAILED: pending job $pending cancelled at once, the 3 running trials finished and their jobs left $left s after; the resume collected their results and finished 6, none run twice"
else not_ok "the AppCore crashed (its job ${core_state:-?}, pid ${core_pid:-none}, pending ${pending:-none} still pending: ${pending_left:-no}; left after $left s, $ended trials ended)" \
  "${said:-no trial job said it cancelled the pending one}" "$(tail -n 4 crashed.trials/job-*.out 2>&1)" \
  "resume (rc $rc): $resumed" "$(export_csv crashed.h5)" "jobs left: $(squeue -h)" "processes left: $(trial_processes)"; fi
