#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A cluster's network and controller failing under a study, on a test
# cluster whose nodes are hosts (scripts/cluster start --hosts): a node's
# link cut while its trial runs (Slurm ends the job NODE_FAIL while TCP stays
# silent; the trial is lost once and runs again elsewhere, nothing is
# recorded twice, nothing is left behind); slurmctld restarted mid-study
# (the running trials finish and are recorded). Also a product test on
# Slurm 26.05 (scripts/test).
source "$(dirname "$0")/tap.sh"
plan 2
user_tools
scratch_dir work || { echo "Bail out! cannot make a scratch directory"; exit 1; }
# SlurmdTimeout=10: a node that stops answering is DOWN within about 10 s,
# not the minute of the other test clusters.
deployed_cluster_up faults_hosts 17700 --hosts --nodes 3 --cpus 5 --memory 5000 --gpus 0 --conf SlurmdTimeout=10
cd "$work" || exit 1
hosts_study_setup

# 1. A node's link cut while its trial runs.
TRIAL_SLEEP=15 "$tune" run --trial-jobs --space branin.json --trials 4 --parallel 2 --cpus-per-trial 4 --seed 5 --slurm-poll 1s --history cut.h5 -- ./where.sh >cut.log 2>&1 &
core=$!
wait_bound cut 2
read -r cut_job cut_node < <(bound_jobs cut | head -1)
"$cluster" link-down "$cut_node" --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
# Slurm finds the node gone (DOWN, its job NODE_FAIL) after SlurmdTimeout;
# the AppCore hears it at its next look-up and runs the trial again.
for _ in $(seq 1 900); do grep -q "trial job $cut_job ended" cut.log && break; sleep 0.1; done
sleep 3
"$cluster" link-up "$cut_node" --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
wait $core; rc=$?
wait_until 180 settled
cut_trial=$(grep -l "job=$cut_job$" cut.trials/*/where 2>/dev/null | head -1 | xargs -r dirname | xargs -r basename)
# The history keeps a trial's last attempt: the re-run's, on another node.
rerun_host=$(export_csv cut.h5 | awk -F, -v t="$cut_trial" 'NR > 1 && $1 == t && $2 == "ok" {print $10}')
if [ $rc -eq 0 ] && [ "$(count_final cut.h5)" -eq 4 ] && [ "$(ids_twice cut.h5)" -eq 0 ] && [ -n "$rerun_host" ] && [ "$rerun_host" != "$cut_node" ] &&
   [ "$(grep -c "job $cut_job ended NODE_FAIL" cut.log)" -eq 1 ] && [ -z "$(squeue -h)" ] && [ -z "$(trial_processes)" ]; then
  ok "link of $cut_node cut mid-trial: trial $cut_trial (job $cut_job) lost once (NODE_FAIL) and run again on $rerun_host; 4 ok, none twice; no job or process left"
else not_ok "a node's link cut mid-trial (job ${cut_job:-none} on ${cut_node:-none}, trial ${cut_trial:-?}, rc $rc, run again on ${rerun_host:-?})" \
  "$(cat cut.log)" "$(export_csv cut.h5)" "jobs left: $(squeue -h)" "processes left: $(trial_processes)"; fi

# 2. slurmctld restarted mid-study: the trials running through it finish,
# report while it is down, and are recorded.
TRIAL_SLEEP=5 "$tune" run --trial-jobs --space branin.json --trials 4 --parallel 2 --cpus-per-trial 4 --seed 6 --slurm-poll 1s --history restart.h5 -- ./where.sh >restart.log 2>&1 &
core=$!
wait_bound restart 2
running=$(bound_jobs restart | awk '{print $1}' | paste -sd' ')
"$cluster" daemon-stop slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
sleep 8  # the trials end, and report, while slurmctld is down
"$cluster" daemon-start slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null
wait $core; rc=$?
if [ $rc -eq 0 ] && [ "$(count_final restart.h5)" -eq 4 ] && [ "$(ids_twice restart.h5)" -eq 0 ] &&
   [ "$(export_csv restart.h5 | awk -F, 'NR > 1 && $2 != "ok"' | wc -l)" -eq 0 ] && [ -z "$(squeue -h)" ]; then
  ok "slurmctld restarted while trial jobs $running ran: every trial recorded once, none lost; no job left"
else not_ok "slurmctld restarted mid-study (running: $running, rc $rc)" "$(cat restart.log)" "$(export_csv restart.h5)" "$(squeue -h)"; fi

