#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole product as a site deploys it: one cluster with SchedulerType=
# sched/tune and SelectType=select/cons_tres_gang, PluginDir naming the
# build's plugins. Which process loads which plugin; a program linked only
# against the public libslurm (as tune, pyslurm and site tools are); a login
# node that has only the select plugin; two users' studies through `tune
# submit` (one on GPUs across four nodes), `tune queue`, `tune status`, and
# the plateaued study yielding to the other, requeued and resumed.
source "$(dirname "$0")/tap.sh"
plan 8
user_tools  # $tune and $programs, reachable by the test users
public=$TOP_BUILDDIR/tests/integration/programs/public_libslurm
plugins=$TOP_BUILDDIR/plugins/lib
for so in sched_tune select_cons_tres_gang; do
  [ -e "$plugins/$so.so" ] || { echo "Bail out! $plugins/$so.so is not built (configure --with-slurm-source; scripts/setup does it)"; exit 1; }
done
studies_setup
# --cred-expire 5: a requeued job may start again 6 s later, not 121 s.
# Its studies' accounts are their tenants, as where Slurm checks accounts.
echo 'fairshare = { tenant = "account"; };' >>"$work/sched_tune.conf"
deployed_cluster_up deployed 17650 --nodes 4 --cpus 4 --gpus 4 --sched-conf "$work/sched_tune.conf" --cred-expire 5
cd "$work" || exit 1
log=$CLUSTER_DIR/log/slurmctld.log
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }
wait_state() {  # JOB STATE SECONDS
  for _ in $(seq 1 $(($3 * 5))); do [ "$(state_of "$1")" = "$2" ] && return 0; sleep 0.2; done; return 1
}
submitted() { sed -n 's/^submitted job \([0-9]*\)$/\1/p' "$1"; }

# The studies. bob's is plateaued (every objective within 0.1% of the best):
# 3 tasks on one node. alice's keeps improving (grid over shrinking values):
# 4 tasks of 4 CPUs and a GPU each on four nodes, so it waits for bob's.
cp "$TOP_SRCDIR/tests/integration/programs/flat.json" .
cat >improving.json <<'JSON'
{"parameters": [{"name": "x", "type": "number", "value": [100, 90, 70, 40, 10, 1]}]}
JSON
cat >gpu_trial.sh <<'SH'
#!/bin/bash
# Records which GPU the trial was given, then reports x as the objective.
echo "$TUNE_TRIAL_ID ${CUDA_VISIBLE_DEVICES:-none} $(hostname)" >>gpu.log
sleep 1
echo "objective=$TUNE_PARAM_x" >&"$TUNE_REPORT_FD"
SH
chmod 755 gpu_trial.sh
chmod 644 flat.json improving.json

as "$bob" "$tune submit --name flat --trials 14 --parallel 2 --mem-per-trial 200M --seed 3 -A physics --space flat.json -- $programs/behave.sh" >bob.out 2>&1
flat=$(submitted bob.out)
wait_state "$flat" RUNNING 120
# What a slurmstepd maps (case 1), read while bob's job surely has one: its
# batch step lives as long as the study runs, and a step may end between
# being found and being read.
stepd_maps() {
  local p m
  for p in $(cluster_stepds); do
    m=$(plugins_mapped "$p")
    kill -0 "$p" 2>/dev/null && { stepd_loads=$m; return 0; }
  done
  return 1
}
stepd_loads=
wait_until 60 stepd_maps || diag "no slurmstepd of this cluster could be read in 60 s"
five_ok() { [ "$(grep -c ' ok ' flat-"$flat".out 2>/dev/null)" -ge 5 ]; }
wait_until 120 five_ok
as "$alice" "$tune submit --name improving --algo grid --trials 6 --parallel 4 --runners-per-node 1 --cpus-per-trial 4 --mem-per-trial 1G --gpus-per-trial 1 -A bio --space improving.json -- $work/gpu_trial.sh" >alice.out 2>&1
improving=$(submitted alice.out)
sleep 2
queue=$(as "$alice" "$tune queue" 2>&1)
# The state beside the queue it was seen with: bob's study may yield and
# alice's job start while cases 1-3 run.
improving_state=$(state_of "$improving")
comment=$(scontrol show job "$flat" 2>/dev/null | grep -oE '(^| )Comment=tune:[^ ]*' | sed 's/^ *//')

