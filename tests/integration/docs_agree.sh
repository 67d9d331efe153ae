#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man page and --help tell the same story: every flag of every
# subcommand's --help is documented in tune(1), and the page renders cleanly.
source "$(dirname "$0")/tap.sh"
commands=(run submit status report export queue place simulate wrap)
plan $((${#commands[@]} + 4))  # one per command, the three other pages, tune(1) rendering
tune=$TOP_BUILDDIR/driver/tune
man=$TOP_BUILDDIR/man/tune.1
# roff escapes hyphens as \-; compare against the plain text.
text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$man")
for cmd in "${commands[@]}"; do
  flags=$("$tune" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u | grep -vx -- '--help')
  missing=()
  for f in $flags; do grep -qF -- "$f" <<<"$text" || missing+=("$f"); done
  if [ ${#missing[@]} -eq 0 ]; then ok "tune(1) documents every flag of 'tune $cmd --help' ($(wc -w <<<"$flags") flags)"
  else not_ok "tune(1) documents every flag of 'tune $cmd --help'" "missing: ${missing[*]}"; fi
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
for name in interval state_file adaptive yield enabled k m thresholds tolerance yield_factor max_level relax_time level signal wait cooldown; do
  grep -qE "(^|[ (.,])$name\b" <<<"$site_text" || missing+=("$name")
done
for name in $(grep -oE '(r\.(number|integer|boolean|text|group)\([^,]+, |exists\()"[a-z_]+"' "$TOP_SRCDIR/lib/priority/policy_config.cpp" | grep -oE '"[a-z_]+"' | tr -d '"' | sort -u); do
  case $name in fairshare|half_life|weight|age_weight|max_age|shares) continue ;; esac
  grep -qE "(^|[ (.,])$name\b" <<<"$site_text" || missing+=("$name")
done
site_warn=$(groff -man -ww -z "$site_man" 2>&1)
if [ ${#missing[@]} -eq 0 ] && [ -z "$site_warn" ]; then ok "site_factor_tune(8) documents every setting site_factor/tune reads and renders cleanly"
else not_ok "site_factor_tune(8) documents every setting" "missing: ${missing[*]}" "$site_warn"; fi
warnings=$(groff -man -ww -z "$man" 2>&1)
if [ -z "$warnings" ]; then ok "man/tune.1 renders without groff warnings"; else not_ok "man/tune.1 renders without groff warnings" "$warnings"; fi
