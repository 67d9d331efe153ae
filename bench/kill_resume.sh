#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kill -9 of `tune run` at random moments, then --resume, again and again: is
# every trial that the driver reported finished before a kill in the final
# history exactly once? Run with file locks working and with them unavailable
# (a preload library whose flock()/fcntl() locks fail, as on Lustre without
# -o flock or NFSv3 without lockd), one after the other in the same run.
#
#   bash bench/kill_resume.sh                 # 100 kills per mode, in the build tree
#   KILLS=10 MODES="flock ENOLCK" bash bench/kill_resume.sh
#
# A quarter of the kills land in the first 0-99 ms (while the history is
# claimed, taken over or repaired), the rest 0-0.6 s after the study started;
# the first always after a trial was reported and the second after its study
# started, so that a run has a trial to keep and a claim to take over however
# slow or busy the machine is.
# Prints per mode: kills, trials reported before a kill, lost, recorded twice,
# the mean time from launch to the study's first line (a resume's cost: claim,
# take-over, repair) and its ratio to the flock mode's. Exits 1 if any trial
# was lost or recorded twice, or the last resume failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${TOP_BUILDDIR:-$top}
tune=$build/driver/tune
preload=$build/tests/integration/programs/no_locks.so
kills=${KILLS:-100}
modes=${MODES:-"flock ENOSYS"}
work=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/tune-kill-resume.XXXXXX")}
keep=${KEEP:-0}
[ -x "$tune" ] || { echo "kill_resume: $tune is not built (run scripts/setup)" >&2; exit 2; }
[ -f "$preload" ] || make -s -C "$build/tests" integration/programs/no_locks.so >/dev/null ||
  { echo "kill_resume: cannot build $preload" >&2; exit 2; }
mkdir -p "$work"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT

cat >"$work/space.json" <<'J'
{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}
J
# A trial of 20-120 ms that reports its x: unique per trial, so a trial
# recorded twice shows as a repeated value.
program='sleep 0.0$((RANDOM % 10 + 2)); echo objective=$TUNE_PARAM_x >&$TUNE_REPORT_FD'

status=0
declare -A ready_ms
for mode in $modes; do
  dir=$work/$mode && mkdir -p "$dir" && cd "$dir" || exit 2
  env=()
  [ "$mode" != flock ] && env=(LD_PRELOAD="$preload" TUNE_TEST_LOCK_ERRNO="$mode")
  : >reported
  started_ns=0 runs=0
  for i in $(seq 1 "$kills"); do
    resume=(); [ -e h.h5 ] && resume=(--resume)
    t0=$(date +%s%N)
    env "${env[@]}" "$tune" run --history h.h5 --space "$work/space.json" --trials 1000000 --seed "$i" --shell \
      "${resume[@]}" -- "$program" >"out.$i" 2>&1 &
    pid=$!
    if [ "$i" -eq 1 ]; then
      for _ in $(seq 1 1200); do grep -q "^tune: trial [0-9]* ok" "out.$i" 2>/dev/null && break; sleep 0.05; done
      sleep "0.$(printf '%02d' $((RANDOM % 60)))"
    elif [ "$i" -gt 2 ] && [ $((RANDOM % 4)) -eq 0 ]; then
      # A quarter of the kills land while it starts: claiming the history,
      # taking over a stale claim, repairing the file.
      sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    else
      # Until the study runs (its first line), then a random moment.
      for _ in $(seq 1 3000); do grep -q "^tune: study" "out.$i" 2>/dev/null && break; sleep 0.01; done
      started_ns=$((started_ns + $(date +%s%N) - t0)); runs=$((runs + 1))
      sleep "0.$(printf '%02d' $((RANDOM % 60)))"
    fi
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    sed -n 's/^tune: trial \([0-9]*\) ok objective=\([^ ]*\) .*/\1 \2/p' "out.$i" >>reported
  done
  n=$("$tune" export h.h5 --csv 2>/dev/null | awk 'NR > 1' | wc -l)
  env "${env[@]}" "$tune" run --history h.h5 --resume --trials $((n + 5)) --shell -- "$program" >final.out 2>&1
  final_rc=$?
  "$tune" export h.h5 --json >final.json 2>final.err
  verdict=$(/usr/bin/python3 - "$final_rc" <<'PY'
import json, sys
rc = int(sys.argv[1])
trials = json.load(open("final.json"))["trials"]
by_id = {t["id"]: t for t in trials}
reported = [l.split() for l in open("reported") if l.strip()]
lost = [i for i, v in reported
        if int(i) not in by_id or by_id[int(i)]["state"] != "ok"
        or abs(by_id[int(i)]["objective"] - float(v)) > 1e-5 * max(1, abs(float(v)))]
ids = [t["id"] for t in trials]
ok_values = [t["objective"] for t in trials if t["state"] == "ok"]
twice = (len(ids) - len(set(ids))) + (len(ok_values) - len(set(ok_values)))
print(len(reported), len(lost), twice, len(trials), sum(1 for t in trials if t["state"] == "ok"), rc)
PY
)
  read -r reported_n lost twice rows oks rc <<<"$verdict"
  ready_ms[$mode]=$((started_ns / (runs > 0 ? runs : 1) / 1000000))
  took=$(grep -c "^tune: took over" out.* 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')
  recovered=$(grep -c "^tune: recovered" out.* 2>/dev/null | awk -F: '{s += $2} END {print s + 0}')
  ratio=$(awk -v a="${ready_ms[$mode]}" -v b="${ready_ms[flock]:-${ready_ms[$mode]}}" 'BEGIN {printf "%.2f", b ? a / b : 1}')
  printf 'locks=%-10s kills=%d reported-before-kill=%d lost=%d recorded-twice=%d rows=%d ok=%d final-resume-rc=%d took-over=%d recovered=%d start-ms=%d (x%s of flock)\n' \
    "$mode" "$kills" "$reported_n" "$lost" "$twice" "$rows" "$oks" "$rc" "$took" "$recovered" "${ready_ms[$mode]}" "$ratio"
  if [ "$lost" != 0 ] || [ "$twice" != 0 ] || [ "$rc" != 0 ] || [ "$reported_n" = 0 ]; then
    status=1
    echo "kill_resume: $mode failed; its runs are in $dir" >&2
    keep=1; trap - EXIT
  fi
done
exit $status