# 1. Which process loads which of our plugins (the hosts a site installs them on).
loads=$(printf '%s\n' \
  "slurmctld: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmctld.pid")")" \
  "slurmd: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmd-node1.pid")")" \
  "slurmstepd: $stepd_loads" \
  "squeue: $(plugins_opened squeue)" "sinfo: $(plugins_opened sinfo)" "scontrol: $(plugins_opened scontrol show job)" \
  "sbatch: $(plugins_opened sbatch --test-only --wrap true)" \
  "tune: $(plugins_opened "$tune" queue)" "public_libslurm: $(plugins_opened "$public")")
expected="slurmctld: sched_tune.so select_cons_tres_gang.so
slurmd: select_cons_tres_gang.so
slurmstepd: select_cons_tres_gang.so
squeue: select_cons_tres_gang.so
sinfo: select_cons_tres_gang.so
scontrol: select_cons_tres_gang.so
sbatch: select_cons_tres_gang.so
tune: select_cons_tres_gang.so
public_libslurm: select_cons_tres_gang.so"
if [ -z "${TUNE_CLUSTER_SLURM:-}" ]; then
  # Slurm 22.05 (Debian's): every process that reads job or node records loads every select plugin.
  if [ "$loads" = "$expected" ]; then
    ok "sched/tune is loaded by slurmctld only; select/cons_tres_gang by every daemon, command and libslurm program"
  else not_ok "which process loads which plugin" "got:" "$loads" "expected:" "$expected"; fi
else
  # Newer series load select plugins in fewer processes (26.05: slurmctld
  # only); what holds everywhere: sched/tune in slurmctld alone, both there.
  diag "Slurm $TUNE_CLUSTER_SLURM:" "$loads"
  if grep -qx "slurmctld: sched_tune.so select_cons_tres_gang.so" <<<"$loads" &&
     [ "$(grep -c sched_tune <<<"$loads")" -eq 1 ]; then
    ok "Slurm $TUNE_CLUSTER_SLURM: sched/tune is loaded by slurmctld only; select/cons_tres_gang by $(grep -c 'select_cons_tres_gang' <<<"$loads") of the 9 processes looked at, slurmctld among them"
  else not_ok "which process loads which plugin (Slurm $TUNE_CLUSTER_SLURM)" "$loads"; fi
fi

# 2. A program linked only against the public libslurm, with jobs of both studies in the queue.
libs=$(ldd "$public" | awk '$1 ~ /slurm/ {print $1}' | paste -sd' ')
if grep -q "public_libslurm: select_cons_tres_gang.so" <<<"$loads"; then
  # This libslurm loads select plugins: every symbol the wrapper names must bind here.
  pub=$("$public" --dlopen "$plugins/select_cons_tres_gang.so" 2>&1); prc=$?
  grep -q "every symbol resolved" <<<"$pub" || prc=1
  how="the select plugin binds every symbol there (RTLD_NOW)"
else
  pub=$("$public" 2>&1); prc=$?
  how="this libslurm loads no select plugin"
fi
if [ $prc -eq 0 ] && [[ "$libs" =~ ^libslurm\.so\.[0-9]+$ ]] &&
   grep -Eq '^jobs [1-9][0-9]* nodes 4 partitions 1$' <<<"$pub"; then
  ok "a program linked against the public $libs reads jobs and nodes; $how"
else not_ok "public libslurm program" "linked: $libs" "$pub"; fi

# 3. A login node's install: PluginDir with Debian's plugins and only our select plugin.
mkdir -p login/plugins
ln -s "$(readlink -f "$plugins/select_cons_tres_gang.so")" login/plugins/
cp "$CLUSTER_DIR/etc/gres.conf" login/ 2>/dev/null
cp "$CLUSTER_DIR/etc/select_gang.conf" login/ 2>/dev/null
slurm_plugins=$(sed -n 's/^PluginDir=[^:]*:\(.*\)$/\1/p' "$SLURM_CONF")  # Slurm's own plugins, after the cluster's
sed "s|^PluginDir=.*|PluginDir=$slurm_plugins:$work/login/plugins|" "$SLURM_CONF" >login/slurm.conf
chmod -R a+rX login
login_out=$(for c in "squeue -h" "sinfo -h" "$tune queue" "$tune status $work/flat.h5" "$public"; do
  SLURM_CONF=$work/login/slurm.conf $c >/dev/null 2>&1 || echo "failed: $c"; done)
