#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A researcher's limits, on the accounting cluster with QOS limits enforced
# (AccountingStorageEnforce=associations,limits,qos), on the deployed
# plugins: a trial-jobs study that starts while the user's other jobs fill
# MaxSubmitJobsPerUser waits for the limit and runs every trial once, tune
# status saying what holds it; trial jobs pending on MaxJobsPerUser are shown
# held by tune queue; refusals that no waiting lifts stop the study at once,
# naming the flag; nothing is left in the queue.
source "$(dirname "$0")/tap.sh"
plan 5
user_tools  # $tune and $programs, reachable by the test users
studies_setup
deployed_cluster_up qos_limits 17850 --accounting --nodes 3 --cpus 4 --memory 2000 --gpus 0 \
  --sched-conf "$work/sched_tune.conf" --conf AccountingStorageEnforce=associations,limits,qos
cd "$work" || exit 1
{ sacctmgr -i add qos capped MaxSubmitJobsPerUser=2 && sacctmgr -i add qos one MaxJobsPerUser=1 &&
  sacctmgr -i modify user "$alice" set qos+=capped,one; } >qos.log 2>&1 ||
  { echo "Bail out! sacctmgr could not create the QOS: $(cat qos.log)"; exit 1; }
cp "$TOP_SRCDIR/examples/synthetic/branin.json" . && chmod 644 branin.json
cat >slow.sh <<'SH'
#!/bin/bash
sleep 2
echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
SH
chmod 755 slow.sh
# ok_once H.h5 N: N trials ok, no trial id twice.
ok_once() {
  local rows; rows=$(as "$alice" "$tune export $1 --csv" 2>/dev/null | awk -F, 'NR > 1 {print $1 ":" $2}')
  [ "$(grep -c ':ok$' <<<"$rows")" -eq "$2" ] && [ "$(wc -l <<<"$rows")" -eq "$2" ] &&
    [ -z "$(cut -d: -f1 <<<"$rows" | sort | uniq -d)" ]
}

# 1. MaxSubmitJobsPerUser=2, two of alice's jobs already queued: the study waits, then runs all 8 trials.
for i in 1 2; do as "$alice" "sbatch -q capped -o /dev/null --wrap 'sleep 8'" >/dev/null; done
as "$alice" "$tune run --trial-jobs --qos capped --space branin.json --trials 8 --parallel 4 --slurm-poll 1s --history capped.h5 -- ./slow.sh" >capped.log 2>&1 &
core=$!
held=""
for _ in $(seq 1 100); do
  held=$(as "$alice" "$tune status capped.h5" 2>/dev/null | grep '^held:')
  [ -n "$held" ] && break
  sleep 0.2
done
wait $core; rc=$?
if [ $rc -eq 0 ] && ok_once capped.h5 8 && grep -q "waiting for it to pass" capped.log &&
   grep -q "job submit limit" <<<"$held" && grep -q "Slurm takes trial jobs again" capped.log; then
  ok "MaxSubmitJobsPerUser=2 full at the start: the study waited (tune status: ${held#held:      }), then ran 8 trials, each once"
else not_ok "a study held by MaxSubmitJobsPerUser" "rc=$rc" "status: $held" "$(cat capped.log)"; fi

# 2. MaxJobsPerUser=1: the second trial job pends on the limit; tune queue and tune status say so.
as "$alice" "$tune run --trial-jobs --qos one --space branin.json --trials 4 --parallel 2 --slurm-poll 1s --history one.h5 -- ./slow.sh" >one.log 2>&1 &
core=$!
queue="" status=""
for _ in $(seq 1 100); do
  queue=$(as "$alice" "$tune queue" 2>/dev/null)
  status=$(as "$alice" "$tune status one.h5" 2>/dev/null)
  grep -q "held by a limit: QOSMaxJobsPerUserLimit" <<<"$queue" && grep -q "^held: .*QOSMaxJobsPerUserLimit" <<<"$status" && break
  sleep 0.3
done
wait $core; rc=$?
if [ $rc -eq 0 ] && ok_once one.h5 4 && grep -q "held by a limit: QOSMaxJobsPerUserLimit" <<<"$queue" &&
   grep -q "^held: .*QOSMaxJobsPerUserLimit" <<<"$status"; then
  ok "MaxJobsPerUser=1: tune queue and tune status show the trial jobs held by QOSMaxJobsPerUserLimit; 4 trials ran once"
else not_ok "trial jobs pending on MaxJobsPerUser" "rc=$rc" "$queue" "$status" "$(cat one.log)"; fi

# 3. Refusals no waiting lifts stop the study at once and name the flag.
refused() {  # NAME FLAGS...: the study's output, its exit code on the last line
  local name=$1; shift
  as "$alice" "timeout 60 $tune run --trial-jobs --space branin.json --trials 2 --slurm-poll 1s --history $name.h5 $* -- ./slow.sh" 2>&1
  echo "rc=$?"
}
part=$(refused part --partition nosuch)
mem=$(refused mem --mem-per-trial 50G)
qos=$(refused noqos --qos nosuch)
if grep -q "check --partition" <<<"$part" && grep -q "rc=1$" <<<"$part" &&
   grep -q "lower --cpus-per-trial, --mem-per-trial or --gpus-per-trial" <<<"$mem" && grep -q "rc=1$" <<<"$mem" &&
   grep -q "check --qos" <<<"$qos" && grep -q "rc=1$" <<<"$qos"; then
  ok "no such partition, more memory than any node, no such QOS: each stops the study at once, naming its flag"
else not_ok "refusals that do not pass" "$part" "$mem" "$qos"; fi

# 4. A size limit of the QOS (MaxTRESPerJob with DenyOnLimit) with none of the user's jobs queued: not waited for.
sacctmgr -i add qos small MaxTRESPerJob=cpu=1 Flags=DenyOnLimit >>qos.log 2>&1
sacctmgr -i modify user "$alice" set qos+=small >>qos.log 2>&1
big=$(refused big --qos small --cpus-per-trial 2)
if grep -q "waiting does not lift" <<<"$big" && grep -q "rc=1$" <<<"$big"; then
  ok "a QOS size limit with no job of the user queued: the study stops, saying waiting does not lift it"
else not_ok "a QOS size limit" "$big" "$(cat qos.log)"; fi

# 5. Nothing left behind.
wait_until 180 queue_empty
if [ -z "$(squeue -h 2>/dev/null)" ] && scontrol ping | grep -q UP; then ok "no job left in the queue; slurmctld up"
else not_ok "clean end" "$(squeue)"; fi
