#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Names in the tree say one thing each: an include path resolves into one
# folder only (tune's sources are compiled with -I. and -Ilib, so a folder
# at the top and one in lib/ of the same name would make "DIR/NAME.hpp"
# mean either), and every path a comment, a page or a script names exists
# (a file that moved leaves no comment pointing at its old place).
source "$(dirname "$0")/../integration/tap.sh"
plan 4
cd "$TOP_SRCDIR" || exit 1
if git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files)
else
  skip "not a git checkout: the source's file list is git's" 4
  exit 0
fi

# 1. No folder name at the top that lib/ also has.
both=$(comm -12 <(sed -n 's|^\([^/]*\)/.*|\1|p' <<<"$files" | sort -u) \
  <(sed -n 's|^lib/\([^/]*\)/.*|\1|p' <<<"$files" | sort -u))
if [ -z "$both" ]; then ok "no folder at the top shares its name with one in lib/"
else not_ok "no folder at the top shares its name with one in lib/" "in both: $both"; fi

# 2. Every quoted include resolves to exactly one file: beside the including
# file, at the top, or in lib/ (the plugins' also in plugins/ and
# plugins/tune_host/); one that resolves to none of ours must be Slurm's
# (slurm/, src/).
out=$(PYTHONPATH="$TOP_SRCDIR/tests/tree" python3 - <<'PY'
import os
from includes import quoted_includes, tracked
files = tracked()
# Made by configure or at build time, not in git.
built = {'tune_config.h'}
bad = []
n = 0
for f, inc, where in quoted_includes(files, skip=lambda f: f.startswith('tests/fuzz/corpus/')):
    n += 1
    if inc in built or os.path.basename(inc) in built:
        continue
    if not where and inc.startswith(('slurm/', 'src/')):
        continue
    if len(where) != 1:
        bad.append(f'{f}: "{inc}" resolves to {where or "nothing"}')
print(n)
print('\n'.join(bad))
PY
)
count=$(head -1 <<<"$out")
bad=$(tail -n +2 <<<"$out")
if [ "${count:-0}" -gt 300 ] && [ -z "$bad" ]; then ok "all $count quoted includes resolve to one file each"
else not_ok "every quoted include resolves to one file ($count checked)" "$bad"; fi

# 3. Every path named in a comment, a page or a script exists: a token that
# starts with one of the tree's folders (lib/'s included, as comments name
# them without lib/), or a bare NAME.hpp or NAME.cpp. Not paths: Slurm's
# plugin names (priority/multifactor), placeholders in capitals
# (lib/search/NAME_sampler), what a build or a test makes, system headers,
# and a page's worked example (a fenced block marked "example").
bad=$(python3 - <<'PY'
import fnmatch, os, re, subprocess
files = subprocess.run(['git', 'ls-files'], capture_output=True, text=True).stdout.split()
exist = set(files)
dirs = {os.path.dirname(f) for f in files}
for d in list(dirs):
    while '/' in d:
        d = d.rsplit('/', 1)[0]
        dirs.add(d)
bases = {os.path.basename(f) for f in files}
tops = sorted({f.split('/')[0] for f in files if '/' in f} | {d.split('/')[1] for d in dirs if d.startswith('lib/')})
token = re.compile(r'(?<![\w./$-])((?:' + '|'.join(map(re.escape, tops)) + r')/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])')
bare = re.compile(r'(?<![\w./*-])([a-z0-9_]+\.(?:hpp|cpp))\b')
slurm_plugin = re.compile(r'^(priority|sched|select|site_factor|job_submit|preempt|gres|mpi|proctrack|task|jobcomp|'
                          r'auth|cred|switch|topology|accounting_storage|jobacct_gather|acct_gather_[a-z]+)/[a-z_0-9]+$')
built = re.compile(r'(\.so|\.log|\.run|/tune|/tune\.c|^plugins/lib)$')
def known(p, prefix=False):
    if slurm_plugin.match(p) or built.search(p) or re.search(r'[A-Z]{2,}|/[0-9]', p):
        return True
    if prefix:
        return any(f.startswith(p) for f in files)
    for root in ('', 'lib/', 'tests/', 'plugins/'):
        for ext in ('', '.hpp', '.cpp', '.h', '.c', '.sh', '.py', '.md', '.in', '.am'):
            if root + p + ext in exist or root + p + ext in dirs:
                return True
        if '*' in p and any(fnmatch.fnmatch(f, root + p) or fnmatch.fnmatch(f, root + p + '.*') for f in files):
            return True
    return False
texts = [f for f in files if re.search(r'\.(c|h|cpp|hpp|sh|py|am|ac|md|in)$', f)
         and not f.startswith(('data/', 'bench/results/', 'tests/fuzz/corpus/'))]
for f in texts:
    example = False
    for i, line in enumerate(open(f, encoding='utf-8', errors='replace'), 1):
        # A page's worked example of files yet to be written: a fenced block
        # marked "example" (docs/architecture.md's new sampler).
        if f.endswith('.md') and line.startswith('```'):
            example = line.strip() == '```example'
            continue
        if example:
            continue
        line = line.replace('\\-', '-')  # roff's hyphen
        for m in token.finditer(line):
            p = re.sub(r"'s$", '', m.group(1).rstrip('.'))
            if not known(p, line[m.end():m.end() + 1] in ('{', '*')):
                print(f'{f}:{i}: {p}')
        for m in bare.finditer(line):
            if m.group(1) not in bases and not os.path.exists('/usr/include/' + m.group(1)):
                print(f'{f}:{i}: {m.group(1)}')
PY
)
if [ -z "$bad" ]; then ok "every path a comment, page or script names exists"
else not_ok "every path a comment, page or script names exists" "$bad"; fi

# 4. The policies' list the build reads (lib/policy_files.am) is the one their
# file names make: a policy is built by adding its file.
made=$(sh scripts/policy-files lib 2>&1)
if [ "$made" = "$(cat lib/policy_files.am)" ]; then ok "lib/policy_files.am lists every policy file ($(grep -c '^	' lib/policy_files.am) files)"
else not_ok "lib/policy_files.am is what scripts/policy-files makes" "$(diff <(echo "$made") lib/policy_files.am)" \
  "fix: scripts/setup (the README's commands run it), or scripts/policy-files lib >lib/policy_files.am"; fi
