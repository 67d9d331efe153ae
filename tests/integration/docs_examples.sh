#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The examples of README.md, docs/user-guide.md and examples/README.md run as
# written: every fenced block after an `<!-- example -->` line (bash) or an
# `<!-- example python -->` line (Debian's python3), in page order, in one
# view of the checkout with tune on PATH, on one deployed cluster that has
# fake GPUs and a partition named gpu (the examples' placeholder) beside the
# default one. A block passes when it exits 0 and every job submitted while
# it ran ends COMPLETED. (README.md's quick start has its own test,
# quick_start.sh.)
source "$(dirname "$0")/tap.sh"
pages=(README.md docs/user-guide.md examples/README.md)
# Each page's blocks, as "page<TAB>kind<TAB>file" lines.
scratch_dir blocks_dir
listing=()
# The user guide's blocks run twice in a row, the second time in a fresh
# directory, as the guide tells its reader to try them again.
for page in "${pages[@]}"; do
  n=0 first_of_page=${#listing[@]}
  while IFS= read -r -d '' block; do
    n=$((n + 1))
    kind=${block%%$'\n'*}
    f=$blocks_dir/$(tr '/.' '__' <<<"$page")-$n
    printf '%s\n' "${block#*$'\n'}" >"$f"
    listing+=("$page"$'\t'"$kind"$'\t'"$f"$'\t'1)
  done < <(awk '
    /^<!-- example( python)? -->$/ { kind = ($3 == "python") ? "python" : "bash"; want = 1; next }
    want && /^```/ && !inside { inside = 1; printf "%s\n", kind; next }
    inside && /^```$/ { inside = 0; want = 0; printf "%c", 0; next }
    inside { print }
  ' "$TOP_SRCDIR/$page")
  if [ "$page" = docs/user-guide.md ]; then
    for entry in "${listing[@]:$first_of_page}"; do listing+=("${entry%$'\t'1}"$'\t'2); done
  fi
done
plan $((${#listing[@]} + 1))
if [ "$(cd "$TOP_SRCDIR" && pwd -P)" != "$(cd "$TOP_BUILDDIR" && pwd -P)" ]; then
  for _ in "${listing[@]}"; do skip "docs example" "the examples' paths are those of an in-tree build"; done
  skip "no job left" "not run"
  exit 0
fi
deployed_cluster_up docs_examples 17870 --nodes 2 --cpus 8 --memory 16000 --gpus 4 \
  --conf "PartitionName=gpu Nodes=node[1-2] MaxTime=INFINITE State=UP"
# Views of the checkout: every entry a link, so what the examples write
# stays there; the second is the fresh directory of the user guide's second try.
make_view() {
  local entry
  for entry in "$TOP_SRCDIR"/* "$TOP_SRCDIR"/.[!.]*; do
    case ${entry##*/} in .run|.git|'.[!.]*') continue ;; esac
    ln -s "$entry" "$1/"
  done
}
scratch_dir view1
scratch_dir view2
make_view "$view1"
make_view "$view2"
scratch_dir home  # the examples' ~ (~/venvs/torch)
last_job() { squeue -h -o %i 2>/dev/null | sort -n | tail -1; scontrol show job 2>/dev/null | grep -o '^JobId=[0-9]*' | cut -d= -f2 | sort -n | tail -1; }
before=$(last_job | sort -n | tail -1)
for entry in "${listing[@]}"; do
  IFS=$'\t' read -r page kind file try <<<"$entry"
  view=$view1
  [ "$try" = 2 ] && view=$view2 page="$page (again, in a fresh directory)"
  first=$(grep -v '^ *#' "$file" | grep -m1 . | cut -c1-70)
  t0=$SECONDS
  if [ "$kind" = python ]; then
    out=$(cd "$view" && HOME=$home PATH=$TOP_BUILDDIR/driver:$PATH timeout 600 /usr/bin/python3 "$file" 2>&1 </dev/null); rc=$?
  else
    out=$(cd "$view" && HOME=$home PATH=$TOP_BUILDDIR/driver:$PATH timeout 600 bash -e "$file" 2>&1 </dev/null); rc=$?
  fi
  stuck=
  [ $rc -eq 124 ] && stuck=$(stuck_processes 2>&1)  # what it waited on, before anything ends it
  for _ in $(seq 1 300); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 1; done
  # Every job of this block: ended, and COMPLETED.
  states=$(scontrol show job -o 2>/dev/null | awk -v from="${before:-0}" '
    { id = ""; st = ""; name = ""
      for (i = 1; i <= NF; i++) { if ($i ~ /^JobId=/) id = substr($i, 7); if ($i ~ /^JobState=/) st = substr($i, 10); if ($i ~ /^JobName=/) name = substr($i, 9) }
      if (id + 0 > from + 0) print id, name, st }')
  bad=$(awk '$3 != "COMPLETED"' <<<"$states")
  before=$(last_job | sort -n | tail -1)
  if [ $rc -eq 0 ] && [ -z "$bad" ]; then
    if [ -z "$states" ]; then what="no job"; else what="$(grep -c . <<<"$states") job(s) COMPLETED: $(awk '{print $1 "=" $2}' <<<"$states" | paste -sd' ')"; fi
    ok "$page: '$first' runs as written (exit 0, $what, $((SECONDS - t0)) s)"
  else
    logs=$(for id in $(awk '{print $1}' <<<"$bad"); do
      for f in "$view"/*-"$id".out; do [ -e "$f" ] && { echo "== $f"; tail -n 15 "$f"; }; done; done)
    not_ok "$page: '$first' runs as written" "exit $rc" "jobs not COMPLETED: $bad" "$(cat "$file")" "$(tail -n 30 <<<"$out")" "$logs" "$stuck"
  fi
done
if [ -z "$(squeue -h 2>/dev/null)" ] && scontrol ping | grep -q UP; then ok "no job left in the queue; slurmctld up"
else not_ok "clean end" "$(squeue)"; fi