if [ -z "$login_out" ]; then
  ok "with only select_cons_tres_gang.so in PluginDir, squeue, sinfo, tune queue, tune status and the libslurm program work"
else not_ok "login node with the select plugin only" "$login_out"; fi

# 4. tune queue (run by alice) shows both users' studies; bob's posted progress from inside its job.
if [ "$improving_state" = PENDING ] && grep -Eq "^$flat +$bob +RUNNING +physics .* flat" <<<"$queue" &&
   grep -Eq "^$improving +$alice +PENDING +bio " <<<"$queue" && grep -q "study=flat" <<<"$comment"; then
  ok "tune queue shows bob's running study and alice's waiting GPU study; bob's job posted its progress ($comment)"
else not_ok "tune queue with both studies" "flat $flat $(state_of "$flat"), improving $improving $improving_state when the queue was read" "$comment" "$queue" "$(cat alice.out)"; fi
diag "$queue"

# 5. The plateaued study yields: signalled, drained, requeued; alice's study starts on four nodes.
yielded=no
for _ in $(seq 1 300); do grep -q "JobId=$flat study yields" "$log" && yielded=yes && break; sleep 0.2; done
wait_state "$improving" RUNNING 60
nodes=$(squeue -h -j "$improving" -o %N)
if [ $yielded = yes ] && [ "$(state_of "$improving")" = RUNNING ] && [ "$(squeue -h -j "$improving" -o %D)" = 4 ]; then
  ok "bob's plateaued study yielded ($(grep -o "JobId=$flat study yields.*" "$log" | head -1)); alice's study runs on $nodes"
else not_ok "the plateaued study yields" "yielded=$yielded" "$(grep -i 'yield' "$log" | tail -3)" "$(squeue)"; fi

# 6. alice's study: every trial ran with its own GPU, and tune status reads the history.
wait_job "$improving" 120
status=$(as "$alice" "$tune status improving.h5" 2>&1)
gpu_trials=$(awk '$2 ~ /^[0-9]+$/' gpu.log 2>/dev/null | wc -l)
if grep -q "trials: *6 (6 ok)" <<<"$status" && grep -Eq "best: +trial 5 objective=1\b" <<<"$status" && [ "$gpu_trials" -eq 6 ]; then
  ok "alice's GPU study: 6 ok trials, each with a GPU of its node, best x=1 (tune status)"
else not_ok "alice's GPU study" "$status" "$(cat gpu.log 2>&1)" "$(tail -20 improving-"$improving".out 2>&1)"; fi

# 7. bob's study resumes by itself after the requeue delay and finishes: no trial lost or run twice.
wait_job "$flat" 180
out=$(cat flat-"$flat".out 2>&1)
trials=$(as "$bob" "$tune export flat.h5 --csv" | awk -F, 'NR > 1 {print $1 ":" $2}')
status=$(as "$bob" "$tune status flat.h5" 2>&1)
if grep -q "SIGUSR1: no new trials" <<<"$out" && grep -q "requeueing job $flat" <<<"$out" &&
   grep -q "trials so far" <<<"$out" && [ "$(grep -c ':ok$' <<<"$trials")" -eq 14 ] &&
   [ "$(cut -d: -f1 <<<"$trials" | sort -n | uniq -d | wc -l)" -eq 0 ] && grep -q "(14 ok" <<<"$status"; then
  ok "bob's study drained, was requeued, resumed and finished: 14 ok trials, none twice (tune status: $(grep -o 'trials:.*' <<<"$status"))"
else not_ok "yield, requeue and resume" "$out" "$trials" "$status"; fi

# 8. Nothing left behind: no job in the queue, slurmctld up, no error from our plugins in its log.
errors=$(grep -E "error: (select/cons_tres_gang|sched/tune)" "$log")
if [ -z "$(squeue -h 2>/dev/null)" ] && scontrol ping | grep -q UP && [ -z "$errors" ]; then
  ok "no job left in the queue; slurmctld up; no plugin error in its log"
else not_ok "clean end" "$(squeue)" "$errors"; fi
