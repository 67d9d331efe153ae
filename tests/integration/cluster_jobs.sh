#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real jobs on a real local cluster: GPUs, MPI across nodes, a second user.
source "$(dirname "$0")/tap.sh"
plan 6
cluster_up cluster_jobs 17200 --nodes 3 --gpus 4
work=$CLUSTER_DIR/work
rm -rf "$work" && mkdir -p "$work" && chmod 1777 "$work"
cd "$work" || exit 1

# --gres=gpu:2 sees exactly two GPUs, named in CUDA_VISIBLE_DEVICES.
job=$(sbatch --parsable -N1 --gres=gpu:2 -o gpus.out --wrap 'echo "CUDA=$CUDA_VISIBLE_DEVICES"')
wait_job "$job"
gpus=$(sed -n 's/^CUDA=//p' gpus.out)
count=$(tr ',' '\n' <<<"$gpus" | grep -c '^[0-9]\+$' || true)
if [ "$count" -eq 2 ]; then ok "a --gres=gpu:2 job sees exactly 2 GPUs ($gpus)"
else not_ok "a --gres=gpu:2 job sees exactly 2 GPUs" "CUDA_VISIBLE_DEVICES='$gpus'" "$(cat gpus.out)"; fi

# Two GPU jobs running on one node at once get disjoint GPUs. Without device
# cgroups CUDA_VISIBLE_DEVICES holds the node's own GPU indices.
span='echo "$CUDA_VISIBLE_DEVICES"; date +%s%N; sleep 3; date +%s%N'
a=$(sbatch --parsable -w node2 --gres=gpu:2 -o a.out --wrap "$span")
b=$(sbatch --parsable -w node2 --gres=gpu:2 -o b.out --wrap "$span")
wait_job "$a"; wait_job "$b"
read -r ga a0 a1 < <(paste -sd' ' a.out); read -r gb b0 b1 < <(paste -sd' ' b.out)
shared=$(comm -12 <(tr ',' '\n' <<<"$ga" | sort) <(tr ',' '\n' <<<"$gb" | sort))
if [ -n "$ga" ] && [ -n "$gb" ] && [ -z "$shared" ] && [ "${a0:-0}" -lt "${b1:-0}" ] && [ "${b0:-0}" -lt "${a1:-0}" ]; then
  ok "two 2-GPU jobs running on node2 at the same time get different GPUs ($ga and $gb)"
else not_ok "two 2-GPU jobs running on one node at the same time get different GPUs" "job $a: $(paste -sd' ' a.out)" "job $b: $(paste -sd' ' b.out)"; fi

# More GPUs than a node has is refused at submit, with Slurm's own message.
if out=$(sbatch -N1 --gres=gpu:5 --wrap true 2>&1); then
  not_ok "a job asking 5 GPUs of 4-GPU nodes is refused" "$out"
else ok "a job asking 5 GPUs of 4-GPU nodes is refused"; fi

# A real MPI program across two nodes inside an allocation: ranks on both
# nodes, and a collective that crosses them.
if mpicc -o allreduce "$TOP_SRCDIR/examples/mpi_hello/mpi_hello.c" 2>mpicc.err; then
  out=$(timeout 120 salloc -N2 --ntasks-per-node=2 mpirun ./allreduce 2>&1)
  nodes=$(sed -n 's/^rank [0-9]* of 4 on \(node[0-9]*\) sum 10 gpus .*$/\1/p' <<<"$out" | sort -u | paste -sd' ')
  ranks=$(grep -c '^rank [0-9]* of 4 on node[0-9]* sum 10 gpus' <<<"$out" || true)
  if [ "$ranks" -eq 4 ] && [ "$(wc -w <<<"$nodes")" -eq 2 ]; then ok "mpirun in a 2-node allocation runs 4 ranks on $nodes and reduces across them"
  else not_ok "mpirun in a 2-node allocation runs ranks on both nodes" "$out"; fi
else
  not_ok "mpirun in a 2-node allocation runs ranks on both nodes" "mpicc failed: $(cat mpicc.err)"
fi

# A job from a second, non-root user runs as that user.
if [ "$(id -u)" -ne 0 ]; then
  skip "a job from a non-root user runs as that user" "needs root to create the test user"
  skip "the job record names the non-root user" "needs root to create the test user"
else
  user=$(test_user tune-user1)
  job=$(su "$user" -c "cd '$work' && SLURM_CONF='$SLURM_CONF' sbatch --parsable -o user.out --wrap 'echo \"\$(id -un) \$(id -u)\"'" 2>&1)
  wait_job "$job"
  expect="$user $(id -u "$user")"
  if [ "$(cat user.out 2>/dev/null)" = "$expect" ]; then ok "a job from a non-root user runs as that user ($expect)"
  else not_ok "a job from a non-root user runs as that user" "sbatch: $job" "output: $(cat user.out 2>&1)" "expected: $expect"; fi
  record=$(scontrol show job "$job" 2>&1 | grep -o 'UserId=[^ ]*')
  if [ "$record" = "UserId=$user($(id -u "$user"))" ]; then ok "the job record names the non-root user ($record)"
  else not_ok "the job record names the non-root user" "$record"; fi
fi
