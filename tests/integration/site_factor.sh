#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# site_factor/tune on a cluster with accounting, as most sites run Slurm:
# a private MariaDB and slurmdbd, accounts physics and bio, PriorityType=
# priority/multifactor, PrioritySiteFactorPlugin=site_factor/tune. Two users'
# trial-job studies: the plateaued one's pending trial jobs fall behind the
# other's, into the band (priority max_level + 1 - level), and sprio and tune
# queue show the SITE term; slurmdbd killed
# mid-study: slurmctld, the plugin and both studies go on (hostile Comments
# never raise a job, held jobs stay held, meanwhile), nothing is lost, and
# accounting catches up when it returns; slurmctld restarted mid-study keeps
# the state; no job is left behind.
source "$(dirname "$0")/tap.sh"
plan 9
user_tools  # $tune and $programs, reachable by the test users
studies_setup
cp "$work/sched_tune.conf" "$work/site_factor_tune.conf"
# Fair share off in this cluster and every job given the same 100,000
# points by its partition, so that without the SITE term all pending jobs
# tie and the older ones (bob's) start first: with fair share on, alice's
# idle account would pass bob's busy one by itself and the test could not
# tell what the plugin did. (The default accounting cluster and
# bench/table4_trial_jobs.sh weigh fair share.)
cluster_up site_factor 17920 --accounting --site-factor site_factor/tune --site-conf "$work/site_factor_tune.conf" \
  --select select/cons_tres_gang --nodes 4 --cpus 5 --memory 5000 --gpus 4 \
  --conf PriorityWeightFairshare=0 --conf PriorityWeightPartition=100000
cd "$work" || exit 1
log=$CLUSTER_DIR/log/slurmctld.log
submitted() { sed -n 's/^submitted job \([0-9]*\)$/\1/p' "$1"; }
# sprio's SITE of a pending job ("" if none), and whether any job has SITE > 0.
site_of() { sprio -h -j "$1" -o '%S' 2>/dev/null | tr -d ' ' | head -1; }
prio_of() { squeue -h -j "$1" -o %Q 2>/dev/null; }

# 1. The accounting cluster: slurmdbd holds the associations; multifactor with the plugin.
assocs=$(sacctmgr -n -P list assoc cluster=tune format=account,user 2>&1)
conf=$(scontrol show config 2>&1)
# Where the plugin loads: slurmctld only (docs/admin-guide.md's table of hosts).
loads="slurmctld: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmctld.pid")")
slurmd: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmd-node1.pid")")
sprio: $(plugins_opened sprio)"
if grep -qx "physics|$alice" <<<"$assocs" && grep -qx "bio|$bob" <<<"$assocs" && grep -qx "bio|root" <<<"$assocs" &&
   grep -Eq "^PriorityType += priority/multifactor" <<<"$conf" && grep -q "site_factor/tune: loaded" "$log" &&
   grep -q "^slurmctld: .*site_factor_tune.so" <<<"$loads" && [ "$(grep -c site_factor_tune <<<"$loads")" -eq 1 ]; then
  ok "slurmdbd with MariaDB holds accounts physics and bio for root, $alice and $bob; slurmctld runs priority/multifactor with site_factor/tune, loaded in slurmctld only"
else not_ok "the accounting cluster" "$assocs" "$(grep -E '^Priority|^Accounting' <<<"$conf")" "$(grep site_factor "$log")" "$loads"; fi

