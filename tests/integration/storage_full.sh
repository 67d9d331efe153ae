#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A study's trial directories on a file system that fills, or goes read-only,
# while it runs (a small tmpfs; MPI mode, 2 runners, a trial that reports 20
# steps and prints a line): the storage is named with its path and the fix,
# no trial is charged to the program, the study waits (no trial handed out)
# and goes on by itself when the room comes back, or stops with exit 4 after
# --storage-wait; --resume then runs what the storage kept from running.
# Every trial ends up ok, each once. The history itself on such a file
# system: its writes wait in memory and reach the file once there is room;
# if none comes, the file holds everything flushed before and opens.
source "$(dirname "$0")/tap.sh"
tune=$TOP_BUILDDIR/driver/tune
work=$TOP_BUILDDIR/tests/integration/storage_full.run
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
  OMPI_MCA_btl_tcp_if_include=127.0.0.1/8 OMPI_MCA_oob_tcp_if_include=127.0.0.1/8
plan 6

small_disk 6 "a full file system"
# study NAME TRIALS WAIT [FLAGS...]: its history here, its trials on the tmpfs, in the background.
study() {
  local name=$1 trials=$2 wait=$3; shift 3
  timeout 600 mpirun --oversubscribe -np 3 "$tune" run --space space.json --history "$name.h5" \
    --trial-dir "$disk/$name" --name "$name" --trials "$trials" --storage-wait "$wait" "$@" -- ./trial.sh \
    >"$name.out" 2>&1
  echo $? >"$name.rc"
}
said() { grep -q "$2" "$1.out" 2>/dev/null; }
states() { trials_in "$1.h5"; }
count() { trials_in "$1.h5" "$2"; }

# 1. Full, then room again in time: the study waits and goes on by itself.
head -c 700000 /dev/zero >"$disk/filler"
study freed 80 120s &
wait_until 120 said freed "hands out no trial" || diag "never full: $(tail -3 freed.out)"
sleep 2  # a probe or two fails first
rm -f "$disk/filler"
wait
if [ "$(cat freed.rc)" = 0 ] && said freed "$disk/freed/[0-9]*\(/stdout\)\? is full writing the trial's" && said freed "takes writes again" &&
   [ "$(count freed ok)" -eq 80 ] && [ "$(count freed failed)" -eq 0 ]; then
  ok "full, then freed in time: named ($(grep -m1 -o "the file system of [^ ]* is full" freed.out)), the study waited and went on by itself; 80 trials ok, none failed"
else not_ok "full, then freed in time" "exit $(cat freed.rc); $(states freed)" "$(grep -v ' ok ' freed.out | head -8)"; fi

