#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# examples/pytorch as a student runs it: a non-root user with a venv that has
# PyTorch (Debian's, through --system-site-packages), the MPI-mode script
# submitted as written (the partition placeholder overridden on sbatch's
# command line, TRIALS and EPOCHS made small) on the deployed cluster with
# fake GPUs: the job holds exactly a GPU per runner; every trial trains on
# the CPU (no CUDA here) and reports per epoch; the study drains on the
# time-limit warning, requeues itself and resumes. (docs_examples.sh runs
# both scripts as examples/README.md shows them.)
source "$(dirname "$0")/tap.sh"
plan 3
user_tools  # $tune and $programs, reachable by the test users
studies_setup
deployed_cluster_up pytorch_example 17860 --nodes 2 --cpus 8 --memory 16000 --gpus 4 \
  --sched-conf "$work/sched_tune.conf" --cred-expire 5
cd "$work" || exit 1
cp "$TOP_SRCDIR"/examples/pytorch/* . && chmod a+r ./* && chmod a+x train.py
part=$(sinfo -h -o %P | head -1 | tr -d '*')
su "$alice" -c "/usr/bin/python3 -m venv --system-site-packages $work/torch-env" ||
  { echo "Bail out! cannot make the venv"; exit 1; }
submit() { su "$alice" -c "cd $work && PATH=${tune%/tune}:\$PATH SLURM_CONF=$SLURM_CONF TORCH_ENV=$work/torch-env $1 sbatch --parsable -p $part $2"; }
states() { su "$alice" -c "cd $work && SLURM_CONF=$SLURM_CONF $tune export $1 --csv" | awk -F, 'NR > 1 {print $2}' | sort | uniq -c | awk '{print $1 " " $2}' | paste -sd' '; }
wait_gone() { for _ in $(seq 1 "${2:-300}"); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 1; done; return 1; }

# 1. MPI mode: 4 runners, a GPU each, the study finishes.
job=$(submit "TRIALS=8 EPOCHS=3" pytorch-mpi.sbatch)
wait_gone "$job" 300
gres=$(scontrol -d show job "$job" | grep -o 'JOB_GRES=[^ ]*')
st=$(states pytorch.h5)
gpus=$(find pytorch.trials -name stdout 2>/dev/null | wc -l)
cpu=$(grep -l "training on the CPU" pytorch.trials/*/stdout 2>/dev/null | wc -l)
curves=$(su "$alice" -c "$tune export $work/pytorch.h5 --curves" | grep -c ',val_accuracy,')
if [ "$gres" = JOB_GRES=gpu:4 ] && [[ $st =~ ^[0-9]+\ ok ]] && ! grep -qE 'failed|invalid|timeout' <<<"$st" &&
   [ "$cpu" -eq 8 ] && [ "$curves" -ge 8 ]; then
  ok "pytorch-mpi.sbatch as written: $gres for 4 runners; 8 trials ($st) trained on the CPU, $curves epoch reports"
else not_ok "pytorch-mpi.sbatch" "job $job: $gres" "states: $st" "CPU trials: $cpu of $gpus" "reports: $curves" \
  "$(tail -n 20 pytorch-*.out 2>&1)"; fi

# 2. The time-limit warning mid-study: the running trials drain, the job
#    requeues itself and resumes.
rm -rf pytorch.h5 pytorch.trials pytorch-*.out
job=$(submit "TRIALS=12 EPOCHS=6" pytorch-mpi.sbatch)
for _ in $(seq 1 300); do
  # Two trials finished (ok or pruned): ten are still to come.
  [ "$(cat pytorch-"$job".out 2>/dev/null | grep -cE '^tune: trial [0-9]+ (ok|pruned) ')" -ge 2 ] && break
  sleep 0.5
done
warn_and_restart "$job"
wait_gone "$job" 300
st=$(states pytorch.h5)
n=$(su "$alice" -c "$tune export $work/pytorch.h5 --csv" | awk -F, 'NR > 1' | wc -l)
if grep -q "requeueing job $job to resume it" pytorch-"$job".out && grep -q "trials so far" pytorch-"$job".out &&
   [ "$n" -eq 12 ] && ! grep -qE 'failed|invalid|timeout|interrupted' <<<"$st"; then
  ok "the time-limit warning: the study drained, requeued and resumed; 12 trials ($st)"
else not_ok "drain, requeue and resume" "states: $st ($n rows)" "$(tail -n 30 pytorch-"$job".out 2>&1)"; fi

# 3. Nothing left behind.
if [ -z "$(squeue -h 2>/dev/null)" ] && scontrol ping | grep -q UP; then ok "no job left in the queue; slurmctld up"
else not_ok "clean end" "$(squeue)"; fi
