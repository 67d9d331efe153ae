#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The two packagings, read side by side, agree on what a package build's
# checks (make check-package) need: debian/control's <!nocheck>
# Build-Depends and the BuildRequires under tune.spec's `%if %{with check}`
# name the same tools (each RPM name mapped to Debian's), and tools.sh asks
# a package build for nothing they do not bring.
source "$(dirname "$0")/../integration/tap.sh"
plan 2
declare -A debian_name=([gtest-devel]=libgtest-dev [gmock-devel]=libgmock-dev [python3-scipy]=python3-scipy [groff]=groff-base)
deb=$(grep -oE '[a-z0-9.+-]+ <!nocheck>' "$TOP_SRCDIR/debian/control" | awk '{print $1}' | sort)
rpm=$(sed -n '/^%if %{with check}$/,/^%endif$/p' "$TOP_SRCDIR/tune.spec.in" | sed -n 's/^BuildRequires://p' | tr ' ' '\n' | grep . |
  while read -r p; do echo "${debian_name[$p]:-unmapped:$p}"; done | sort)
if [ -n "$deb" ] && [ "$deb" = "$rpm" ]; then
  ok "debian/control's <!nocheck> build dependencies and tune.spec's check BuildRequires name the same $(wc -l <<<"$deb") tools"
else not_ok "the check dependencies of debian/control and tune.spec agree" "debian/control: $(paste -sd' ' <<<"$deb")" "tune.spec: $(paste -sd' ' <<<"$rpm")"; fi
# tools.sh's package scope: the packages its checks outside the developers'
# block name, and GoogleTest (configure's list).
asked=$(awk '/^if \[ \$package = no \]/ {skip = 1} skip && /^fi$/ {skip = 0; next} !skip' "$TOP_SRCDIR/tests/tools.sh" |
  grep -oE '^need "[^"]*" ("[^"]*"|[^ ]+)' | sed -E 's/^need "[^"]*" "?//; s/"$//' | tr ' ' '\n' | grep . | sort -u)
asked=$(printf '%s\nlibgtest-dev\nlibgmock-dev\n' "$asked" | grep -vx make | sort -u)  # make: build-essential's
extra=$(comm -23 <(echo "$asked") <(echo "$deb"))
if [ -z "$extra" ]; then ok "what tools.sh asks of a package build ($(paste -sd' ' <<<"$asked")) is in debian/control's <!nocheck> list"
else not_ok "tools.sh asks a package build only for its build dependencies" "not in debian/control: $extra"; fi
