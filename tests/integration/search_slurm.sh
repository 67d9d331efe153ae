#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bayesian search with ASHA early stopping, submitted to a real cluster: the
# whole job is killed with SIGKILL mid-study, resubmitted, and the study goes
# on from its history (the model and the rungs rebuilt from it). Then
# `tune report` writes its page and headless Chromium renders it.
source "$(dirname "$0")/tap.sh"
plan 6
deployed_cluster_up search_slurm 17500 --nodes 2 --cpus 4
tune=$TOP_BUILDDIR/driver/tune
work=$CLUSTER_DIR/work
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
wait_gone() { for _ in $(seq 1 "${2:-150}"); do [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0; sleep 1; done; return 1; }
count_final() { "$tune" export searched.h5 --csv 2>/dev/null | awk -F, 'NR > 1 && ($2 == "ok" || $2 == "pruned")' | wc -l; }

# 1. Submit; SIGKILL every process of the study once some trials are done.
export BRANIN_SLEEP=0.15
out=$("$tune" submit --name searched --trials 40 --parallel 3 --runners-per-node 2 --mem-per-trial 300M --seed 5 \
  --algo bayes --prune asha --prune-metric loss --min-resource 1 --reduction-factor 3 \
  --space "$TOP_SRCDIR/examples/synthetic/branin.json" -- "$TOP_SRCDIR/examples/synthetic/branin.py" 2>&1)
job=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
for _ in $(seq 1 300); do [ "$(count_final)" -ge 12 ] && break; sleep 0.2; done
pkill -KILL -f "tune run --history [^ ]*/searched.h5"
wait_gone "$job" 60
before=$(count_final)
state=$(sacct -n -X -j "$job" -o State 2>/dev/null | head -1 | tr -d ' ')
if [ "$before" -ge 12 ] && [ "$before" -lt 40 ]; then ok "kill -9 of the running study (job $job ${state:-gone}) with $before of 40 trials finished"
else not_ok "kill -9 mid-study" "$out" "finished: $before" "$(cat searched-*.out 2>&1 | tail -20)"; fi

# 2. The kept script, submitted again, resumes: the file is repaired and the study completes.
job2=$(sbatch --parsable searched.sbatch)
wait_gone "$job2" 150
log=$(cat searched-"$job2".out 2>&1)
trials=$("$tune" export searched.h5 --csv | awk -F, 'NR > 1 {print $1 ":" $2}')
if grep -q "recovered .*searched.h5 after an unclean stop" <<<"$log" && grep -q "trials so far" <<<"$log" &&
   [ "$(wc -l <<<"$trials")" -eq 40 ] && [ "$(count_final)" -eq 40 ] &&
   [ "$(cut -d: -f1 <<<"$trials" | sort -n | uniq | wc -l)" -eq 40 ]; then
  ok "resubmitted: history recovered, the study resumed and ended with 40 distinct finished trials"
else not_ok "the resubmitted job resumes the study" "$log" "$trials"; fi

# 3. Trials finished before the kill were not run again.
again=$(grep -oE 'trial [0-9]+ (ok|pruned)' <<<"$log" | awk '{print $2}' | sort)
first=$(cat searched-"$job".out | grep -oE 'trial [0-9]+ (ok|pruned)' | awk '{print $2}' | sort)
dup=$(comm -12 <(echo "$first") <(echo "$again") | paste -sd' ')
if [ -z "$dup" ] && [ -n "$first" ]; then ok "no trial finished in the first run ran again after the resume"
else not_ok "finished trials are not repeated" "ran twice: $dup"; fi

# 4. ASHA stopped trials and recorded where and why.
pruned=$("$tune" export searched.h5 --json | /usr/bin/python3 -c "
import json, sys
t = [x for x in json.load(sys.stdin)['trials'] if x['state'] == 'pruned']
bad = [x for x in t if x['last_step'] < 1 or 'asha' not in x['message']]
print(len(t), len(bad), t[0]['message'] if t else '')")
if [ "$(cut -d' ' -f1 <<<"$pruned")" -ge 3 ] && [ "$(cut -d' ' -f2 <<<"$pruned")" -eq 0 ]; then
  ok "asha pruned $(cut -d' ' -f1 <<<"$pruned") trials, each with its step and reason"
else not_ok "asha pruned trials with step and reason" "$pruned"; fi

# 5. The search goes on improving after the resume (Branin's minimum is 0.397887).
# The first run's lines name its ok trials (their objectives shown rounded); the export has them in full.
first_ok=$(grep -oE 'trial [0-9]+ ok objective=' searched-"$job".out | awk '{print $2}' | paste -sd' ')
best0=$("$tune" export searched.h5 --csv | awk -F, -v ids=" $first_ok " 'NR > 1 && $2 == "ok" && index(ids, " " $1 " ") {print $3}' | sort -g | head -1)
best=$("$tune" export searched.h5 --csv | awk -F, 'NR > 1 && $2 == "ok" {print $3}' | sort -g | head -1)
if [ -n "$best0" ] && awk -v a="$best0" -v b="$best" 'BEGIN {exit !(b < a)}'; then
  ok "best objective $best0 before the kill, $best after the resumed 40 trials (minimum 0.397887)"
else not_ok "the resumed search improves on the first run" "before: $best0 after: $best"; fi

# 6. tune report: text, a self-contained page, and Chromium renders every chart.
rep=$("$tune" report searched.h5 --svg charts 2>&1)
shot=$work/report.png
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  not_ok "tune report renders in Chromium" "chromium is not installed (scripts/setup installs it)"
else
  dom=$(timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/searched-report.html" 2>/dev/null)
  timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,2200 \
    --screenshot="$shot" "file://$work/searched-report.html" >/dev/null 2>&1
  figures=$(grep -o '<figure id="[a-z0-9-]*"><svg' <<<"$dom" | wc -l)
  crosses=$(grep -o 'class="pruned"' <<<"$dom" | wc -l)
  # 5 charts, the trials in parallel coordinates and the fitted objective over Branin's two parameters.
  if grep -q "pruning: .* trials stopped early" <<<"$rep" && [ "$figures" -eq 7 ] && [ "$crosses" -ge 3 ] &&
     grep -Eq "^parameter importance .*: x[12] [0-9.e-]+ x[12] [0-9.e-]+$" <<<"$rep" &&
     grep -q "<h2>Which parameters matter</h2>" <<<"$dom" && grep -q '<figure id="parallel"><svg' <<<"$dom" &&
     grep -q '<figure id="contour"><svg' <<<"$dom" &&
     ! grep -qE '(src|href)="https?:' "$work/searched-report.html" && [ "$(ls charts/*.svg | wc -l)" -eq 7 ] &&
     [ "$(stat -c %s "$shot" 2>/dev/null || echo 0)" -gt 20000 ]; then
    ok "tune report: 7 charts rendered by headless Chromium (parallel coordinates and the fitted objective's map among them), parameter importance, $crosses pruned trials marked, nothing from the network"
  else not_ok "tune report renders in Chromium" "$rep" "figures=$figures crosses=$crosses" "$(ls -l "$shot" charts 2>&1)"; fi
fi
