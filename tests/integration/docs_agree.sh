#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man page and --help tell the same story: every flag of every
# subcommand's --help is documented in tune(1), and the page renders cleanly.
source "$(dirname "$0")/tap.sh"
tune=$TOP_BUILDDIR/driver/tune
# The subcommands as tune --help lists them: a new one is checked with no
# edit here (tune place once shipped without its page).
mapfile -t commands < <("$tune" --help 2>/dev/null | awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1}')
if [ ${#commands[@]} -lt 8 ]; then
  plan 1
  not_ok "tune --help lists the subcommands" "$("$tune" --help 2>&1 | head -20)"
  exit 0
fi
plan $((${#commands[@]} + 6))  # one per command, the plugins' three pages, rendering, size and paths, name lists
man=$TOP_BUILDDIR/man/tune.1
# roff escapes hyphens as \-; compare against the plain text.
text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$man")
search_text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$TOP_BUILDDIR/man/tune-search.7")
# tune simulate has a page of its own.
sim_man=$TOP_BUILDDIR/man/tune-simulate.1
sim_text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$sim_man")
for cmd in "${commands[@]}"; do
  page=tune\(1\) in=$text
  [ "$cmd" = simulate ] && page=tune-simulate\(1\) in=$sim_text
  # The search's and pruning's own settings are in tune-search(7), which tune(1) points to.
  case $cmd in run | submit) page="tune(1) or tune-search(7)" in=$text$search_text ;; esac
  flags=$("$tune" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u | grep -vx -- '--help')
  missing=()
  for f in $flags; do grep -qF -- "$f" <<<"$in" || missing+=("$f"); done
  if [ ${#missing[@]} -eq 0 ]; then ok "$page documents every flag of 'tune $cmd --help' ($(wc -w <<<"$flags") flags)"
  else not_ok "$page documents every flag of 'tune $cmd --help'" "missing: ${missing[*]}"; fi
done
conf_man=$TOP_BUILDDIR/man/sched_tune.conf.5
conf_text=$(sed 's/\\-/-/g' "$conf_man")
missing=()
for name in $(grep -oE '(r\.(number|integer|boolean|text|group)\([^,]+, |exists\()"[a-z_]+"' "$TOP_SRCDIR/lib/priority/policy_config.cpp" | grep -oE '"[a-z_]+"' | tr -d '"' | sort -u); do
  grep -qE "(^|[ .])$name\b" <<<"$conf_text" || missing+=("$name")
done
conf_warn=$(groff -man -ww -z "$conf_man" 2>&1)
if [ ${#missing[@]} -eq 0 ] && [ -z "$conf_warn" ]; then ok "sched_tune.conf(5) documents every setting the parser reads and renders cleanly"
else not_ok "sched_tune.conf(5) documents every setting" "missing: ${missing[*]}" "$conf_warn"; fi
gang_man=$TOP_BUILDDIR/man/select_cons_tres_gang.8
gang_text=$(sed 's/\\-/-/g' "$gang_man")
missing=()
for name in $(grep -oE 'key == "[a-z_]+"' "$TOP_SRCDIR/lib/placement/gang_config.cpp" | grep -oE '"[a-z_]+"' | tr -d '"'); do
  grep -qE "^\.BR $name " <<<"$gang_text" || missing+=("$name")
done
gang_warn=$(groff -man -ww -z "$gang_man" 2>&1)
if [ ${#missing[@]} -eq 0 ] && [ -z "$gang_warn" ]; then ok "select_cons_tres_gang(8) documents every select_gang.conf setting and renders cleanly"
else not_ok "select_cons_tres_gang(8) documents every setting" "missing: ${missing[*]}" "$gang_warn"; fi
# site_factor_tune(8): every setting the parser reads outside the fairshare
# group (which it refuses for site_factor/tune), and clean rendering.
site_man=$TOP_BUILDDIR/man/site_factor_tune.8
site_text=$(sed 's/\\-/-/g; s/\\fB//g; s/\\fR//g' "$site_man")
missing=()
for name in interval state_file adaptive yield enabled thresholds yield_factor max_level relax_time level signal wait cooldown; do
  grep -qE "(^|[ (.,])$name\b" <<<"$site_text" || missing+=("$name")
done
for name in $(grep -oE '(r\.(number|integer|boolean|text|group)\([^,]+, |exists\()"[a-z_]+"' "$TOP_SRCDIR/lib/priority/policy_config.cpp" | grep -oE '"[a-z_]+"' | tr -d '"' | sort -u); do
  case $name in fairshare|tenant|half_life|weight|age_weight|max_age|shares) continue ;; esac
  grep -qE "(^|[ (.,])$name\b" <<<"$site_text" || missing+=("$name")
done
site_warn=$(groff -man -ww -z "$site_man" 2>&1)
if [ ${#missing[@]} -eq 0 ] && [ -z "$site_warn" ]; then ok "site_factor_tune(8) documents every setting site_factor/tune reads and renders cleanly"
else not_ok "site_factor_tune(8) documents every setting" "missing: ${missing[*]}" "$site_warn"; fi
pages=("$man" "$sim_man" "$TOP_BUILDDIR/man/tune-history.5" "$TOP_BUILDDIR/man/tune-search.7")
warnings=$(for p in "${pages[@]}"; do groff -man -ww -z "$p" 2>&1 | sed "s|^|${p##*/}: |"; done)
if [ -z "$warnings" ]; then ok "tune(1), tune-simulate(1), tune-history(5) and tune-search(7) render without groff warnings"
else not_ok "the man pages render without groff warnings" "$warnings"; fi
# tune(1) is a reference, not a report: small enough to read, and no man
# page sends its reader into the source tree.
size=$(wc -c <"$man")
paths=$(grep -nE '(^|[ (])(lib|driver|bench|tests|scripts|plugins|libslurm|job_runner|trial|mpi_runner)/[a-z_]' "$TOP_BUILDDIR"/man/*.[1578] | head)
if [ "$size" -le 40000 ] && [ -z "$paths" ]; then ok "tune(1) is $size bytes (at most 40000); no man page names a source path"
else not_ok "tune(1) at most 40000 bytes, no source path in a man page" "tune(1): $size bytes" "$paths"; fi
# The names the registries hold (as --help lists them) are the names the pages give.
names_in() { "$tune" "$1" --help | grep -oE -- "$2(,[^ ]*)? TEXT:\\{[^}]*\\}" | sed 's/.*{//; s/}//' | tr ',' ' '; }
missing=()
for n in $(names_in run --algo) $(names_in run --prune); do grep -qE "^\\.I $n\$|\\b$n\\b" <<<"$text" || missing+=("tune(1): $n"); done
for n in $("$tune" simulate --help | sed -n 's/.*with the named estimator (//p' | sed 's/).*//' | tr -d ','); do
  grep -qF -- "$n" <<<"$conf_text" || missing+=("sched_tune.conf(5): $n")
done
for n in $(names_in simulate --placement) $("$tune" simulate --help | sed -n 's/.*priority policies to compare: //p' | tr ';' '\n' |
  awk '{print $1}' | grep -v ':'); do
  grep -qF -- "$n" <<<"$sim_text" || missing+=("tune-simulate(1): $n")
done
# Those lists are made from the registries at build time (man/registry_text.cpp): no token is left.
for p in "$TOP_BUILDDIR"/man/*.[1578]; do
  grep -qE '@(names|estimator-settings|settings,)' "$p" && missing+=("${p##*/}: a registry token left unfilled")
done
if [ ${#missing[@]} -eq 0 ]; then ok "every search algorithm, pruner, estimator, priority and placement policy the registries hold is named in its man page"
else not_ok "the registries' names are in the man pages" "${missing[@]}"; fi
