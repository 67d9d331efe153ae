#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs first in make check: every tool the chosen tests need is here, or the
# missing ones are named with the Debian packages that bring them. A
# production build needs none of them (configure only notes their absence).
source "$(dirname "$0")/integration/tap.sh"
plan 1
missing=()
[ -n "${TUNE_MISSING_TEST_TOOLS:-}" ] && IFS=';' read -r -a missing <<<"$TUNE_MISSING_TEST_TOOLS"
# make check-package (a package build) runs the unit tests, not the sanitised
# ones, fuzzers or clusters: of configure's list only GoogleTest counts.
package=no
if [ "${TUNE_TOOLS_SCOPE:-}" = package ]; then
  package=yes kept=()
  for m in "${missing[@]}"; do [[ $m == *libgtest-dev* ]] && kept+=("$m"); done
  missing=("${kept[@]}")
fi
# need WHAT PACKAGES COMMAND...: WHAT is missing unless COMMAND succeeds.
need() { local what=$1 pkgs=$2; shift 2; "$@" >/dev/null 2>&1 || missing+=(" $what: apt-get install $pkgs"); }
need "python3 with SciPy (the search statistic's test)" python3-scipy /usr/bin/python3 -c 'import scipy.stats'
need "groff (the man pages' check)" groff-base groff -v
need "make (the install check)" make make --version
if [ $package = no ]; then
  need "python3 with pandas, Optuna and plotly (tune export's test)" "python3-pandas python3-optuna python3-plotly" \
    /usr/bin/python3 -c 'import pandas, optuna, plotly'
  need "clang-format 14 (the layout's check)" clang-format-14 clang-format-14 --version
fi
if [ "${TUNE_CLUSTER_TESTS:-no}" = yes ]; then
  # The integration tests run what scripts/setup installs: each package of
  # scripts/debian-packages.
  while read -r p; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
      missing+=(" $p (the integration tests; scripts/setup installs it): apt-get install $p")
  done < <(sed -e 's/#.*//' -e '/^\[/d' -e '/^[[:space:]]*$/d' "$TOP_SRCDIR/scripts/debian-packages")
fi
if [ ${#missing[@]} -eq 0 ]; then
  ok "the tools the tests need are here"
else
  not_ok "the tools the tests need are here: ${#missing[@]} missing" "${missing[@]# }"
fi
