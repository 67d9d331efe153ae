#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A study submitted with `tune submit` to a real cluster: runners on two
# nodes holding exactly a GPU each, Slurm's warning signal followed by a
# requeue that resumes the study, a second study of a queued one's name
# refused, what submit says without --time, and --setup's lines reaching the
# trials in both modes.
source "$(dirname "$0")/tap.sh"
plan 9
deployed_cluster_up driver_slurm 17400 --nodes 3 --cpus 4 --gpus 4
tune=$TOP_BUILDDIR/driver/tune
space=$TOP_SRCDIR/examples/synthetic/branin.json
work=$CLUSTER_DIR/work
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >gpu.sh <<'P'
#!/bin/bash
sleep "${TRIAL_SLEEP:-0.3}"
echo "gpu=${CUDA_VISIBLE_DEVICES:-99} objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
P
chmod +x gpu.sh
submit=(--space "$space" --parallel 3 --runners-per-node 2 --cpus-per-trial 2 --mem-per-trial 500M --gpus-per-trial 1 --seed 3)
wait_gone() { for _ in $(seq 1 "${2:-150}"); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 1; done; return 1; }

# 1. The tasks are the runners and hold the GPUs; the AppCore is an extra process.
script=$("$tune" submit --name dry --trials 4 "${submit[@]}" --dry-run -- ./gpu.sh)
if grep -q '^#SBATCH --ntasks=3$' <<<"$script" && grep -q '^#SBATCH --nodes=2$' <<<"$script" &&
   grep -q '^#SBATCH --gpus-per-task=1$' <<<"$script" && ! grep -q 'gpus-per-node' <<<"$script" &&
   grep -q 'wrap --mpi -- mpirun -np "$((SLURM_NTASKS + 1))"' <<<"$script" &&
   [ ! -e dry.sbatch ]; then ok "--dry-run prints the script: 3 runner tasks on 2 nodes, a GPU per task, writes nothing"
else not_ok "--dry-run prints the script" "$script"; fi

