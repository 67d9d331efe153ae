#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dispatch: 2,000 trials of `true` on 8 runners (mpirun -np 9 on this host),
# RUNS times (default 3) in one scratch directory. Figures per run: trials per
# second, and the median gap between a trial's end and the next start on the
# same rank. Baseline in the same run, just before: the same 2,000 `true`
# processes started by `xargs -P 8` (a process pool with no search, no MPI and
# no history). `true` reports no objective, so every trial is recorded as
# invalid: --max-failures 0 keeps the study going.
#
# Nothing is deleted between runs. Each trial costs two new inodes (its
# directory and params.json; xargs creates none), and ext4 without a journal
# allocates inodes slowly for up to 6 minutes after many were deleted (the
# kernel's recently_deleted() skips every inode freed in that time, per
# allocation): a run started soon after a mass deletion (this script's own
# cleanup of 12,000 files at the end of the previous batch) is up to 1.5x
# slower. The script says when the file system is of that kind.
source "$(dirname "$0")/bench_env.sh"
n=${TRIALS:-2000}
runs=${RUNS:-3}
# TRIAL_ROOT=/dev/shm puts the trial directories there (removed at exit), to
# tell the file system's share from tune's.
trial_root=${TRIAL_ROOT:-}
if [[ -n $trial_root ]]; then
  trial_root=$(mktemp -d -p "$trial_root" dispatch.XXXXXX)
  trap 'rm -rf "$work" "$trial_root"' EXIT
fi
read -r dev fstype < <(findmnt -n -o SOURCE,FSTYPE -T "${trial_root:-.}")
if [[ $fstype == ext4 && $(cat "/sys/fs/ext4/${dev#/dev/}/journal_task" 2>/dev/null) == "<none>" ]]; then
  echo "note: the trial directories are on $dev, ext4 without a journal: for minutes after many files were" \
    "deleted there, creating files is slower (run batches minutes apart to compare builds)"
fi

for run in $(seq 1 "$runs"); do
  t0=$(date +%s%N)
  seq "$n" | xargs -P 8 -n 1 true
  base_s=$(( $(date +%s%N) - t0 ))

  t0=$(date +%s%N)
  mpirun --oversubscribe -np 9 "$tune" run --history "d$run.h5" --space space.json --trials "$n" --seed 1 \
    --max-failures 0 -q ${trial_root:+--trial-dir "$trial_root/d$run.trials"} -- true >/dev/null
  tune_s=$(( $(date +%s%N) - t0 ))

  "$tune" export "d$run.h5" --csv | /usr/bin/python3 -c "
import csv, statistics, sys
rows = list(csv.DictReader(sys.stdin))
by_rank = {}
for r in rows:
    by_rank.setdefault(r['rank'], []).append((float(r['start_time']), float(r['end_time'])))
gaps = []
for spans in by_rank.values():
    spans.sort()
    gaps += [b[0] - a[1] for a, b in zip(spans, spans[1:])]
n = len(rows)
tune_s, base_s = $tune_s / 1e9, $base_s / 1e9
span = max(e for v in by_rank.values() for s, e in v) - min(s for v in by_rank.values() for s, e in v)
print('run $run: %d trials of true on 8 runners in %.2f s = %.0f trials/s (MPI start included; steady %.0f/s);'
      ' median gap end -> next start on a rank %.2f ms (p90 %.2f ms)'
      % (n, tune_s, n / tune_s, n / span, 1e3 * statistics.median(gaps), 1e3 * statistics.quantiles(gaps, n=10)[-1]))
print('run $run: baseline xargs -P 8 true x %d in %.2f s = %.0f processes/s; ratio tune / xargs = %.2f'
      % (n, base_s, n / base_s, (n / tune_s) / (n / base_s)))
"
done
