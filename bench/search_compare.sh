#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The broad search benchmark: tune's samplers (tpe, cmaes, random, bayes with 1, 8
# and 32 asynchronous runners) beside Optuna's TPE, CMA-ES and random
# (Debian's python3-optuna) in the same run, same seeds, trial budgets and
# noise draws, on the BBOB functions, noisy versions of four and mixed spaces
# (bench/problems.hpp); then the paired statistic and the aims
# (bench/search_compare.py over every result of the set so far).
#
#   bench/search_compare.sh                    the reduced set: 2 and 5 dimensions, 100 trials
#                                              (regret at 50 and 100), 59 problems, 10 seeds
#   SET=high PIECE="--functions 1,6 --dims 10" LABEL=f1-f6-10d bench/search_compare.sh
#                                              one piece of the higher-dimensional set: 10 and 20
#                                              dimensions, 300 trials, 8 functions and noisy
#                                              versions of four (24 problems), 10 seeds
#   SET=reduced PIECE="--functions 15-24" LABEL=f15-24 bench/search_compare.sh
#   PIECE="--first-seed 10" SET_DIR=reduced-seeds10 LABEL=seeds10 bench/search_compare.sh
#                                              the reduced set on seeds 10-19: the check, before it
#                                              is kept, of a change judged by how many problems it wins
#   bench/search_compare.py --ab A B FILES     an A/B of a change: sampler A against B, paired by seed,
#                                              and the problems where A is significantly worse or better
#   bench/search_compare.py --ab A1+A2 B FILES the typical one of several rules (per seed, their
#                                              geometric mean) against B, and each rule alone
#   bench/search_compare.py --ab A1+A2 B --best FILES
#                                              the best of them per seed, chosen after the fact:
#                                              what no choice among these rules can pass
#   bench/search_compare.py --keep OUT.jsonl.xz FILES
#                                              the lines a results page's table reads (a later one for
#                                              the same problem, sampler and seed replacing an earlier
#                                              one), compressed: what bench/results/search/ keeps
#
# A set runs in pieces (PIECE: more search_bench compare options, which
# override the set's) that each fit a session. Each piece's raw results are
# written outside the source tree, by the commit of the code that produced
# them (the last one that changed lib/ or the benchmark's own sources):
# $RESULTS/$SET/COMMIT/DATE_LABEL_{tune,optuna}.jsonl (RESULTS defaults to
# ~/.cache/tune/search), and its command is appended to COMMANDS there. The
# summary reads every file of that directory (a later result for the same
# problem, sampler and seed replaces an earlier one). OUT=dir writes
# elsewhere. The tree keeps only what docs/results/search-quality.md's tables
# read (--keep). TUNE_SAMPLERS and OPTUNA_SAMPLERS
# name each side's samplers (NAME-K: K asynchronous runners, e.g. tpe-8, Optuna's
# TPE with its constant liar); an empty OPTUNA_SAMPLERS runs tune's side only,
# for a change of tune's code whose Optuna results an earlier piece has. The
# summary also prints what the best sampler of every one measured reaches,
# chosen per problem in hindsight (a reference for the aims).
# The two sides run at once (one core each).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here}
make -s -C "$build" search_bench >/dev/null
if ! /usr/bin/python3 -c 'import optuna, cmaes, scipy' 2>/dev/null; then
  echo "search_compare.sh: needs Debian's python3-optuna, python3-cmaes and python3-scipy:" \
    "apt-get install python3-optuna python3-cmaes python3-scipy" >&2
  exit 2
fi
set_name=${SET:-reduced}
case $set_name in
  reduced) set_args="--dims 2,5 --trials 100 --checkpoints 50,100 --seeds 10" ;;
  high) set_args="--dims 10,20 --functions 1,6,8,10,15,21,22,24 --no-mixed --trials 300 --checkpoints 100,300 --seeds 10" ;;
  *) echo "search_compare.sh: SET is reduced or high, not '$set_name'" >&2; exit 2 ;;
esac
read -r -a args <<<"$set_args ${PIECE:-}"
tune_samplers=${TUNE_SAMPLERS:-tpe,cmaes,random,bayes,bayes-8,bayes-32}
optuna_samplers=${OPTUNA_SAMPLERS-tpe,cmaes,random}  # OPTUNA_SAMPLERS= (empty): tune's side only
label=${LABEL:-all}
if [[ ! $label =~ ^[A-Za-z0-9._-]+$ ]]; then
  echo "search_compare.sh: LABEL names the piece's files: letters, digits, . _ - only, not '$label'" >&2
  exit 2
fi
# The commit of the code the results depend on (the samplers, the problems,
# both sides' drivers), not of later changes elsewhere; "-modified" when that
# code differs from it.
code=(../lib search_bench.cpp problems.hpp bbob.hpp test_functions.hpp bench_io.hpp optuna_compare.py)
rev=$(cd "$here" && git log -1 --format=%h -- "${code[@]}" 2>/dev/null || true)
rev=${rev:-unversioned}
[ -z "$(cd "$here" && git status --porcelain -- "${code[@]}" 2>/dev/null)" ] || rev="$rev-modified"
out=${OUT:-${RESULTS:-${XDG_CACHE_HOME:-$HOME/.cache}/tune/search}/${SET_DIR:-$set_name}/$rev}
mkdir -p "$out"
stem="$out/$(date +%F)_$label"
command="search_bench compare ${args[*]} --samplers $tune_samplers"
[ -z "$optuna_samplers" ] || command+="; optuna_compare.py --samplers $optuna_samplers"
echo "search_compare: set $set_name, piece $label: $command; results in ${stem}_{tune,optuna}.jsonl"
start=$(date +%s)
"$build/search_bench" compare "${args[@]}" --samplers "$tune_samplers" >"${stem}_tune.jsonl.part" &
tune_pid=$!
if [ -n "$optuna_samplers" ]; then
  /usr/bin/python3 "$here/optuna_compare.py" "$build/search_bench" --samplers "$optuna_samplers" -- "${args[@]}" \
    >"${stem}_optuna.jsonl.part" &
  wait $!
  mv "${stem}_optuna.jsonl.part" "${stem}_optuna.jsonl"
fi
wait $tune_pid
# Whole pieces only: a run cut short leaves its .part files, which the summary does not read.
mv "${stem}_tune.jsonl.part" "${stem}_tune.jsonl"
seconds=$(( $(date +%s) - start ))
echo "$(date +%F) $label ($seconds s on $(nproc) cores): $command" >>"$out/COMMANDS"
echo "both sides done in $seconds s"
/usr/bin/python3 "$here/search_compare.py" "$out"
