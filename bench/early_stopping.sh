#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Early stopping on the digits example (PyTorch, 20 epochs per trial): the same
# search and seeds with and without ASHA, 2 runners. Prints trials and wall
# time until a trial reaches the target validation accuracy, and the epochs
# spent. Usage: bench/early_stopping.sh [trials] [target] [seeds...]
source "$(dirname "$0")/bench_env.sh"
trials=${1:-30}
target=${2:-0.95}
shift 2 2>/dev/null || true
seeds=("${@:-1 2 3}")
read -r -a seeds <<<"${seeds[*]}"
space=$top/examples/digits/space.json
program=$top/examples/digits/train.py
run() {  # run NAME SEED [flags...]
  local name=$1 seed=$2; shift 2
  mpirun --oversubscribe -np 3 "$tune" run -q --history "$name.h5" --space "$space" --algo bayes --seed "$seed" \
    --trials "$trials" --direction max "$@" -- "$program" >/dev/null
  "$tune" export "$name.h5" --json | python3 -c "
import json, sys
d = json.load(sys.stdin)
t = d['trials']
start = min(x['start_time'] for x in t)
hit = sorted((x['end_time'], x['id']) for x in t if x['state'] == 'ok' and x['objective'] >= $target)
epochs = sum(max(0, x['last_step']) for x in t)
n_before = sum(1 for x in t if hit and x['end_time'] <= hit[0][0])
print('%s %s %d' % (n_before if hit else '-', '%.1f' % (hit[0][0] - start) if hit else '-', epochs))"
}
printf '%-6s | %-28s | %-28s\n' seed "no early stopping" "asha (r=2, eta=3)"
printf '%-6s | %8s %9s %9s | %8s %9s %9s\n' "" trials "wall s" epochs trials "wall s" epochs
for seed in "${seeds[@]}"; do
  read -r n1 w1 e1 <<<"$(run plain-$seed "$seed")"
  read -r n2 w2 e2 <<<"$(run asha-$seed "$seed" --prune asha --prune-metric val_accuracy --min-resource 2 --reduction-factor 3)"
  printf '%-6s | %8s %9s %9s | %8s %9s %9s\n' "$seed" "$n1" "$w1" "$e1" "$n2" "$w2" "$e2"
done
echo "(trials / wall s: finished trials and seconds until the first reached $target; epochs: all trials, $trials trials each)"
