#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A bounded libFuzzer run of what takes untrusted input: the job Comment
# (through a whole sched/tune pass, checking it is strategy-proof),
# sched_tune.conf, and the trial-jobs channel's frames (a stranger's, and a
# proven trial job's through the message decoding). The kept corpus in tests/fuzz/corpus seeds each run;
# new inputs go to a scratch directory. TUNE_FUZZ_SECONDS sets the time.
. "$TOP_SRCDIR/tests/integration/tap.sh"
plan 3
seconds=${TUNE_FUZZ_SECONDS:-20}
export LSAN_OPTIONS=suppressions=$TOP_SRCDIR/tests/fuzz/lsan.supp
for target in comment config channel; do
  bin=$TOP_BUILDDIR/tests/fuzz/${target}_fuzz
  scratch=$(mktemp -d)
  if [ ! -x "$bin" ]; then
    not_ok "fuzz $target: $bin was not built (clang++ with libFuzzer missing? run scripts/setup)"
    continue
  fi
  if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$scratch/" \
      "$scratch" "$TOP_SRCDIR/tests/fuzz/corpus/$target" >"$scratch.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch.log")
    ok "fuzz $target: ${runs:-?} inputs in ${seconds} s, no crash, no broken invariant"
  else
    not_ok "fuzz $target: a crash or broken invariant; the input is in $scratch (replay: $bin FILE)"
    tail -40 "$scratch.log" | sed 's/^/# /'
    continue
  fi
  rm -rf "$scratch" "$scratch.log"
done
