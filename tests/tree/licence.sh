#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file of tune says its licence in an SPDX line near its top
# (GPL-2.0-or-later, as Slurm, whose daemons load the plugins), LICENSE holds
# the GPL's text, and the traces in data/ keep their publishers' licences.
source "$(dirname "$0")/../integration/tap.sh"
plan 3
cd "$TOP_SRCDIR" || exit 1
spdx='SPDX-License-Identifier: GPL-2.0-or-later'
# The files of the source: git's list in a checkout, else (an unpacked
# tarball) every file but what autotools generated.
if git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files)
else
  # (make distcheck builds in _build/; a package build in debian/'s subdirectories)
  files=$(find . \( -name .cache -o -name .build -o -name .run -o -name autom4te.cache -o -name build-aux -o -name m4 \
      -o -name _build -o -path ./debian/.debhelper -o -path './debian/tmp' -o -path './debian/tune*' \) -prune -o -type f -print |
    sed 's|^\./||' | grep -vE '(^|/)(Makefile\.in|configure|aclocal\.m4|tune_config\.h(\.in)?|config\.status|libtool)$')
fi
sources=$(grep -E '\.(c|h|cpp|hpp|sh|py|am|ac|in|conf|sbatch|spec)$|^scripts/[a-z-]+$|^debian/rules$|^\.ci/run$' <<<"$files" |
  grep -vE '^(data|bench/results|tests/fuzz/corpus)/')
n=0 without=()
for f in $sources; do
  n=$((n + 1))
  head -n 3 "$f" | grep -qF "$spdx" || without+=("$f")
done
if [ "$n" -gt 100 ] && [ ${#without[@]} -eq 0 ]; then ok "all $n source files carry '$spdx'"
else not_ok "every source file carries '$spdx' in its first 3 lines ($n checked)" "${without[@]}"; fi
if grep -q 'GNU GENERAL PUBLIC LICENSE' LICENSE 2>/dev/null && grep -q 'Version 2, June 1991' LICENSE; then
  ok "LICENSE is the GPL version 2"
else not_ok "LICENSE is the GPL version 2" "$(head -3 LICENSE 2>&1)"; fi
if grep -q 'Apache License' data/traces/tiresias/LICENSE 2>/dev/null && grep -qi 'licen' data/traces/README.md &&
   grep -qi 'research' data/traces/alibaba-openb/README.md; then
  ok "the traces in data/ keep their own licences (Tiresias: Apache 2.0; Alibaba's terms)"
else not_ok "the traces in data/ keep their own licences" "$(ls data/traces/*/ 2>&1)"; fi
