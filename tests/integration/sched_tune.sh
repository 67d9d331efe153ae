#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sched/tune on a real cluster (4 nodes x 4 CPUs) with jobs of two non-root
# users: fair share after use, a plateaued study passed by another tenant,
# a running study asked to yield (requeued, resumed, nothing lost or
# repeated), state across a slurmctld restart, hostile Comments, a broken
# sched_tune.conf, and a heterogeneous job under JobSubmitPlugins=tune.
source "$(dirname "$0")/tap.sh"
plan 9
user_tools  # $tune and $programs, reachable by the test users
alice=$(test_user tune-alice) && bob=$(test_user tune-bob) || { echo "Bail out! cannot create test users"; exit 1; }
conf_dir=$(mktemp -d)
# Its jobs name accounts as tenants (one user under several): charged by
# account, as a site whose accounts are checked is (channel_attacks.sh tests
# the default, which charges the user where Slurm checks no account).
cat >"$conf_dir/sched_tune.conf" <<'CONF'
interval = 1;
fairshare = { tenant = "account"; half_life = 600; age_weight = 100; max_age = 3600; };
adaptive = { k = 1; m = 3; thresholds = [0.01]; relax_time = 3600; };
yield = { level = 1; wait = 3; cooldown = 600; };
CONF
opts=(--nodes 4 --cpus 4 --gpus 0 --scheduler sched/tune --sched-conf "$conf_dir/sched_tune.conf")
cluster_up sched_tune 17600 "${opts[@]}"
work=$CLUSTER_DIR/work
rm -rf "$work" && mkdir -p "$work" && chmod 1777 "$work" && cd "$work" || exit 1
log=$CLUSTER_DIR/log/slurmctld.log
as() { local u=$1; shift; su "$u" -c "cd $work && SLURM_CONF=$SLURM_CONF TUNE_PROGRESS_INTERVAL=1 $*"; }
submit() { local u=$1; shift; as "$u" "sbatch --parsable -D $work -o %j.out $*"; }
state_of() { squeue -h -j "$1" -o %T 2>/dev/null; }
prio_of() { squeue -h -j "$1" -o %Q 2>/dev/null; }
wait_state() {  # JOB STATE SECONDS
  for _ in $(seq 1 $(($3 * 5))); do [ "$(state_of "$1")" = "$2" ] && return 0; sleep 0.2; done; return 1
}
wait_idle() { for _ in $(seq 1 300); do [ -z "$(squeue -h -t R,CG 2>/dev/null)" ] && return 0; sleep 0.2; done; return 1; }
state_json() { /usr/bin/python3 -c "import json,sys; s=json.load(open('$CLUSTER_DIR/state/sched_tune.state')); print(eval(sys.argv[1]))" "$1" 2>/dev/null; }

# (a) alice fills the cluster for a while; then, with both waiting, bob's later job starts first.
used=$(submit "$alice" -n 16 -A lab-a --wrap "'sleep 6'")
wait_state "$used" RUNNING 30
a2=$(submit "$alice" -n 16 -A lab-a --wrap "'sleep 2'")
sleep 1.5
b1=$(submit "$bob" -n 16 -A lab-b --wrap "'sleep 2'")
sleep 2.5
pa=$(prio_of "$a2") pb=$(prio_of "$b1")
queue=$(as "$bob" "$tune queue")
wait_state "$b1" RUNNING 30
if [ "$(state_of "$a2")" = PENDING ] && [ "${pb:-0}" -gt "${pa:-0}" ] 2>/dev/null && grep -q "lab-a" <<<"$queue"; then
  ok "fair share: after lab-a used the cluster, lab-b's later job (priority $pb) starts before lab-a's ($pa)"
else not_ok "fair share orders the start" "a2=$a2 $(state_of "$a2") prio $pa; b1=$b1 $(state_of "$b1") prio $pb" "$queue"; fi
diag "$queue"
wait_idle

# (b) a plateaued study's pending job (bob) is passed by a later job of another tenant (alice).
block=$(submit "$alice" -n 16 -A blocker --wrap "'sleep 5'")
wait_state "$block" RUNNING 30
plateau="tune:study=flat-1;n=20;dir=min;top=0.5,0.5,0.5,0.5"
sb=$(submit "$bob" -n 16 -A physics --comment "'queued by hand $plateau'" --wrap "'sleep 1'")
sleep 2
sa=$(submit "$alice" -n 16 -A bio --wrap "'sleep 1'")
sleep 2
queue=$(as "$alice" "$tune queue")
wait_state "$sa" RUNNING 30
level=$(grep -E "^$sb .*flat-1 +[1-9]" <<<"$queue" | sed -E 's/.*flat-1 +([0-9]+) .*/\1/')
if [ "$(state_of "$sb")" = PENDING ] && [ "${level:-0}" -ge 1 ]; then
  ok "yield level $level for bob's plateaued study: alice's later job started first"
