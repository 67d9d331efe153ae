#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/cluster itself: clean stop/start cycles, refusals with clear messages,
# jobs cancelled at stop, and a broken configuration reported with its log.
source "$(dirname "$0")/tap.sh"
plan 7
port=$((17300 + ${TUNE_TEST_PORT_OFFSET:-0}))
dir=$TOP_BUILDDIR/tests/integration/cluster_lifecycle.run
CLUSTER_DIR=$dir CLUSTER_PORT=$port
trap cluster_down EXIT
run() { "$cluster" "$@" --dir "$dir" --port $port; }

# No daemon of this cluster and no listening port left.
clean_after_stop() {
  local left=() p
  for p in $(pgrep -f -- "$dir/" || true); do left+=("$p:$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"); done
  [ ${#left[@]} -eq 0 ] || { echo "stray processes: ${left[*]}"; return 1; }
  for p in $(seq $port $((port + 4))); do
    if ss -Hltn "sport = :$p" | grep -q .; then echo "port $p still listening"; return 1; fi
  done
}

# Ten start/stop cycles: every start reaches idle, every stop leaves nothing.
problems=()
times=()
for i in $(seq 1 10); do
  t0=$(date +%s%N)
  out=$(run start --fresh 2>&1) || { problems+=("start $i failed: $out"); break; }
  ms=$((($(date +%s%N) - t0) / 1000000))
  times+=("$((ms / 1000)).$(printf '%03d' $((ms % 1000)))")
  idle=$(SLURM_CONF=$dir/etc/slurm.conf sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$' || true)
  [ "$idle" -eq 4 ] || problems+=("start $i: $idle of 4 nodes idle")
  out=$(run stop 2>&1) || problems+=("stop $i failed: $out")
  msg=$(clean_after_stop) || problems+=("after stop $i: $msg")
done
if [ ${#problems[@]} -eq 0 ]; then ok "ten start/stop cycles leave no stray daemon and no port in use"
else not_ok "ten start/stop cycles leave no stray daemon and no port in use" "${problems[@]}"; fi
diag "seconds from start to all nodes idle: ${times[*]}"

# status tells running from stopped by exit code.
run status >/dev/null 2>&1; st=$?
if [ $st -eq 3 ]; then ok "status of a stopped cluster exits 3"; else not_ok "status of a stopped cluster exits 3" "exit $st"; fi

# A second start while running is refused and names the fix.
run start --fresh >/dev/null 2>&1
# shellcheck disable=SC1091
source "$dir/env"
out=$(run start 2>&1)
if [ $? -ne 0 ] && grep -q "already running" <<<"$out"; then ok "a second start is refused: already running"
else not_ok "a second start is refused: already running" "$out"; fi

# stop cancels running jobs and leaves none of their processes behind. Only
# this cluster's count: another test (scripts/test runs two at a time) may
# have steps and sleeps of its own. The job's programs carry its SLURM_CONF.
job_sleeps() {
  local p
  for p in $(pgrep -r R,S,D,T -x sleep || true); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$dir/etc/slurm.conf" && echo "$p"
  done
}
job=$(cd "$dir" && sbatch --parsable -N2 -o /dev/null --wrap 'srun sleep 600')
for _ in $(seq 1 50); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && [ "$(job_sleeps | wc -l)" -ge 2 ] && break; sleep 0.2; done
# What the check after stop looks for is there before it: the steps and the sleeps of both nodes.
stepds_before=$(cluster_stepds "$dir" | wc -l) sleeps_before=$(job_sleeps | wc -l)
run stop >/dev/null 2>&1
# Ended but not yet reaped (zombies, whose reaper here is the VM's init) count as gone.
if msg=$(clean_after_stop) && [ -z "$(cluster_stepds "$dir")" ] && [ -z "$(job_sleeps)" ] &&
   [ "$stepds_before" -ge 2 ] && [ "$sleeps_before" -ge 2 ]; then
  ok "stop cancels a running 2-node job and leaves no slurmstepd or job process"
else not_ok "stop cancels a running job and leaves no slurmstepd or job process" \
  "before stop: $stepds_before slurmstepd, $sleeps_before sleep (2 or more of each expected)" "$msg" \
  "left: slurmstepd $(cluster_stepds "$dir" | paste -sd' '), sleep $(job_sleeps | paste -sd' ')"; fi

# A port already taken is refused with the port named.
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $((port + 2)))); s.listen(); time.sleep(30)" &
holder=$!
# Until the holder listens (python's start can take seconds on a loaded machine;
# a fixed half second let start see the port free and a daemon then fail to bind).
for _ in $(seq 1 100); do ss -Hltn "sport = :$((port + 2))" | grep -q . && break; sleep 0.1; done
out=$(run start 2>&1); st=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null
if [ $st -ne 0 ] && grep -q "port(s) $((port + 2)) already in use" <<<"$out"; then ok "start refuses a port in use and names it"
else not_ok "start refuses a port in use and names it" "exit $st" "$out"; fi

# A broken slurm.conf makes start fail as soon as slurmctld exits, with the
# daemon's log: judged by the reason start gives (the daemon's exit, not the
# nodes' timeout), not by a time a busy machine may not keep.
t0=$SECONDS
out=$(run start --fresh --select select/no_such_plugin --timeout 300 2>&1); st=$?
if [ $st -ne 0 ] && grep -q "select/no_such_plugin" <<<"$out" && grep -q "slurmctld exited during start" <<<"$out" &&
   ! grep -q "were not all idle" <<<"$out" && clean_after_stop >/dev/null; then
  ok "a broken SelectType fails start when slurmctld exits ($((SECONDS - t0)) s), showing the log line and leaving nothing running"
else not_ok "a broken SelectType fails start with the daemon's exit and its log" "exit $st after $((SECONDS - t0)) s" "$out"; fi

# A malformed option names itself.
out=$(run start --nodes four 2>&1); st=$?
if [ $st -ne 0 ] && grep -q -- "--nodes must be a whole number, not 'four'" <<<"$out"; then ok "a malformed --nodes is refused by name"
else not_ok "a malformed --nodes is refused by name" "$out"; fi
