# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's quoted includes as the build resolves them: beside the
# including file, at the top, or in lib/ (the plugins' also in plugins/ and
# plugins/tune_host/). Shared by tree/paths.sh and tree/house.sh.
import os
import re
import subprocess


def tracked():
    return set(subprocess.run(['git', 'ls-files'], capture_output=True, text=True).stdout.split())


def quoted_includes(files, skip=lambda f: False):
    """(file, include, [the tracked files it resolves to]) for every quoted include of a C/C++ file."""
    for f in sorted(files):
        if not re.search(r'\.(c|h|cpp|hpp)$', f) or skip(f):
            continue
        roots = ['', 'lib/'] + (['plugins/', 'plugins/tune_host/'] if f.startswith('plugins/') else [])
        for line in open(f, encoding='utf-8', errors='replace'):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            where = [p for p in [os.path.normpath(os.path.join(os.path.dirname(f), inc))] + [r + inc for r in roots]
                     if p in files]
            yield f, inc, sorted(set(where))
