#!/usr/bin/env bash
# The broad search benchmark: tune's samplers (bayes with 1 and 8 runners,
# random) beside Optuna's TPE, CMA-ES and random (Debian's python3-optuna) in
# the same run, on the 24 BBOB functions, noisy versions of four and mixed
# spaces (bench/problems.hpp), same seeds and trial budgets; then the table
# and the aims (bench/search_compare.py).
#
#   bench/search_compare.sh              reduced: 2 and 5 dimensions, 100 trials
#                                        (regret at 50 and 100), 5 seeds: ~9 min
#   FULL=1 bench/search_compare.sh       2, 5, 10, 20 dimensions, 300 trials
#                                        (50, 100, 300), 10 seeds: many hours
#   ARGS="--dims 5 --functions 15-24" bench/search_compare.sh   any subset
#
# The two sides run at once (one core each); results stay in $OUT (default
# a fresh directory under /tmp) as JSON lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here}
make -s -C "$build" search_bench >/dev/null
if ! /usr/bin/python3 -c 'import optuna, cmaes' 2>/dev/null; then
  echo "search_compare.sh: needs Debian's python3-optuna and python3-cmaes: apt-get install python3-optuna python3-cmaes" >&2
  exit 2
fi
if [ "${FULL:-0}" = 1 ]; then
  default_args="--dims 2,5,10,20 --trials 300 --checkpoints 50,100,300 --seeds 10"
else
  default_args="--dims 2,5 --trials 100 --checkpoints 50,100 --seeds 5"
fi
read -r -a args <<<"${ARGS:-$default_args}"
out=${OUT:-$(mktemp -d /tmp/search_compare.XXXXXX)}
mkdir -p "$out"
echo "search_compare: ${args[*]}; results in $out"
start=$(date +%s)
"$build/search_bench" compare "${args[@]}" >"$out/tune.jsonl" &
tune_pid=$!
/usr/bin/python3 "$here/optuna_compare.py" "$build/search_bench" -- "${args[@]}" >"$out/optuna.jsonl" &
optuna_pid=$!
wait $tune_pid
wait $optuna_pid
echo "both sides done in $(( $(date +%s) - start )) s"
/usr/bin/python3 "$here/search_compare.py" "$out/tune.jsonl" "$out/optuna.jsonl"
