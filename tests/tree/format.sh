#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every C++ file is laid out as .clang-format says (clang-format 14, Debian
# 12's): a change that is not formatted fails here, naming its files and the
# command that fixes them. The plugins' C keeps Slurm's own layout (tabs,
# 80 columns), which clang-format 14 cannot reproduce around its macros.
source "$(dirname "$0")/../integration/tap.sh"
plan 1
cd "$TOP_SRCDIR" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp')
else
  mapfile -t files < <(find . \( -name .build -o -name _build -o -path './debian/tune*' \) -prune -o \
    -type f \( -name '*.cpp' -o -name '*.hpp' \) -print | sed 's|^\./||' | sort)
fi
unformatted=()
for f in "${files[@]}"; do
  clang-format-14 --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [ "${#files[@]}" -gt 100 ] && [ ${#unformatted[@]} -eq 0 ]; then
  ok "all ${#files[@]} C++ files are formatted as .clang-format says"
else
  not_ok "every C++ file formatted (${#files[@]} checked, ${#unformatted[@]} not)" "${unformatted[@]}" \
    "fix: clang-format-14 -i ${unformatted[*]}"
fi