# 2. A study through tune submit: all trials ok, Slurm allocates exactly
#    runners x --gpus-per-trial GPUs, and each runner has GPUs of its own.
out=$("$tune" submit --name gpus --trials 12 "${submit[@]}" -- ./gpu.sh 2>&1)
job=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
wait_gone "$job" 120
allocated=$(scontrol -d show job "$job" | grep -o 'JOB_GRES=[^ ]*')
layout=$("$tune" export gpus.h5 --json | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
gpu = {r['trial']: int(r['value']) for r in d['reports'] if r['metric'] == 'gpu'}
ok = sum(t['state'] == 'ok' for t in d['trials'])
runners = sorted({(t['rank'], t['host'], gpu.get(t['id'])) for t in d['trials']})
distinct = len({(h, g) for _, h, g in runners}) == len(runners) == 3 and None not in [g for _, _, g in runners]
print(ok, 'distinct' if distinct else 'shared', ' '.join('%d:%s:%s' % r for r in runners))" 2>&1)
if [ "$allocated" = JOB_GRES=gpu:3 ] && [ "$(cut -d' ' -f1-2 <<<"$layout")" = "12 distinct" ]; then
  ok "tune submit: 12 trials ok; $allocated for 3 runners; rank:node:GPU $(cut -d' ' -f3- <<<"$layout")"
else not_ok "tune submit runs the study with exactly a GPU per runner" "$out" "allocated: $allocated" "$layout" \
  "$(cat gpus-*.out 2>&1 | tail -20)"; fi
if [ -x gpus.sbatch ] && grep -q "tune run --history" gpus.sbatch; then ok "the sbatch script is kept beside the history"
else not_ok "the sbatch script is kept beside the history" "$(ls)"; fi

# 3. Slurm's warning (sbatch --signal=B:USR1): the study drains, exits 75, the job requeues
#    itself and resumes; nothing completed is lost or repeated.
export TRIAL_SLEEP=0.5
out=$("$tune" submit --name requeue --trials 30 "${submit[@]}" -- ./gpu.sh 2>&1)
job=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
for _ in $(seq 1 150); do
  done_now=$("$tune" export requeue.h5 --csv 2>/dev/null | grep -c ',ok,' || true)
  [ "${done_now:-0}" -ge 6 ] && break
  sleep 0.2
done
warn_and_restart "$job"
wait_gone "$job" 150
log=$(cat requeue-"$job".out)
# SIGUSR1 drains: the running trials finish (ok), none is cut short.
first=$(grep -o "study 'requeue' interrupted by a signal: [0-9]* ok, [0-9]* trials in" <<<"$log")
n_ok=$(sed -n 's/.*signal: \([0-9]*\) ok.*/\1/p' <<<"$first")
if [ -n "$first" ] && grep -q "requeueing job $job to resume it" <<<"$log" && grep -q "trials so far" <<<"$log"; then
  ok "USR1 to the batch shell (sbatch --signal=B:USR1): the study drained ($n_ok ok, none cut short), the job requeued itself and resumed"
else not_ok "USR1 to the batch shell drains, requeues and resumes" "$log" "$(scontrol show job "$job")"; fi
after=$("$tune" export requeue.h5 --csv | awk -F, 'NR > 1 {print $1 ":" $2}')
twice=$(grep -oE 'trial [0-9]+ ok' <<<"$log" | sort | uniq -d | paste -sd' ')
if [ "$(grep -c ':ok$' <<<"$after")" -eq 30 ] && [ "$(wc -l <<<"$after")" -eq 30 ] && [ -z "$twice" ] &&
   [ "$(grep -cE 'trial [0-9]+ ok' <<<"$log")" -eq 30 ]; then
  ok "after the requeue: 30 trials ok, each completed exactly once across both runs"
else not_ok "after the requeue every trial completed once" "$after" "completed twice: $twice" "$log"; fi

# 4. Refusals name the problem.
m1=$("$tune" submit --name gpus --trials 2 "${submit[@]}" -- ./gpu.sh 2>&1); r1=$?
m2=$("$tune" submit --name nopart --trials 2 "${submit[@]}" --partition nosuch -- ./gpu.sh 2>&1); r2=$?
if [ $r1 -eq 1 ] && grep -q "gpus.h5 already holds a study" <<<"$m1" && [ $r2 -eq 1 ] && grep -q "sbatch refused" <<<"$m2"; then
  ok "submit refuses an existing history and reports sbatch's refusal"
else not_ok "submit refusals name the problem" "$m1" "$m2"; fi

# 5. A second study of the same name while the first is still queued: refused,
#    naming the job and the fix; without --time and --trial-time-limit, submit
#    says what the job will get.
part=$(sinfo -h -o %P | head -1 | tr -d '*')
scontrol update PartitionName="$part" State=DOWN
o1=$("$tune" submit --name twin --trials 2 "${submit[@]}" -- ./gpu.sh 2>&1); r1=$?
twin=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$o1")
o2=$("$tune" submit --name twin --trials 2 "${submit[@]}" -- ./gpu.sh 2>&1); r2=$?
scancel "$twin" 2>/dev/null
scontrol update PartitionName="$part" State=UP
if [ $r1 -eq 0 ] && [ $r2 -eq 1 ] && grep -q "study 'twin' is still queued or running as job $twin" <<<"$o2" &&
   grep -q "give this one another --name" <<<"$o2" && grep -q "no --time: partition $part has no time limit" <<<"$o1" &&
   grep -q "no --trial-time-limit: a trial that hangs holds its runner" <<<"$o1"; then
  ok "a second study named like a queued one is refused (job $twin named); submit says what no --time and no --trial-time-limit mean"
else not_ok "name collision and time notes" "$o1" "$o2"; fi

# 6. --setup: lines a site's environment needs (here a "module" that puts a
#    tool on PATH) run in the job script and in each trial job; the program
#    finds the tool in both modes, submitted from a shell that lacks it.
mkdir -p modules/bin
printf '#!/bin/sh\necho 0.25\n' >modules/bin/site-tool && chmod 755 modules/bin/site-tool
cat >setup.sh <<SETUP
#!/bin/bash
# what "module load site-tool" would do
export PATH=$work/modules/bin:\$PATH
SETUP
cat >needs_tool.sh <<'P'
#!/bin/bash
echo "objective=$(site-tool)" >&"$TUNE_REPORT_FD"
P
chmod 755 needs_tool.sh
o_mpi=$("$tune" submit --name setup-mpi --trials 3 --parallel 2 --mem-per-trial 200M --setup setup.sh --space "$space" -- ./needs_tool.sh 2>&1)
o_tj=$("$tune" submit --trial-jobs --name setup-tj --trials 3 --parallel 2 --mem-per-trial 200M --setup setup.sh --space "$space" -- ./needs_tool.sh 2>&1)
for j in $(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$o_mpi$o_tj"); do wait_gone "$j" 120; done
st_mpi=$("$tune" status setup-mpi.h5 2>&1)
st_tj=$("$tune" status setup-tj.h5 2>&1)
if grep -qE '^trials: +3 \(3 ok\)' <<<"$st_mpi" && grep -qE '^trials: +3 \(3 ok\)' <<<"$st_tj" &&
   grep -q "objective=0.25" <<<"$st_mpi" && grep -q '^# --setup .*setup.sh' setup-mpi.sbatch; then
  ok "--setup: its lines run in the job script; both modes' trials find the tool it puts on PATH (3 of 3 ok each)"
else not_ok "--setup in both modes" "$o_mpi" "$st_mpi" "$o_tj" "$st_tj" "$(cat setup-*.out 2>&1 | tail -20)"; fi
# Trial jobs of tune run --trial-jobs run the lines themselves (the AppCore's shell lacks the tool).
out=$("$tune" run --trial-jobs --history setup-run.h5 --trials 2 --parallel 2 --mem-per-trial 200M --slurm-poll 1s \
  --setup setup.sh --space "$space" -- ./needs_tool.sh 2>&1)
if ! command -v site-tool >/dev/null && grep -q "2 ok" <<<"$out"; then
  ok "tune run --trial-jobs --setup: each trial job runs the lines before its program (2 of 2 ok)"
else not_ok "trial jobs run --setup's lines" "$out"; fi
