#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The house kept small: no product source (C and C++ outside tests/) past
# 500 lines, so that a file keeps one job; and the folders' includes form no
# circle, so that each folder builds on those below it only. An include that
# closes a circle is named with its file: the side of the circle with the
# fewer includes is the one that runs back up.
source "$(dirname "$0")/../integration/tap.sh"
plan 2
cd "$TOP_SRCDIR" || exit 1
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  skip "not a git checkout: the source's file list is git's" 2
  exit 0
fi
limit=500

long=$(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' | grep -v '^tests/' | while read -r f; do
  n=$(wc -l <"$f")
  [ "$n" -gt $limit ] && echo "$f: $n lines (split it: one job a file)"
done)
count=$(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' | grep -vc '^tests/')
if [ "$count" -gt 100 ] && [ -z "$long" ]; then ok "none of the $count product sources is over $limit lines"
else not_ok "no product source over $limit lines ($count checked)" "$long"; fi

out=$(PYTHONPATH="$TOP_SRCDIR/tests/tree" python3 - <<'PY'
from collections import defaultdict
from includes import quoted_includes, tracked
files = tracked()
def folder(f):
    parts = f.split('/')
    # lib/'s folders are rooms of their own; elsewhere the top folder is (a
    # plugin's folders share plugins/'s headers).
    if parts[0] == 'lib' and len(parts) > 2:
        return 'lib/' + parts[1]
    return parts[0] if len(parts) > 1 else '.'
edges = defaultdict(list)
n = 0
for f, inc, where in quoted_includes(files, skip=lambda f: f.startswith('tests/')):
    if not where:
        continue
    n += 1
    a, b = folder(f), folder(where[0])
    if a != b:
        edges[(a, b)].append(f'{f} includes "{inc}"')
# Tarjan's strongly connected components over the folders.
graph = defaultdict(set)
for a, b in edges:
    graph[a].add(b)
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in sorted(graph[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = set()
        while True:
            w = stack.pop(); on.discard(w); comp.add(w)
            if w == v:
                break
        comps.append(comp)
for v in sorted(set(graph) | {b for bs in graph.values() for b in bs}):
    if v not in index:
        visit(v)
print(n)
for comp in comps:
    if len(comp) < 2:
        continue
    inside = {k: v for k, v in edges.items() if k[0] in comp and k[1] in comp}
    # Of each pair of folders that include each other, the fewer includes run back up.
    for (a, b), incs in sorted(inside.items()):
        back = inside.get((b, a), [])
        if back and (len(incs), a) < (len(back), b) or not back and len(incs) <= min(map(len, inside.values())):
            for i in incs:
                print(f'{i}: {a}/ up to {b}/, which {"includes " + a + "/ back" if back else "is in a circle with it: " + ", ".join(sorted(comp))}')
PY
)
count=$(head -1 <<<"$out")
up=$(tail -n +2 <<<"$out")
if [ "${count:-0}" -gt 300 ] && [ -z "$up" ]; then ok "the $count includes between product files form no circle between folders: none runs back up"
else not_ok "no include runs back up ($count checked)" "$up"; fi