# 2. An account the user is not in is refused by name, and nothing is left in the queue.
out=$(as "$bob" "$tune submit --trial-jobs --name stray --space $programs/flat.json --trials 2 -A nosuch -- $programs/behave.sh" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -qi "account" <<<"$out" && [ -z "$(squeue -h -u "$bob")" ]; then
  ok "tune submit -A nosuch is refused naming the account; nothing queued ($(head -1 <<<"$out"))"
else not_ok "a bad account" "rc=$rc" "$out" "$(squeue -u "$bob")"; fi

# 3-4. Two studies. bob's (physics) is plateaued and keeps 16 trial jobs (4
# running, 12 pending); alice's (bio) starts later. Her trial jobs pass bob's
# older pending ones, whose SITE term sprio shows below zero.
cat >flat.json <<'JSON'
{"parameters": [{"name": "x1", "type": "bound", "value": [1.0, 1.001]}]}
JSON
cat >improving.json <<'JSON'
{"parameters": [{"name": "x1", "type": "number", "value": [100, 90, 70, 40, 10, 1, 0.5, 0.1]}]}
JSON
cat >where.sh <<'SH'
#!/bin/bash
sleep "${TRIAL_SLEEP:-1}" || exit 143
echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
SH
chmod 755 where.sh
chmod 644 flat.json improving.json
as "$bob" "TRIAL_SLEEP=3 $tune submit --trial-jobs --name flat --space flat.json --trials 400 --parallel 16 --cpus-per-trial 4 --mem-per-trial 500M -A physics -- $work/where.sh" >bob.out 2>&1
bob_core=$(submitted bob.out)
level=0
for _ in $(seq 1 300); do
  level=$(trial_study_level "$bob")
  [ "${level:-0}" -ge 1 ] && [ "$(squeue -h -u "$bob" -t PD -n flat.trial | wc -l)" -ge 8 ] && break
  sleep 0.2
done
as "$alice" "TRIAL_SLEEP=3 $tune submit --trial-jobs --name improving --algo grid --space improving.json --trials 8 --parallel 4 --cpus-per-trial 4 --mem-per-trial 500M -A bio -- $work/where.sh" >alice.out 2>&1
alice_core=$(submitted alice.out)
first=
for _ in $(seq 1 300); do first=$(squeue -h -u "$alice" -n improving.trial -o %i | sort -n | head -1); [ -n "$first" ] && break; sleep 0.1; done
older=$(squeue -h -u "$bob" -t PD -n flat.trial -o %i | awk -v f="${first:-0}" '$1 < f' | paste -sd' ')
# What multifactor gives bob's oldest pending trial job, with and without the SITE term.
oldest=${older%% *}
bob_site=$(site_of "$oldest") bob_prio=$(prio_of "$oldest") alice_prio=$(prio_of "$first")
passed=no still=0
for _ in $(seq 1 300); do
  if [ -n "$(squeue -h -u "$alice" -t R -n improving.trial)" ]; then
    for j in $older; do [ "$(squeue -h -j "$j" -o %T 2>/dev/null)" = PENDING ] && still=$((still + 1)); done
    [ $still -gt 0 ] && passed=yes
    break
  fi
  sleep 0.2
done
queue=$(as "$alice" "$tune queue 2>&1")
if [ $passed = yes ] && [ "${level:-0}" -ge 1 ] && [ "${bob_site:-0}" -lt 0 ] &&
   [ $((bob_prio - bob_site)) -ge "${alice_prio:-0}" ] && [ "$bob_prio" -lt "${alice_prio:-0}" ] && [ "$bob_prio" -le 8 ]; then
  ok "alice's first trial job ($first, priority $alice_prio) started while $still of bob's older pending trial jobs waited: bob's oldest had $((bob_prio - bob_site)) from multifactor, SITE $bob_site (its study at yield level $level or above), so $bob_prio, in the band (max_level + 1 - level)"
else not_ok "the plateaued study's pending trial jobs fall behind" "passed=$passed level=$level first=$first older=$older" \
  "bob's oldest $oldest: priority $bob_prio, SITE $bob_site; alice's first: $alice_prio" "$(sprio -l 2>&1 | head -20)"; fi
if grep -Eq "^ +[0-9]+ +$bob +PENDING +physics +flat-[0-9a-f]+ +[1-9] +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +-[0-9]+ " <<<"$queue" &&
   grep -q "SITE" <<<"$queue"; then
  ok "tune queue shows multifactor's factors beside the study's yield level and its negative SITE term"
else not_ok "tune queue under multifactor" "$queue"; fi
diag "$(head -8 <<<"$queue")"

# slurmdbd goes away now, mid-study (killed), and comes back after cases 5-6
# and alice's whole study have run without it.
"$cluster" daemon-stop slurmdbd --kill --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
down_at=$(date +%s) lines_at=$(wc -l <"$log") last_before=$(squeue -h -o %i | sort -n | tail -1)

# 5. Hostile Comments: a forged progress record, a forged tune summary, another
# user's study name. None gets a SITE term above zero, and none is raised.
hostile=()
for c in "tune:study=flat-$bob_core;n=999;dir=min;top=0,1,2,3,4" "tune:tenant=physics;site=99999;prio=4000000000" \
         "tune:study=flat;n=99999999999999;dir=min;top=nan" "$(head -c 300 /dev/urandom | tr -dc 'a-z;=:,' | head -c 200)"; do
  # Whole nodes, all four: pending for resources while the studies run.
  hostile+=("$(as "$alice" "sbatch --parsable -A bio -N 4 --exclusive --comment '$c' --wrap 'sleep 1' -o /dev/null" 2>/dev/null)")
done
sleep 3
raised=
for j in "${hostile[@]}"; do
  s=$(site_of "$j")
  [ -n "$s" ] && [ "$s" -gt 0 ] && raised+=" $j:$s"
done
seen=$(for j in "${hostile[@]}"; do site_of "$j"; done | grep -c .)
if [ ${#hostile[@]} -eq 4 ] && [ "$seen" -eq 4 ] && [ -z "$raised" ] && sprio -h -o '%S' | awk '$1 > 0 {bad = 1} END {exit bad}'; then
  ok "hostile Comments (a forged record of bob's study, a forged summary, garbage) never get a positive SITE term; no job anywhere has one"
else not_ok "hostile Comments" "raised:$raised" "$(sprio -l)"; fi
scancel "${hostile[@]}" 2>/dev/null

# 6. A held job of the plateaued study stays held through the plugin's passes.
held=$(as "$bob" "sbatch --parsable --hold -A physics -n 1 --mem 100M --comment 'tune:study=flat-$bob_core;n=40;dir=min;top=1,1,1,1,1' --wrap 'sleep 1' -o /dev/null" 2>/dev/null)
sleep 4
held_state=$(squeue -h -j "$held" -o '%Q %r' 2>/dev/null)
if [ "$held_state" = "0 JobHeldUser" ]; then ok "a held job of the plateaued study stays held (priority 0) through the plugin's passes"
else not_ok "held jobs stay held" "job $held: '$held_state'"; fi
scancel "$held" 2>/dev/null

# 7. slurmdbd killed mid-study (above): slurmctld and the plugin went on,
# alice's study finishes, nothing is lost; back up, slurmdbd receives every
# job that ran meanwhile. bob's trial jobs submitted meanwhile got their term.
t7=$SECONDS
for _ in $(seq 1 600); do [ -z "$(squeue -h -u "$alice")" ] && break; sleep 0.3; done
alice_wait=$((SECONDS - t7)) t7=$SECONDS
# bob's study runs on alone: its next trial jobs, submitted while slurmdbd is away.
newest= site_down=
for _ in $(seq 1 150); do
  newest=$(squeue -h -u "$bob" -t PD -n flat.trial -o %i | sort -n | tail -1)
  [ "${newest:-0}" -gt "$last_before" ] && site_down=$(site_of "$newest") && [ "${site_down:-0}" -lt 0 ] && break
  sleep 0.2
done
newest_wait=$((SECONDS - t7))
passes_after=$(tail -n +$((lines_at + 1)) "$log" | grep -c "site_factor/tune.*\(error\|failed\)")
alice_done=$("$tune" export improving.h5 --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok"' | wc -l)
ctld_up=$(scontrol ping 2>&1 | grep -c UP)
bob_done=$("$tune" export flat.h5 --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok"' | wc -l)
"$cluster" daemon-start slurmdbd --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
t7=$SECONDS since=$(date -d @$((down_at - 600)) +%Y-%m-%dT%H:%M:%S)
# The trial jobs that ended while slurmdbd was away reach it once it is back
# (slurmctld's agent resends them), each COMPLETED: the AppCore lets its last
# trial jobs end on their own rather than scancel them as it finishes.
for _ in $(seq 1 240); do
  recorded=$(sacct -n -X -P -u "$alice" -S "$since" -o JobName,State 2>/dev/null | grep -c '^improving.trial|COMPLETED$')
  [ "${recorded:-0}" -ge 8 ] && break
  sleep 1
done
diag "waited $alice_wait s for alice's study to end, $newest_wait s for bob's next trial job's SITE, $((SECONDS - t7)) s for slurmdbd's records"
if [ "$alice_done" -eq 8 ] && [ "$ctld_up" -ge 1 ] && [ "${passes_after:-0}" -eq 0 ] && [ "${site_down:-0}" -lt 0 ] && [ "${newest:-0}" -gt "$last_before" ] &&
   [ "${recorded:-0}" -ge 8 ] && [ -z "$(squeue -h -u "$alice")" ] && [ -n "$(squeue -h -j "$bob_core")" ]; then
  ok "slurmdbd killed mid-study: slurmctld and site_factor/tune went on (bob's trial job $newest got SITE $site_down meanwhile), alice's 8 trials finished and left no job, bob's ($bob_done so far) goes on; back up, slurmdbd recorded all $recorded of alice's trial jobs"
else not_ok "slurmdbd away mid-study" "alice's trials $alice_done, bob's $bob_done, slurmctld UP $ctld_up, plugin errors $passes_after, SITE of $newest '$site_down', recorded ${recorded:-0}" \
  "alice's jobs in sacct: $(sacct -n -X -P -u "$alice" -S "$since" -o JobID,JobName,State 2>&1 | paste -sd' ')" \
  "$(tail -5 "$CLUSTER_DIR/log/slurmdbd.log")" "$(squeue)"; fi

# 8. slurmctld restarted mid-study: the yield level comes back from the state file;
# bob's study then ends (its AppCore cancelled) and leaves no job.
before=$(grep -c "site_factor/tune: loaded" "$log")
"$cluster" daemon-stop slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
"$cluster" daemon-start slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
restored=$(grep -c "site_factor/tune: .*restored from" "$log")
sleep 3
level2=$(trial_study_level "$bob")
queued=$(squeue -h -j "$bob_core" 2>/dev/null)
# 9. Rolling back (admin-guide.md, section 8): slurmctld without the plugin
# keeps the pending jobs' SITE terms; the guide's command resets them.
"$cluster" daemon-stop slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
sed -i '/^PrioritySiteFactorPlugin=/d' "$CLUSTER_DIR/etc/slurm.conf"
"$cluster" daemon-start slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" --nodes 4 >/dev/null 2>&1
# A restarted slurmctld may answer before multifactor's first pass has
# computed the factors sprio shows (on a loaded machine): wait for them.
negative_sites() { sprio -h -o '%S' 2>/dev/null | awk '$1 < 0' | wc -l; }
some_negative() { [ "$(negative_sites)" -ge 1 ]; }
wait_until 60 some_negative
lowered_before=$(negative_sites)
rollback=$(awk '/^ *<!-- rollback: site-factor -->$/ {want = 1; next} want && /^ *```$/ {if (inside) exit; inside = 1; next} inside {print}' "$TOP_SRCDIR/docs/admin-guide.md")
rb_out=$(bash -ec "$rollback" 2>&1)
lowered_after=$(sprio -h -o '%S' 2>/dev/null | awk '$1 != 0' | wc -l)
scancel -u "$bob" -n flat 2>/dev/null
for _ in $(seq 1 300); do [ -z "$(squeue -h -u "$bob")" ] && break; sleep 0.3; done
if [ "$(grep -c "site_factor/tune: loaded" "$log")" -gt "$before" ] && [ "$restored" -ge 1 ] && [ "${level2:-0}" -ge 1 ] &&
   [ -n "$queued" ] && [ -z "$(squeue -h -u "$bob")" ]; then
  ok "slurmctld restarted mid-study: yield levels restored from StateSaveLocation (bob's study at level $level2); cancelled afterwards, bob's study left no job"
else not_ok "state across a slurmctld restart" "level $level -> $level2, restored=$restored, bob's AppCore queued: '$queued'" "$(squeue -u "$bob")" "$(grep site_factor "$log" | tail -5)"; fi
if [ -n "$rollback" ] && [ "$lowered_before" -ge 1 ] && [ "$lowered_after" -eq 0 ]; then
  ok "rollback: without site_factor/tune $lowered_before pending jobs kept their negative SITE term; the guide's command reset every one to 0"
else not_ok "rollback of site_factor/tune" "command: $rollback" "$rb_out" "negative before: $lowered_before, non-zero after: $lowered_after"; fi

