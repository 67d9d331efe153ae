#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Trial jobs (tune run --trial-jobs) whose trial directories sit on a file
# system that fills while the study runs (a small tmpfs): the storage is
# named, no trial is charged to the program, the AppCore holds the trial
# jobs that ask for work and submits none while it waits, and goes on by
# itself when the room comes back; when it does not, the study stops with
# exit 4 and leaves no job in the queue.
source "$(dirname "$0")/tap.sh"
plan 2
cluster_up storage_trial_jobs 17940 --nodes 2 --cpus 2
work=$CLUSTER_DIR/work
rm -rf "$work" && mkdir -p "$work" && chmod 1777 "$work"
cd "$work" || exit 1
tune=$TOP_BUILDDIR/driver/tune
small_disk 2 "trial jobs on a full file system"
# study NAME TRIALS WAIT: a trial-jobs study, its trials' files on the tmpfs.
study() {
  timeout 600 "$tune" run --trial-jobs --space space.json --trials "$2" --parallel 2 --slurm-poll 1s \
    --history "$1.h5" --trial-dir "$disk/$1" --storage-wait "$3" -- ./trial.sh >"$1.log" 2>&1
  echo $? >"$1.rc"
}
count() { trials_in "$1.h5" "$2"; }
states() { trials_in "$1.h5"; }

# 1. Full, then freed in time.
head -c 700000 /dev/zero >"$disk/filler"
study freed 40 180s &
wait_until 240 grep -q "hands out no trial" freed.log || diag "never full: $(tail -3 freed.log)"
sleep 3
held=$(squeue -h -n freed.trial -t PD | wc -l)
rm -f "$disk/filler"
wait
if [ "$(cat freed.rc)" = 0 ] && grep -q "$disk/freed/[0-9]*\(/stdout\)\? is full writing the trial's" freed.log &&
   grep -q "takes writes again" freed.log && [ "$(count freed ok)" -eq 40 ] && [ "$(count freed failed)" -eq 0 ] &&
   [ -z "$(squeue -h)" ]; then
  ok "trial jobs, full then freed: named, the AppCore waited ($held trial job(s) pending then) and went on; 40 ok, none failed, no job left"
else not_ok "trial jobs, full then freed" "exit $(cat freed.rc); $(states freed)" "$(grep -v ' ok ' freed.log | head -8)" "$(squeue)"; fi

# 2. Full and staying full: exit 4, nothing charged, no job left behind.
rm -rf "${disk:?}"/*
head -c 900000 /dev/zero >"$disk/filler"
study stays 60 5s
if [ "$(cat stays.rc)" = 4 ] && grep -q "storage full or failing: .*--storage-wait" stays.log &&
   [ "$(count stays failed)" -eq 0 ] && [ -z "$(squeue -h)" ]; then
  ok "trial jobs, full past --storage-wait: exit 4 naming the file system ($(states stays)), no job left in the queue"
else not_ok "trial jobs, full past --storage-wait" "exit $(cat stays.rc); $(states stays)" "$(grep -v ' ok ' stays.log | head -8)" "$(squeue)"; fi
