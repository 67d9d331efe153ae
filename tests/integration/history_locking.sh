#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Histories where flock() does not work (Lustre without -o flock, NFSv3
# without lockd, some GPFS and DVS set-ups): the driver's study as a user runs
# it (start under mpirun, status and export while it writes, a second writer
# refused, a start that fails leaving nothing, kill -9 at random moments and
# --resume) on the local disk, with locks made unavailable by a preload
# library (each errno such file systems give), and on a real FUSE mount whose
# locks fail or are only local (as Lustre's localflock).
source "$(dirname "$0")/tap.sh"
tune=$TOP_BUILDDIR/driver/tune
preload=$TOP_BUILDDIR/tests/integration/programs/no_locks.so
lockless_fs=$TOP_BUILDDIR/tests/integration/programs/lockless_fs
work=$TOP_BUILDDIR/tests/integration/history_locking.run
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
  OMPI_MCA_btl_tcp_if_include=127.0.0.1/8 OMPI_MCA_oob_tcp_if_include=127.0.0.1/8

modes=(local ENOSYS ENOLCK EOPNOTSUPP EINVAL fuse-ENOSYS fuse-local)
plan $((${#modes[@]} * 3))

cat >space.json <<'J'
{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}
J
trial='sleep 0.0$((RANDOM % 10 + 3)); echo objective=$TUNE_PARAM_x >&$TUNE_REPORT_FD'
# The study that is read while it writes and meets a second writer: from its
# fourth trial on, each waits for the file "release" beside the history, which
# the case makes only after the reads and the second writer, so that it is
# still writing then however fast or busy this machine is (bounded: a trial
# goes on by itself after 120 s).
slow_trial='[ "$TUNE_TRIAL_ID" -lt 3 ] || for _ in $(seq 1 1200); do [ -e "$RELEASE" ] && break; sleep 0.1; done; echo objective=$TUNE_PARAM_x >&$TUNE_REPORT_FD'

mounts=()
unmount_all() { local m; for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || fusermount3 -u "$m" 2>/dev/null; done; }
trap 'unmount_all; tap_exit' EXIT

# mode_env MODE: the environment of every tune command of that mode.
mode_env() {
  case $1 in
    E*) echo "LD_PRELOAD=$preload TUNE_TEST_LOCK_ERRNO=$1" ;;
    *) echo "TUNE_TEST_MODE=$1" ;;
  esac
}
# files DIR: what lies beside the history (trial directories aside).
files() { (cd "$1" && ls -A | grep -v '\.trials$' | sort | paste -sd' '); }

for mode in "${modes[@]}"; do
  dir=$work/$mode
  mkdir -p "$dir"
  if [[ $mode == fuse-* ]]; then
    mkdir -p "$work/$mode.backing"
    locks=${mode#fuse-}
    TUNE_TEST_FUSE_LOCKS=$locks "$lockless_fs" "$work/$mode.backing" "$dir" -o allow_other 2>"$work/$mode.fuse.err"
    mounts+=("$dir")
    probe=$(/usr/bin/python3 -c "
import fcntl
f = open('$dir/probe', 'w')
try:
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print('flock works')
except OSError as e:
    print('flock fails:', e.strerror)" 2>&1)
    rm -f "$dir/probe"
    if ! grep -q fuse <<<"$(stat -f -c %T "$dir" 2>&1)"; then
      for _ in 1 2 3; do not_ok "$mode: FUSE mount" "$(cat "$work/$mode.fuse.err")"; done
      continue
    fi
    diag "$mode: a FUSE mount at $dir ($probe)"
  fi
  cd "$dir" || exit 1
  read -r -a env <<<"$(mode_env "$mode")"
  t() { env "${env[@]}" "$tune" "$@"; }

  # 1. Start under mpirun; status and export while it writes; a second writer
  # refused by name; a start that fails leaves no file; a clean end neither.
  rm -f "$dir.release"
  env "${env[@]}" RELEASE="$dir.release" "$tune" run --history s.h5 --space ../space.json --trials 30 --seed 3 --shell -q -- "$slow_trial" >/dev/null 2>&1 &
  first=$!
  # Until its first trials are recorded (it then waits for the release).
  first_rows() { [ "$(t export s.h5 --csv 2>/dev/null | awk 'NR > 1' | wc -l)" -ge 3 ]; }
  wait_until 120 first_rows || diag "$mode: the first study recorded fewer than 3 trials in 120 s"
  reads=() bad_reads=()
  for _ in 1 2 3 4 5; do
    st=$(t status s.h5 2>&1) || bad_reads+=("status: $st")
    n=$(t export s.h5 --csv 2>&1 | awk 'NR > 1' | wc -l)
    reads+=("$n")
    grep -q "^trials:" <<<"$st" || bad_reads+=("status: $st")
    sleep 0.1
  done
  second=$(t run --history s.h5 --resume --shell -q -- true 2>&1); second_rc=$?
  failed=$(t run --history bad.h5 --space no-such-space.json --shell -- true 2>&1); failed_rc=$?
  touch "$dir.release"
  wait $first; first_rc=$?
  mpi=$(env "${env[@]}" timeout 300 mpirun --oversubscribe -np 3 "$tune" run --history m.h5 --space ../space.json \
    --trials 12 --seed 4 --shell -q -- "$trial" 2>&1); mpi_rc=$?
  mpi_ok=$(t export m.h5 --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok"' | wc -l)
  left=$(files .)
  if [ $first_rc -eq 0 ] && [ ${#bad_reads[@]} -eq 0 ] && [ $second_rc -eq 1 ] &&
     grep -q "s.h5: another tune process is writing this history: pid $first on host" <<<"$second" &&
     [ $failed_rc -eq 1 ] && grep -q "no-such-space.json" <<<"$failed" && [ $mpi_rc -eq 0 ] && [ "$mpi_ok" -eq 12 ] &&
     [ "$left" = "m.h5 s.h5" ]; then
    ok "$mode: a study under mpirun (12 ok) and alone (30 trials, read while written: ${reads[*]} rows), a second writer refused by name, nothing left beside the histories"
  else not_ok "$mode: start, read while writing, second writer, failed start" "first exit $first_rc, mpirun exit $mpi_rc ($mpi_ok ok): $mpi" \
    "${bad_reads[@]}" "second (exit $second_rc): $second" "failed start (exit $failed_rc): $failed" "left: $left"; fi

  # 2. h5py reads the history while locks fail, as documented: with
  # HDF5_USE_FILE_LOCKING=FALSE where flock() does not work.
  py=$(env "${env[@]}" HDF5_USE_FILE_LOCKING=FALSE /usr/bin/python3 -c "
import h5py
print(len(h5py.File('s.h5', 'r')['trials']))" 2>&1)
  if [ "$py" = 30 ]; then ok "$mode: h5py reads the history (HDF5_USE_FILE_LOCKING=FALSE)"
  else not_ok "$mode: h5py reads the history" "$py"; fi

  # 3. kill -9 at random moments, then --resume: every trial the driver
  # reported finished before a kill is in the final history, once.
  out=$(TOP_BUILDDIR=$TOP_BUILDDIR KILLS=6 MODES=$([[ $mode == E* ]] && echo "$mode" || echo flock) WORK="$dir/kills" KEEP=1 \
    bash "$TOP_SRCDIR/bench/kill_resume.sh" 2>&1); rc=$?
  line=$(grep '^locks=' <<<"$out")
  if [ $rc -eq 0 ] && grep -q "lost=0 recorded-twice=0" <<<"$line" && grep -q "took-over=[1-9]" <<<"$line"; then
    ok "$mode: 6 kill -9 and --resume: $(sed -e 's/ start-ms.*//' -e 's/^locks=[^ ]* *//' <<<"$line")"
  else not_ok "$mode: kill -9 at random moments, then --resume" "exit $rc" "$out"; fi
  cd "$work" || exit 1
done