# 2. Full and staying full: exit 4 after --storage-wait, nothing charged;
# room again (the tmpfs made larger), --resume runs the rest, each trial once.
rm -rf "${disk:?}"/*
head -c 900000 /dev/zero >"$disk/filler"
study stays 60 3s
rc=$(cat stays.rc) before="$(states stays)" kept=$(count stays interrupted)
status=$("$tune" status stays.h5 2>&1 | grep '^storage:')
cp stays.out stays.first.out
mount -o remount,size=8m "$disk"
study stays 60 3s --resume
# The wait may start with a trial kept from running or with one whose output
# could not all be kept (its outcome stands): tune status counts the first kind.
if [ "$rc" = 4 ] && said stays.first "storage full or failing: .*--storage-wait" &&
   { [ "$kept" -eq 0 ] || grep -q "$kept trial(s) kept from running .*is full" <<<"$status"; } &&
   [[ $before != *failed* ]] && [ "$(cat stays.rc)" = 0 ] && [ "$(count stays ok)" -eq 60 ] && [ "$(count stays failed)" -eq 0 ]; then
  ok "full past --storage-wait: exit 4 naming the file system ($before), tune status too; --resume with room ran the rest: 60 ok, none failed, each once"
else not_ok "full past --storage-wait, then --resume" "first exit $rc ($before), resume exit $(cat stays.rc): $(states stays)" "status: $status" \
  "$(grep -v ' ok ' stays.first.out | head -8)" "$(grep -v ' ok ' stays.out | head -8)"; fi

# 3. Remounted read-only mid-study, then read-write in time.
rm -rf "${disk:?}"/*
study readonly 300 120s &
wait_until 60 bash -c "[ \$(ls '$disk/readonly' 2>/dev/null | wc -l) -ge 20 ]"
# A remount refuses while a file is open for writing (a trial's log): again until it takes.
wait_until 30 mount -o remount,ro "$disk" 2>/dev/null || diag "could not remount read-only"
wait_until 60 said readonly "is mounted read-only" || diag "never saw it read-only: $(tail -3 readonly.out)"
sleep 2
mount -o remount,rw "$disk"
wait
if [ "$(cat readonly.rc)" = 0 ] && said readonly "mounted read-only writing the trial's" && said readonly "takes writes again" &&
   [ "$(count readonly ok)" -eq 300 ] && [ "$(count readonly failed)" -eq 0 ]; then
  ok "read-only mid-study, then read-write: named as read-only, the study waited and went on; 300 trials ok, none failed"
else not_ok "read-only mid-study" "exit $(cat readonly.rc); $(states readonly)" "$(grep -v ' ok ' readonly.out | head -8)"; fi

# 4-5. The history itself on the file system that fills: freed in time, its
# queued writes reach the file; not freed, exit 4 and a history that opens
# with every trial it recorded, and --resume with room finishes the study.
# hstudy NAME TRIALS WAIT [FLAGS...]: the history on the tmpfs, the trials' files here.
hstudy() {
  local name=$1 trials=$2 wait=$3; shift 3
  (cd "$disk" && timeout 600 mpirun --oversubscribe -np 3 "$tune" run --space "$work/space.json" --history "$name.h5" \
    --trial-dir "$work/$name.trials" --name "$name" --trials "$trials" --storage-wait "$wait" "$@" -- "$work/trial.sh" \
    >"$work/$name.out" 2>&1
    echo $? >"$work/$name.rc")
}
hstates() { trials_in "$disk/$1.h5"; }
hcount() { trials_in "$disk/$1.h5" "$2"; }
rm -rf "${disk:?}"/*
mount -o remount,size=1m "$disk"
head -c 900000 /dev/zero >"$disk/filler"
hstudy hfreed 200 120s &
wait_until 120 said hfreed "hands out no trial" || diag "never full: $(tail -3 hfreed.out)"
sleep 2
rm -f "$disk/filler"
wait
if [ "$(cat hfreed.rc)" = 0 ] && said hfreed "is full writing the history" && said hfreed "takes writes again" &&
   [ "$(hcount hfreed ok)" -eq 200 ] && [ "$(hcount hfreed failed)" -eq 0 ]; then
  ok "the history's file system full, then freed: its writes waited in memory and reached the file; 200 ok, none failed"
else not_ok "the history's file system full, then freed" "exit $(cat hfreed.rc); $(hstates hfreed)" "$(grep -v ' ok ' hfreed.out | head -8)"; fi

rm -rf "${disk:?}"/*
head -c 900000 /dev/zero >"$disk/filler"
hstudy hstays 200 3s
rc=$(cat hstays.rc) before="$(hstates hstays)" recorded=$(hcount hstays ok)
cp hstays.out hstays.first.out
rm -f "$disk/filler"
mount -o remount,size=8m "$disk"
hstudy hstays 200 3s --resume
if [ "$rc" = 4 ] && [ "$recorded" -ge 1 ] && [[ $before != *failed* ]] && said hstays.first "full writing the history" &&
   [ "$(cat hstays.rc)" = 0 ] && [ "$(hcount hstays ok)" -eq 200 ] && [ "$(hcount hstays failed)" -eq 0 ]; then
  ok "the history's file system full past --storage-wait: exit 4, the history opened with $recorded trials ok ($before); --resume with room: 200 ok, none failed"
else not_ok "the history's file system full past --storage-wait" "first exit $rc ($before), resume exit $(cat hstays.rc): $(hstates hstays)" \
  "$(grep -v ' ok ' hstays.first.out | head -8)" "$(grep -v ' ok ' hstays.out | head -8)"; fi

# 6. A program that fails writing its own checkpoint on the full file system:
# not charged to it (its trial runs again once there is room).
rm -rf "${disk:?}"/*
mount -o remount,size=1m "$disk"
cat >ckpt.sh <<'SH'
#!/bin/bash
mkdir -p "$TUNE_CHECKPOINT_DIR" && head -c 200000 /dev/zero >"$TUNE_CHECKPOINT_DIR/state" || exit 1
echo "objective=$TUNE_PARAM_x" >&"$TUNE_REPORT_FD"
SH
chmod 755 ckpt.sh
head -c 900000 /dev/zero >"$disk/filler"
timeout 600 mpirun --oversubscribe -np 2 "$tune" run --space space.json --history ckpt.h5 --trial-dir "$disk/ckpt" \
  --name ckpt --trials 3 --storage-wait 120s -- ./ckpt.sh >ckpt.out 2>&1 &
wait_until 120 said ckpt "hands out no trial" || diag "never full: $(tail -3 ckpt.out)"
rm -f "$disk/filler"
wait
if said ckpt "the program failed then" && [ "$(count ckpt ok)" -eq 3 ] && [ "$(count ckpt failed)" -eq 0 ]; then
  ok "a program that failed writing its checkpoint on the full file system was not charged: 3 ok, none failed"
else not_ok "a checkpoint that cannot be written" "$(states ckpt)" "$(grep -v ' ok ' ckpt.out | head -8)"; fi