else not_ok "a plateaued study yields its place" "$(state_of "$sb") / $(state_of "$sa")" "$queue"; fi
wait_idle

# (c) a running plateaued study is signalled, requeued and resumed; no trial lost or repeated.
cp "$TOP_SRCDIR/tests/integration/programs/flat.json" .
chmod 644 flat.json
as "$bob" "$tune submit --name flat --trials 14 --parallel 2 --mem-per-trial 200M --seed 3 -A physics --space flat.json -- $programs/behave.sh" >submit.out 2>&1
study=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' submit.out)
wait_state "$study" RUNNING 30
for _ in $(seq 1 150); do [ "$(grep -c ' ok ' flat-"$study".out 2>/dev/null)" -ge 5 ] && break; sleep 0.2; done
big=$(submit "$alice" -n 16 -A bio --wrap "'sleep 3'")
yielded=no
for _ in $(seq 1 300); do grep -q "JobId=$study study yields" "$log" && yielded=yes && break; sleep 0.2; done
for _ in $(seq 1 300); do [ "$(state_of "$big")" = RUNNING ] || [ -z "$(state_of "$big")" ] && break; sleep 0.2; done
# A requeued job waits out Slurm's requeue delay (BeginTime +120 s); let it go now.
for _ in $(seq 1 100); do [ "$(state_of "$study")" = PENDING ] && break; sleep 0.2; done
wait_job "$big" 60
scontrol update jobid="$study" StartTime=now >/dev/null 2>&1
wait_job "$study" 180
out=$(cat flat-"$study".out)
trials=$(as "$bob" "$tune export flat.h5 --csv" | awk -F, 'NR > 1 {print $1 ":" $2}')
if [ $yielded = yes ] && grep -q "SIGUSR1: no new trials" <<<"$out" && grep -q "requeueing job $study" <<<"$out" &&
   grep -q "trials so far" <<<"$out" && [ "$(grep -c ':ok$' <<<"$trials")" -eq 14 ] &&
   [ "$(cut -d: -f1 <<<"$trials" | sort -n | uniq -d | wc -l)" -eq 0 ]; then
  ok "yield: the plateaued study was signalled, drained, requeued and resumed to 14 ok trials, none twice"
else not_ok "yield, requeue and resume" "yielded=$yielded" "$out" "$trials"; fi
interrupted=$(grep -c ':interrupted$' <<<"$trials")
diag "trials interrupted by the yield (re-run after the resume): $interrupted"

# (d) usage and yield levels survive a slurmctld restart; a garbled state file is replaced.
uid=$(id -u "$bob")
level=$(state_json "s['studies']['$uid:flat-1']['level']")
usage=$(state_json "round(s['tenants']['lab-a'][0])")
"$cluster" restart --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" "${opts[@]}" >/dev/null 2>&1
sleep 3
level2=$(state_json "s['studies']['$uid:flat-1']['level']")
usage2=$(state_json "round(s['tenants']['lab-a'][0])")
if grep -q "usage and yield levels restored" "$log" && [ -n "$level" ] && [ "$level" = "$level2" ] &&
   [ "${usage:-0}" -gt 0 ] && [ "${usage2:-0}" -gt 0 ] && [ "$usage2" -le "$usage" ]; then
  ok "state survives a slurmctld restart (study level $level, lab-a usage $usage -> $usage2 CPU-s, decayed)"
else not_ok "state survives a restart" "level $level -> $level2, usage $usage -> $usage2" "$(grep sched/tune "$log" | tail -5)"; fi
"$cluster" stop --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1
printf 'garbage{' >"$CLUSTER_DIR/state/sched_tune.state"
"$cluster" start --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" "${opts[@]}" >/dev/null 2>&1
sleep 3
if scontrol ping 2>/dev/null | grep -q UP && grep -q "state file unreadable, starting afresh" "$log" &&
   [ -n "$(state_json "s['version']")" ]; then
  ok "a garbled state file is reported and replaced; slurmctld runs"
else not_ok "garbled state file" "$(grep sched/tune "$log" | tail -5)"; fi

