#!/usr/bin/env bash
# The man page and --help tell the same story: every flag of every
# subcommand's --help is documented in tune(1), and the page renders cleanly.
source "$(dirname "$0")/tap.sh"
plan 6
tune=$TOP_BUILDDIR/driver/tune
man=$TOP_SRCDIR/man/tune.1
# roff escapes hyphens as \-; compare against the plain text.
text=$(sed 's/\\-/-/g; s/\\e/\\/g' "$man")
for cmd in run submit status report export; do
  flags=$("$tune" "$cmd" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u | grep -vx -- '--help')
  missing=()
  for f in $flags; do grep -qF -- "$f" <<<"$text" || missing+=("$f"); done
  if [ ${#missing[@]} -eq 0 ]; then ok "tune(1) documents every flag of 'tune $cmd --help' ($(wc -w <<<"$flags") flags)"
  else not_ok "tune(1) documents every flag of 'tune $cmd --help'" "missing: ${missing[*]}"; fi
done
warnings=$(groff -man -ww -z "$man" 2>&1)
if [ -z "$warnings" ]; then ok "man/tune.1 renders without groff warnings"; else not_ok "man/tune.1 renders without groff warnings" "$warnings"; fi
