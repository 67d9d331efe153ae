#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's quick start runs as written (the block between its
# quick-start markers, line by line in one bash with `set -e`), from a view
# of the checkout whose .run/ is its own, as a new user would right after
# the two commands; and without a cluster, tune submit, queue and run
# --trial-jobs say so plainly, with the fix, and leave nothing behind.
source "$(dirname "$0")/tap.sh"
plan 8
readme=$TOP_SRCDIR/README.md
tune=$TOP_BUILDDIR/driver/tune
branin=(--space "$TOP_SRCDIR/examples/synthetic/branin.json" --trials 3)

# --- no cluster ---------------------------------------------------------------
scratch_dir none
cd "$none" || exit 1
out=$(SLURM_CONF=$none/slurm.conf "$tune" submit "${branin[@]}" --name nc -- "$TOP_SRCDIR/examples/synthetic/branin.py" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "no Slurm cluster is reachable: SLURM_CONF names $none/slurm.conf, which is not a file" <<<"$out" &&
  grep -q 'scripts/cluster start' <<<"$out" && [ -z "$(ls -A "$none")" ]; then
  ok "tune submit with SLURM_CONF naming no file: says so and how to start a cluster, writes nothing"
else not_ok "tune submit with SLURM_CONF naming no file" "rc=$rc" "$out" "$(ls -A "$none")"; fi

# No SLURM_CONF and no /etc/slurm/slurm.conf: libslurm would fatal() about
# configuration sources (after DNS SRV lookups).
if [ -e /etc/slurm/slurm.conf ]; then
  skip "tune queue and run --trial-jobs with no configuration anywhere" "this host has /etc/slurm/slurm.conf"
else
  q=$(env -u SLURM_CONF "$tune" queue 2>&1); qrc=$?
  r=$(env -u SLURM_CONF "$tune" run --trial-jobs "${branin[@]}" --history "$none/r.h5" -- "$TOP_SRCDIR/examples/synthetic/branin.py" 2>&1); rrc=$?
  if [ $qrc -eq 1 ] && [ $rrc -eq 1 ] && grep -q 'tune queue: error: no Slurm cluster is reachable' <<<"$q" &&
    grep -q 'tune run: error: --trial-jobs submits every trial to Slurm, but no Slurm cluster is reachable' <<<"$r" &&
    grep -q 'set SLURM_CONF' <<<"$q$r" && [ -z "$(ls -A "$none")" ]; then
    ok "tune queue and run --trial-jobs with no configuration anywhere: a plain message, nothing written"
  else not_ok "tune queue and run --trial-jobs with no configuration anywhere" "queue rc=$qrc: $q" "run rc=$rrc: $r"; fi
fi

# --- the quick start, as written ----------------------------------------------
block=$(sed -n '/^<!-- quick-start -->$/,/^<!-- \/quick-start -->$/p' "$readme" | sed '1,2d;$d' | sed '$d')
if [ -n "$block" ] && grep -q '^scripts/cluster start' <<<"$block" && grep -q 'driver/tune run --trial-jobs' <<<"$block"; then
  ok "README.md has a quick-start block ($(grep -c . <<<"$block") lines)"
else not_ok "README.md has a quick-start block" "$block"; fi

if [ "$(cd "$TOP_SRCDIR" && pwd -P)" != "$(cd "$TOP_BUILDDIR" && pwd -P)" ]; then
  for what in "runs as written" "MPI study" "trial-jobs study" "batch study and no job left"; do
    skip "quick start: $what" "the quick start's paths are those of an in-tree build"
  done
  exit 0
fi
# A view of the checkout: every entry a link, .run/ its own (the quick start
# writes .run/cluster, branin*.h5 and branin-batch.* there).
scratch_dir view
for entry in "$TOP_SRCDIR"/* "$TOP_SRCDIR"/.[!.]*; do
  case ${entry##*/} in .run|.git|'.[!.]*') continue ;; esac
  ln -s "$entry" "$view/"
done
CLUSTER_DIR=$view/.run/cluster CLUSTER_PORT=${TUNE_CLUSTER_PORT:-17100}  # stopped at exit (tap.sh)
CLUSTER_LOGS=$TOP_BUILDDIR/tests/integration/quick_start.run
printf '%s\n' "$block" >"$view/quick-start.sh"  # a file, not stdin: mpirun forwards its stdin to rank 0
out=$(cd "$view" && env -u SLURM_CONF -u TUNE_CLUSTER_DIR bash -e quick-start.sh 2>&1 </dev/null); rc=$?
if [ $rc -eq 0 ]; then ok "quick start runs as written ($(grep -c . <<<"$block") lines, exit 0)"
else not_ok "quick start runs as written" "exit $rc" "$(tail -n 30 <<<"$out")"; fi

source "$CLUSTER_DIR/env" 2>/dev/null
st=$(cd "$view" && "$tune" status branin.h5 2>&1)
if grep -qE '^trials: +50 \(50 ok\)' <<<"$st"; then ok "quick start: the MPI study recorded its 50 trials"
else not_ok "quick start: the MPI study recorded its 50 trials" "$st"; fi
st=$(cd "$view" && "$tune" status branin-jobs.h5 2>&1)
if grep -qE '^trials: +12 \(12 ok\)' <<<"$st" && grep -q 'tune: trial jobs: 12 submitted' <<<"$out"; then
  ok "quick start: the trial-jobs study ran 12 trial jobs"
else not_ok "quick start: the trial-jobs study ran 12 trial jobs" "$st"; fi

# The batch study: its AppCore job and trial jobs finish, nothing is left.
for _ in $(seq 1 120); do
  [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
  sleep 1
done
st=$(cd "$view" && "$tune" status branin-batch.h5 2>&1)
left=$(squeue -h -o '%i %j %T' 2>&1)
if grep -qE '^trials: +12 \(12 ok\)' <<<"$st" && [ -z "$left" ] && grep -q '^submitted job' <<<"$out" &&
  grep -q 'JOBID' <<<"$out"; then
  ok "quick start: the batch study (submitted, shown by tune queue) finished its 12 trials, no job left"
else not_ok "quick start: the batch study finished, no job left" "$st" "queue: $left" "$(cat "$view"/branin-batch-*.out 2>/dev/null | tail -n 20)"; fi

# A configuration whose slurmctld is gone: said so, with how to check.
conf=${SLURM_CONF:-$CLUSTER_DIR/slurm.conf}
(cd "$view" && scripts/cluster stop >/dev/null 2>&1)
q=$(SLURM_CONF=$conf "$tune" queue 2>&1); qrc=$?
if [ $qrc -eq 1 ] && grep -q 'no Slurm cluster is reachable: slurmctld did not answer' <<<"$q" && grep -q 'scripts/cluster status' <<<"$q"; then
  ok "tune queue after scripts/cluster stop: slurmctld did not answer, and how to check"
else not_ok "tune queue after scripts/cluster stop" "rc=$qrc" "$q"; fi