# (e) hostile Comments change nothing they should not. The blocker holds the
# cluster until the end of the case (scancel below), so that every job is still
# pending when the priorities are compared, however slow the submissions. It
# carries bob's plateaued record and others wait, so sched/tune asks it to
# yield (case 5 replaced the state, and with it case 3's cooldown): it ignores
# SIGUSR1 (without the trap its shell would die of it and free the cluster).
blk=$(submit "$bob" -n 16 -A blocker --comment "'$plateau'" --wrap "'trap \"\" USR1; sleep 60'")
wait_state "$blk" RUNNING 30
sleep 2
level=$(state_json "s['studies']['$uid:flat-1']['level']")
before=$(state_json "sorted(s['studies'])")
ctl=$(submit "$alice" -n 4 -A bio --wrap true)
held=$(submit "$alice" -n 4 -A bio --hold --wrap true)
pinned=$(submit "$alice" -n 4 -A bio --wrap true)
scontrol update jobid="$pinned" priority=7
hostile=("$(head -c 1024 /dev/zero | tr '\0' x)" "tune:study=a;n=nan;dir=min;top=1" "tune:study=a;n=99999999999999;dir=min;top=1e999"
         "tune:study=a;n=-5;dir=min;top=-1,-2" "tune:study=flat-1;n=1000;dir=min;top=1,1,1,1,1" "$(printf 'tune:study=\x01\x02;n=5')")
ids=()
for c in "${hostile[@]}"; do
  ids+=("$(C=$c su "$alice" -c "cd $work && SLURM_CONF=$SLURM_CONF sbatch --parsable -D $work -o /dev/null -n 4 -A bio --comment \"\$C\" --wrap true" 2>/dev/null)")
done 2>/dev/null
sleep 3
after=$(state_json "sorted(s['studies'])")
pc=$(prio_of "$ctl")
worse=0
for j in "${ids[@]}"; do [ -n "$j" ] && [ "$(prio_of "$j")" -gt "${pc:-0}" ] 2>/dev/null && worse=$((worse + 1)); done
bob_level=$(state_json "s['studies'].get('$uid:flat-1', {}).get('level', 'none')")
if scontrol ping | grep -q UP && [ $worse -eq 0 ] && [ "${level:-0}" -ge 1 ] && [ "$bob_level" = "$level" ] &&
   [ "$(prio_of "$held")" = 0 ] && [ "$(prio_of "$pinned")" = 7 ] &&
   ! grep -q "$(id -u "$alice"):a'" <<<"$after"; then
  ok "hostile Comments (${#ids[@]} jobs, $(grep -c '^[0-9]' <<<"$(printf '%s\n' "${ids[@]}")") accepted by sbatch): slurmctld up, none above alice's plain job ($pc), bob's study untouched; held and admin-set priorities left alone"
else not_ok "hostile Comments" "ids ${ids[*]} worse=$worse control=$pc" "before $before" "after $after" "bob level $bob_level" "held $(prio_of "$held") pinned $(prio_of "$pinned")"; fi
scancel -u "$alice" -u "$bob" 2>/dev/null; wait_idle

# (e2) rolling back to priority/basic (admin-guide.md, section 8): after the
# restart, pending jobs hold sched/tune's priorities (bob's later job above
# alice's, who used the cluster); the guide's command gives them
# priority/basic's own, in submission order, above none of the jobs after them.
blk=$(submit "$alice" -n 16 -A lab-a --wrap "'sleep 300'")
wait_state "$blk" RUNNING 30
r1=$(submit "$alice" -n 4 -A lab-a --wrap true)
r2=$(submit "$bob" -n 4 -A lab-b --wrap true)
sleep 3
tuned="$(prio_of "$r1") $(prio_of "$r2")"
# slurmctld alone restarts, without sched/tune: the jobs stay.
ctld() { "$cluster" "daemon-$1" slurmctld --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1; }
ctld stop
sed -i 's|^SchedulerType=sched/tune|SchedulerType=sched/backfill|' "$CLUSTER_DIR/etc/slurm.conf"
ctld start
rollback=$(awk '/^ *<!-- rollback: sched-tune -->$/ {want = 1; next} want && /^ *```$/ {if (inside) exit; inside = 1; next} inside {print}' "$TOP_SRCDIR/docs/admin-guide.md")
out=$(bash -ec "$rollback" 2>&1)
r3=$(submit "$bob" -n 4 -A lab-b --wrap true)
sleep 1
after="$(prio_of "$r1") $(prio_of "$r2") $(prio_of "$r3")"
read -r q1 q2 q3 <<<"$after"
read -r t1 t2 <<<"$tuned"
if [ -n "$rollback" ] && [ "${t2:-0}" -gt "${t1:-0}" ] 2>/dev/null && [ "${q1:-0}" -gt "${q2:-0}" ] 2>/dev/null &&
   [ "${q2:-0}" -gt "${q3:-0}" ] 2>/dev/null && [ "$(state_of "$blk")" = RUNNING ]; then
  ok "rollback to priority/basic: the guide's command turns sched/tune's priorities ($tuned) into submission order ($after)"
