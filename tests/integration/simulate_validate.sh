#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tune simulate against real Slurm, small: 24 mixed jobs (CPU, 1-4 GPUs, two
# nodes) run on the test cluster under sched/backfill + cons_tres, then
# replayed by `tune simulate --validate` from the cluster's own records. The
# full-size comparison (200 jobs, both configurations) is
# bench/simulate_validate.sh; this keeps the model honest: every job must be
# replayed, most pairs of jobs must start in the recorded order and the
# makespan must come out close.
source "$(dirname "$0")/tap.sh"
plan 3
tune=$TOP_BUILDDIR/driver/tune
cluster_up simulate_validate 17800 --nodes 4 --cpus 4 --gpus 4
scratch_dir work
history=$work/history.txt
if out=$(cd "$work" && /usr/bin/python3 "$TOP_SRCDIR/bench/replay_on_cluster.py" 24 3 "$history" --short 2>&1); then
  ok "24 jobs ran on the cluster and their records were read back ($out)"
else
  not_ok "24 jobs ran on the cluster and their records were read back" "$out"
fi
cluster_down
report=$("$tune" simulate --cluster "$CLUSTER_DIR/etc/slurm.conf" --jobs "$history" --validate 2>&1)
row=$(grep '^fifo+cons_tres ' <<<"$report" | tail -1)
diag "$(sed -n '/^simulated against/,$p' <<<"$report")"
# POLICY JOBS WAIT-REC WAIT-SIM ERR SPAN-REC SPAN-SIM ERR ORDER DSTART-50 DSTART-95
read -r _ jobs _ _ _ _ _ span_err order _ <<<"$row"
if [ "${jobs:-0}" = 24 ]; then ok "the simulator replayed all 24 recorded jobs"
else not_ok "the simulator replayed all 24 recorded jobs" "$report"; fi
span_err=${span_err%\%} order=${order%\%}
if awk -v e="${span_err:-100}" -v o="${order:-0}" 'BEGIN {exit !(e <= 25 && o >= 80)}'; then
  ok "simulated makespan within 25% of the recorded one ($span_err%), start order of $order% of job pairs as recorded"
else
  not_ok "simulated makespan within 25% of the recorded one, start order of >= 80% of job pairs as recorded" "$report"
fi
