# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the integration tests: TAP output, and a private test cluster
# started through scripts/cluster that is stopped however the test ends.
set -u
TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TOP_BUILDDIR=${TOP_BUILDDIR:-$TOP_SRCDIR}
cluster=$TOP_SRCDIR/scripts/cluster
tap_n=0

plan() { echo "1..$1"; }
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
not_ok() {
  tap_n=$((tap_n + 1)); echo "not ok $tap_n - $1"; shift
  [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
  return 0
}
# check NAME COMMAND...: one test case, passed when COMMAND exits 0; its output
# is shown only on failure.
check() {
  local name=$1 out; shift
  if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# tree_flag NAME: the build tree's CFLAGS, CXXFLAGS, CPPFLAGS or LDFLAGS
# (the packages' hardened ones, scripts/setup), which the tests' package and
# tarball builds take so that ccache serves them the tree's objects.
tree_flag() { sed -n "s/^$1 = //p" "$TOP_BUILDDIR/Makefile"; }
# wait_until SECONDS COMMAND...: until COMMAND succeeds (polled every 0.1 s),
# at most SECONDS of wall time; fails if it never did. A case waits this way
# for the state it needs (a writer still writing, a trial running, a step
# alive) rather than sleeping for a time a busy machine may not keep; the
# bound is only reached when something is wrong, so it is generous.
wait_until() {
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
}
# What tune's processes are doing, for a test that gave up on one: the
# process tree and, where gdb is installed, every thread's stack.
stuck_processes() {
  ps -eo pid,ppid,stat,etime,wchan:24,args --forest | grep -E 'tune|mpirun|prted|orted|slurmstepd|python' | grep -v grep
  command -v gdb >/dev/null || return 0
  local p
  for p in $(pgrep -x tune; pgrep -x lt-tune); do
    echo "== stacks of $p: $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-120)"
    timeout 30 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(#|Thread)'
  done
}

# Cleanup at exit, however the test ends: the cluster (its logs kept in
# tests/integration/NAME.run/log), then scratch directories.
scratch_dirs=()
tap_exit() {
  cluster_down
  if [ -n "${CLUSTER_DIR:-}" ] && [ -n "${CLUSTER_LOGS:-}" ] && [ -d "$CLUSTER_DIR/log" ]; then
    rm -rf "$CLUSTER_LOGS" && mkdir -p "$CLUSTER_LOGS" && cp -a "$CLUSTER_DIR/log" "$CLUSTER_LOGS/" 2>/dev/null
  fi
  local d; for d in "${scratch_dirs[@]}"; do rm -rf "$d"; done
}
trap tap_exit EXIT

# cluster_up NAME PORT [scripts/cluster options...]: a fresh cluster, stopped
# at exit, on PORT plus TUNE_TEST_PORT_OFFSET (scripts/test runs the tests on
# another Slurm beside make check with an offset, so the two never meet on a
# port, a bridge or a namespace). Its directory (slurm.conf, the munge socket, plugins, state) is a
# scratch directory under /tmp, since the test users' commands and jobs must
# reach it and the checkout may sit where they cannot (a 0700 home); its logs
# are copied to tests/integration/NAME.run/log at exit. Bails out if it cannot start.
cluster_up() {
  local name=$1; CLUSTER_PORT=$(($2 + ${TUNE_TEST_PORT_OFFSET:-0})); shift 2
  scratch_dir CLUSTER_DIR || { echo "Bail out! cannot make a scratch directory for the cluster"; exit 1; }
  chmod 755 "$CLUSTER_DIR"
  CLUSTER_LOGS=$TOP_BUILDDIR/tests/integration/$name.run
  local out
  if ! out=$("$cluster" start --fresh --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" "$@" 2>&1); then
    printf '%s\n' "$out" | sed 's/^/# /'
    echo "Bail out! the test cluster did not start"
    exit 1
  fi
  diag "$out"
  # shellcheck disable=SC1091
  source "$CLUSTER_DIR/env"
}
# deployed_cluster_up NAME PORT [options...]: the product as a site deploys it,
# SchedulerType=sched/tune and SelectType=select/cons_tres_gang (no
# RequeueExit: tune wrap requeues a study itself). A test of a feature starts this one unless it
# exists to compare configurations.
deployed_cluster_up() {
  local name=$1 port=$2; shift 2
  cluster_up "$name" "$port" --scheduler sched/tune --select select/cons_tres_gang "$@"
}

# scratch_dir VAR: sets VAR to a new directory that every test user can
# write to (mode 1777, under /tmp, not inside the checkout, which may sit
# where they cannot reach), removed at exit.
scratch_dir() {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/tune-test.XXXXXX") || return 1
  chmod 1777 "$d"
  scratch_dirs+=("$d")
  printf -v "$1" '%s' "$d"
}

# user_tools: what the test users run, where they can reach it: $tune (a
# link to, or copy of, driver/tune with the Python client beside it, as in
# the build tree) and $programs (tests/integration/programs), in a scratch
# directory. A checkout under a 0700 directory is out of their reach.
user_tools() {
  scratch_dir user_tools_dir || { echo "Bail out! cannot make a scratch directory for the test users' tools"; exit 1; }
  chmod 755 "$user_tools_dir"
  mkdir -p "$user_tools_dir/driver" "$user_tools_dir/client" "$user_tools_dir/programs" &&
    { ln "$TOP_BUILDDIR/driver/tune" "$user_tools_dir/driver/tune" 2>/dev/null || cp "$TOP_BUILDDIR/driver/tune" "$user_tools_dir/driver/tune"; } &&
    cp -r "$TOP_SRCDIR/client/python" "$user_tools_dir/client/" &&
    cp "$TOP_SRCDIR"/tests/integration/programs/*.sh "$TOP_SRCDIR"/tests/integration/programs/*.json "$user_tools_dir/programs/" &&
    chmod -R a+rX "$user_tools_dir" || { echo "Bail out! cannot copy tune for the test users into $user_tools_dir"; exit 1; }
  tune=$user_tools_dir/driver/tune
  programs=$user_tools_dir/programs
}

# one_build_at_a_time COMMAND...: runs COMMAND (a compile of the whole tree)
# holding scripts/test's build lock, so that the tests' builds (the packages,
# the release tarball) take turns beside scripts/test's own: on two cores,
# more at once finish no sooner, and the tests running beside them (mostly
# waiting on daemons and their timeouts) would get less of the machine.
# Outside scripts/test it just runs COMMAND.
one_build_at_a_time() {
  [ -n "${TUNE_TEST_BUILD_LOCK:-}" ] || { "$@"; return; }
  local fd rc
  exec {fd}>>"$TUNE_TEST_BUILD_LOCK" && flock "$fd"
  "$@"; rc=$?
  flock -u "$fd"; exec {fd}>&-
  return $rc
}

# chroot_release ROOT: ends what still runs in the build chroot ROOT (a
# killed run's build) and unmounts what is bind-mounted under it, before
# anything under it is removed: never deleted through.
chroot_release() {
  local root=$1 m p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  for m in $(findmnt -rn -o TARGET 2>/dev/null | grep "^$root/" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}

# release_tarball DIR: make dist in the build tree, its tarball
# ($tarname.tar.gz, from print-install-dirs) moved into DIR. One test at a
# time: tests that run side by side share the build tree and its dist
# directory.
release_tarball() {
  (
    flock 9 || exit 1
    make -s -C "$TOP_BUILDDIR" dist && mv "$TOP_BUILDDIR/$tarname.tar.gz" "$1/"
  ) 9>"$TOP_BUILDDIR/tests/integration/.dist.lock" 2>&1
}

cluster_down() {
  [ -n "${CLUSTER_DIR:-}" ] && "$cluster" stop --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1
  return 0
}

# Which of our plugins a process has loaded: plugins_mapped PID (a running
# daemon), plugins_opened COMMAND... (a command run now, by the dynamic loader's log).
plugin_names='(sched_tune|job_submit_tune|site_factor_tune|select_cons_tres_gang)\.so'
plugins_mapped() { grep -oE "$plugin_names" "/proc/$1/maps" 2>/dev/null | sort -u | paste -sd' '; }
plugins_opened() { LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -oE "file=[^ ]*$plugin_names" | sed 's|.*/||' | sort -u | paste -sd' '; }

# cluster_stepds [DIR]: the slurmstepd processes of the test cluster in DIR
# [$CLUSTER_DIR], alive (not zombies). slurmstepd overwrites its environment
# with its title, so they are told from another cluster's by the slurmd log
# they keep open in DIR.
cluster_stepds() {
  local d=${1:-$CLUSTER_DIR} p f
  for p in $(pgrep -r R,S,D,T -x slurmstepd || true); do
    for f in /proc/"$p"/fd/*; do
      [[ $(readlink "$f" 2>/dev/null) == "$d/"* ]] && { echo "$p"; break; }
    done
  done
}

# A non-root user for multi-user tests (created once; needs root).
test_user() {
  local u=${1:-tune-user1}
  # Tests run two at a time (scripts/test) may create the same user at once,
  # or another while useradd holds /etc/passwd's lock: try again.
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    id "$u" >/dev/null 2>&1 && { echo "$u"; return 0; }
    useradd --create-home --shell /bin/bash "$u" >/dev/null 2>&1 || sleep 0.5
  done
  id "$u" >/dev/null 2>&1 && echo "$u"
}

# studies_setup: what a test of two users' studies needs: alice and bob (test
# users), work (a scratch directory) and work/sched_tune.conf, a sched/tune
# that acts within seconds: passes every second, a plateau after 3 results,
# a yield signal at level 1 once another tenant waited 3 s. Its tenants are
# the default's (the user where Slurm checks no account).
studies_setup() {
  alice=$(test_user tune-alice) && bob=$(test_user tune-bob) || { echo "Bail out! cannot create test users"; exit 1; }
  scratch_dir work || { echo "Bail out! cannot make a scratch directory"; exit 1; }
  cat >"$work/sched_tune.conf" <<'CONF'
interval = 1;
adaptive = { k = 1; m = 3; thresholds = [0.01]; relax_time = 3600; };
yield = { level = 1; wait = 3; cooldown = 600; };
CONF
}
# as USER COMMAND...: runs COMMAND as USER in $work on this cluster.
as() { local u=$1; shift; su "$u" -c "cd $work && SLURM_CONF=$SLURM_CONF TUNE_PROGRESS_INTERVAL=1 $*"; }

# The highest yield level of USER's trial-job studies, as tune queue --json
# shows it (0 when none has one yet).
trial_study_level() {
  as "$1" "$tune queue --json" | /usr/bin/python3 -c '
import json, sys
print(max([j.get("yield_level", 0) for j in json.load(sys.stdin) if j.get("role") in ("trial", "appcore")] or [0]))' 2>/dev/null
}

# warn_and_restart JOB: Slurm's time-limit warning to the batch shell
# (sbatch --signal=B:USR1), then, once tune wrap has requeued the job, its
# restart at once. Slurm holds a requeued job for 120 s (BeginTime); it is
# started only once the first run has left the nodes (until then Slurm
# revokes the restart's credential and fails the job).
warn_and_restart() {
  local job=$1
  scancel --signal=USR1 --batch "$job"
  for _ in $(seq 1 150); do
    [ "$(scontrol show job "$job" | grep -o 'Restarts=[0-9]*')" = Restarts=1 ] && break
    sleep 0.2
  done
  for _ in $(seq 1 150); do
    [ "$(squeue -h -j "$job" -o %T)" = PENDING ] && [ -z "$(sinfo -h -N -o %T | grep -v '^idle$')" ] && break
    sleep 0.2
  done
  sleep 1
  scontrol update jobid="$job" StartTime=now >/dev/null 2>&1
}

# A study's history as tune export's CSV; its ok trials; trials recorded ok twice.
export_csv() { "$tune" export "$1" --csv 2>/dev/null; }
count_final() { export_csv "$1" | awk -F, 'NR > 1 && $2 == "ok"' | wc -l; }
ids_twice() { export_csv "$1" | awk -F, 'NR > 1 && $2 == "ok" {print $1}' | sort | uniq -d | wc -l; }

# hosts_study_setup: for studies on a cluster whose nodes are hosts (--hosts),
# in $work: branin.json and where.sh, a trial that notes its host and job in
# its trial directory and reports x1 after $TRIAL_SLEEP s.
hosts_study_setup() {
  cp "$TOP_SRCDIR/examples/synthetic/branin.json" "$work/" && chmod 644 "$work/branin.json"
  cat >"$work/where.sh" <<'SH'
#!/bin/bash
echo "node=$(hostname) job=$SLURM_JOB_ID" >>"$TUNE_TRIAL_DIR/where"
sleep "${TRIAL_SLEEP:-1}" || exit 143
echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
SH
  chmod 755 "$work/where.sh"
}
# queue_empty: no job of this test's cluster left, pending, running or
# completing (a job's epilog may outlast its study on a busy machine);
# settled: that, and none of its trial jobs' processes alive.
queue_empty() { [ -z "$(squeue -h 2>/dev/null)" ]; }
settled() { queue_empty && [ -z "$(trial_processes)" ]; }
# bound_jobs STUDY: "job node" of each trial job that has started its trial;
# wait_bound STUDY N: until N have (up to 300 s).
bound_jobs() { cat "$1".trials/*/where 2>/dev/null | sed -n 's/^node=\([^ ]*\) job=\([0-9]*\)$/\2 \1/p' | sort -n; }
bound_at_least() { [ "$(bound_jobs "$1" | wc -l)" -ge "$2" ]; }
wait_bound() { wait_until 300 bound_at_least "$1" "$2"; }
# The processes of this test's trial jobs still alive on any node (they share
# this kernel): tune trial-job with a channel file in $work, and programs
# running in $work.
trial_processes() {
  local p
  for p in $(pgrep -f "tune trial-job|where.sh"); do
    [[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" == *" --channel $work/"* ]] ||
      [[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" == "$work"* ]] && echo "$p"
  done | paste -sd' '
}

# Waits for batch job $1 to leave the queue (up to $2 seconds, default 60).
wait_job() {
  local i
  for i in $(seq 1 $((${2:-60} * 5))); do
    squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
    sleep 0.2
  done
  return 1
}

# small_disk CASES WHAT: a 1 MB tmpfs at $disk ($PWD/disk, unmounted on exit)
# for the trials of a study that fills it, with space.json (x in [0, 1]) and
# trial.sh (20 step reports, a line of output, the objective) in $PWD; where
# no tmpfs can be mounted, CASES cases are skipped and the test ends.
small_disk() {
  disk=$PWD/disk
  mkdir -p "$disk"
  trap 'umount "$disk" 2>/dev/null; tap_exit' EXIT
  if ! mount -t tmpfs -o size=1m tmpfs "$disk" 2>mount.err; then
    local i
    for ((i = 0; i < $1; ++i)); do skip "$2" "cannot mount a tmpfs here: $(cat mount.err)"; done
    exit 0
  fi
  cat >space.json <<'J'
{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}
J
  cat >trial.sh <<'SH'
#!/bin/bash
for i in $(seq 1 20); do echo "step=$i loss=$TUNE_PARAM_x" >&"$TUNE_REPORT_FD"; done
echo "a line of output"
echo "objective=$TUNE_PARAM_x" >&"$TUNE_REPORT_FD"
SH
  chmod 755 trial.sh
}
# trials_in H5 [STATE]: how many of the history's trials are in STATE; without
# STATE, the counts by state ("ok=12 interrupted=1").
trials_in() {
  "$tune" export "$1" --csv 2>/dev/null | awk -F, -v s="${2:-}" 'NR > 1 {n[$2]++}
    END {if (s != "") print n[s] + 0; else for (k in n) printf "%s=%d ", k, n[k]}'
}
