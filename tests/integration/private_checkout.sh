#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tests of non-root users pass from a checkout only root can reach (a
# clone in /root, or in a fresh `mktemp -d`, sits under a 0700 directory).
# This build tree is bind-mounted under a new 0700 directory and the second
# half of this file runs from there: a cluster, a non-root user's plain job
# and a non-root user's study submitted with `tune submit`, followed with
# `tune queue` and read with `tune status`.
set -u
if [ "${1:-}" != --inner ]; then
  here=$(cd "$(dirname "$0")" && pwd)
  private=$(mktemp -d "${TMPDIR:-/tmp}/tune-private.XXXXXX") || { echo "Bail out! mktemp failed"; exit 1; }
  chmod 700 "$private"
  mkdir -p "$private/build" "$private/src"
  unmount() { umount "$private/build" "$private/src" 2>/dev/null; rm -rf "$private"; }
  trap unmount EXIT
  if ! mount --bind "$TOP_BUILDDIR" "$private/build" 2>"$private/mount.err" ||
     ! mount --bind "$TOP_SRCDIR" "$private/src" 2>>"$private/mount.err"; then
    echo "1..1"
    echo "ok 1 - a checkout under a 0700 directory # SKIP cannot bind-mount here: $(head -1 "$private/mount.err")"
    exit 0
  fi
  rel=${here#"$TOP_SRCDIR"/}
  TOP_SRCDIR=$private/src TOP_BUILDDIR=$private/build bash "$private/src/$rel/private_checkout.sh" --inner
  exit $?
fi

source "$(dirname "$0")/tap.sh"
plan 5
user_tools
studies_setup
cluster_up private_checkout 17950 --nodes 2 --cpus 4 --memory 4000
cd "$work" || exit 1

# 0. The premise: the test users cannot reach the checkout itself.
if su "$alice" -c "test -x '$TOP_BUILDDIR/driver/tune' || test -r '$TOP_SRCDIR/README.md'" 2>/dev/null; then
  not_ok "the checkout ($TOP_BUILDDIR) is out of the test users' reach" "$alice can read it: this test proves nothing"
else
  ok "the checkout ($TOP_BUILDDIR) is out of the test users' reach"
fi

# 1. A plain job of a non-root user, its working directory in the scratch directory.
job=$(as "$alice" "sbatch --parsable -o user.out --wrap 'id -un; pwd'" 2>&1)
wait_job "$job" 30
if [ "$(head -1 user.out 2>/dev/null)" = "$alice" ] && [ "$(sed -n 2p user.out)" = "$work" ]; then
  ok "a job of $alice runs as $alice in $work"
else not_ok "a job of $alice" "sbatch: $job" "$(cat user.out 2>&1)" "$(tail -5 "$CLUSTER_DIR/log/slurmd-node1.log" 2>&1)"; fi

# 2-4. A non-root user's study: submitted, seen in the queue, finished, read.
cp "$programs/flat.json" . && chmod 644 flat.json
out=$(as "$bob" "$tune submit --name private --trials 4 --parallel 2 --mem-per-trial 200M --space flat.json -- $programs/behave.sh" 2>&1)
study=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
if [[ $study =~ ^[0-9]+$ ]]; then ok "$bob's study submitted with tune submit (job $study)"
else not_ok "$bob's study submitted with tune submit" "$out"; fi
queue=$(as "$alice" "$tune queue" 2>&1)
if grep -Eq "^${study:-none} +$bob " <<<"$queue"; then ok "tune queue, run by $alice, shows $bob's study"
else not_ok "tune queue, run by $alice, shows $bob's study" "$queue"; fi
wait_job "${study:-0}" 120
status=$(as "$bob" "$tune status private.h5" 2>&1)
if grep -q "trials: *4 (4 ok)" <<<"$status"; then
  ok "$bob's study finished its 4 trials (tune status)"
else not_ok "$bob's study finished its 4 trials" "$status" "$(cat private-*.out 2>&1 | tail -20)"; fi