else not_ok "rollback to priority/basic" "command: $rollback" "$out" "sched/tune: $tuned, after: $after" "$(squeue)"; fi
scancel -u "$alice" -u "$bob" 2>/dev/null; wait_idle
ctld stop
sed -i 's|^SchedulerType=sched/backfill|SchedulerType=sched/tune|' "$CLUSTER_DIR/etc/slurm.conf"
ctld start

# (f) a broken sched_tune.conf: reconfigure keeps the old settings; a start is refused, both naming the line.
# Slurm 22.05 reconfigures in place (sched_p_reconfig); from 24.11 `scontrol
# reconfigure` starts a new slurmctld, where sched/tune falls back on the last
# file that loaded (kept in StateSaveLocation). Both say "NOT re-read".
broken=$conf_dir/broken.conf
printf 'interval = 1;\nfairshare = {\n  half_life = -3;\n};\n' >"$broken"
cp "$broken" "$CLUSTER_DIR/etc/sched_tune.conf"
scontrol reconfigure
sleep 2
reconf=$(grep "NOT re-read" "$log" | tail -1)
alive=$(scontrol ping | grep -c UP)
"$cluster" stop --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1
"$cluster" start --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" "${opts[@]}" --sched-conf "$broken" --timeout 15 >/dev/null 2>&1
rc=$?
start=$(grep "sched/tune: not loaded" "$log" | tail -1)
"$cluster" stop --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1
if grep -q "sched_tune.conf:3: 'fairshare.half_life' = -3 is out of range" <<<"$reconf" && [ "$alive" -ge 1 ] &&
   [ $rc -ne 0 ] && grep -q "sched_tune.conf:3:" <<<"$start"; then
  ok "a broken sched_tune.conf is reported with its line (reconfigure keeps the old settings; start refused, rc $rc)"
else not_ok "broken sched_tune.conf" "reconfigure: $reconf" "start (rc $rc): $start"; fi

# (g) JobSubmitPlugins=tune with SchedulerType=sched/backfill: a heterogeneous job runs and is scored.
cluster_up sched_tune_het 17610 --nodes 4 --cpus 4 --gpus 0 --conf JobSubmitPlugins=tune --sched-conf "$conf_dir/sched_tune.conf"
cd "$work" || exit 1
cat >het.sbatch <<'SH'
#!/bin/bash
#SBATCH -n 1 -o het-%j.out
#SBATCH hetjob
#SBATCH -n 2
srun --het-group=0,1 hostname
SH
chmod 644 het.sbatch
blk=$(submit "$bob" -n 16 --wrap "'sleep 3'")
het=$(as "$alice" "sbatch --parsable -D $work het.sbatch" 2>&1)
sleep 2
sys=$(scontrol show job "$het" 2>/dev/null | grep -o 'SystemComment=tune:[^ ]*' | head -1)
wait_job "$het" 60
hlog=$CLUSTER_DIR/log/slurmctld.log
# job_submit/tune is the controller's alone: slurmd and the commands never load it.
loads="slurmctld: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmctld.pid")"); slurmd: $(plugins_mapped "$(cat "$CLUSTER_DIR/run/slurmd-node1.pid")"); squeue: $(plugins_opened squeue); sbatch: $(plugins_opened sbatch --test-only --wrap true)"
if [[ "$het" =~ ^[0-9]+$ ]] && [ -n "$sys" ] && [ "$(grep -c . het-"$het".out 2>/dev/null)" -eq 3 ] &&
   grep -q "job_submit/tune: loaded" "$hlog" && grep -Eq "^slurmctld: job_submit_tune.so( |;)" <<<"$loads" &&
   [ "$(grep -o job_submit_tune <<<"$loads" | wc -l)" -eq 1 ]; then
  ok "JobSubmitPlugins=tune: hetjob $het ran (3 tasks) and was scored ($sys); only slurmctld loads job_submit_tune.so"
else not_ok "hetjob under job_submit/tune" "het=$het sys=$sys" "$(cat het-"$het".out 2>&1)" "$(grep -i tune "$hlog" | tail -5)" "$loads"; fi
rm -rf "$conf_dir"
