#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The trial-jobs channel attacked as another user of the cluster would:
# tune-alice runs a study of trial jobs in a directory her group (tune-bob
# too) may write; tune-bob, reading what any user can read, sends frames of
# wrong types and shapes to her AppCore's port, holds idle connections from
# two hosts, squats 127.0.0.1 at that port on the nodes her trial jobs run
# on, swaps the channel file for his own, plants links at the fixed names,
# and, once her AppCore is gone, squats its port on its host to hand her
# trial jobs a command; he also names a fresh account and hers under
# sched/tune. Each ends with her study finished, every trial once, nothing
# run as her by him, no secret of hers in what he heard, no job left, and
# the attempt named in her log.
source "$(dirname "$0")/tap.sh"
plan 8
user_tools
studies_setup
cp "$TOP_SRCDIR/tests/integration/programs/intruder.py" "$user_tools_dir/programs/" && chmod 755 "$programs/intruder.py"
intruder=$programs/intruder.py
deployed_cluster_up channel_attacks 17820 --hosts --nodes 4 --cpus 4 --memory 4000 --sched-conf "$work/sched_tune.conf"
cd "$work" || exit 1
# The lab: a directory alice's group may write (as a project directory is), bob in that group.
getent group tune-lab >/dev/null || groupadd tune-lab 2>/dev/null || getent group tune-lab >/dev/null ||
  { echo "Bail out! cannot create the group tune-lab"; exit 1; }
usermod -a -G tune-lab "$alice" && usermod -a -G tune-lab "$bob"
lab=$work/lab
mkdir "$lab" && chown "$alice:tune-lab" "$lab" && chmod 2770 "$lab"
cp "$TOP_SRCDIR/examples/synthetic/branin.json" "$lab/" && chown "$alice" "$lab/branin.json"
cat >"$lab/trial.sh" <<'SH'
#!/bin/bash
sleep "${TRIAL_SLEEP:-2}" || exit 143
echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
SH
chmod 755 "$lab/trial.sh" && chown "$alice" "$lab/trial.sh"
victim=$lab/victim.txt
echo "alice's own" >"$victim" && chown "$alice" "$victim" && chmod 600 "$victim"
pwned=$work/pwned-by-bob
as_bob() { su "$bob" -c "cd $work && SLURM_CONF=$SLURM_CONF $*"; }
# in_node N COMMAND...: COMMAND as bob on node N's host (its network namespace), as his job there would run it.
in_node() { local n=$1; shift; nsenter --net="/run/netns/tune${CLUSTER_PORT}n$n" su "$bob" -c "cd $work && $*"; }
host_ip=$(cat "$CLUSTER_DIR/run/hosts").254   # the AppCore's host, as the nodes reach it
trials=16
# The study's AppCore, as alice, in the lab, with the umask of a group's
# project (002: her group may write what she makes, where the lab lets it).
start_study() {
  su "$alice" -c "umask 002 && cd $lab && SLURM_CONF=$SLURM_CONF TRIAL_SLEEP=2 $tune run --trial-jobs $* --space branin.json --trials $trials --parallel 4 --cpus-per-trial 1 --mem-per-trial 300M --slurm-poll 1s --appcore-wait 20s --history alice.h5 -- ./trial.sh" >>"$work/alice.log" 2>&1 &
  core=$!
}
alice_port() { as_bob "$intruder port $(id -u "$alice")" | awk '{print $1}'; }
wait_port() { for _ in $(seq 1 100); do port=$(alice_port); [ -n "$port" ] && return 0; sleep 0.1; done; return 1; }

start_study
wait_port || { echo "Bail out! alice's AppCore did not listen: $(cat "$work/alice.log")"; exit 1; }
secret=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"])' "$lab/alice.channel")

# 1. Frames of wrong types and shapes, before any proof (the issue's {"type": 1} first).
as_bob "$intruder frames $host_ip $port"
sleep 1
if kill -0 "$core" 2>/dev/null && grep -q "refused a connection" "$work/alice.log"; then
  ok "bob's 13 frames of wrong types and shapes (a numeric type, an old tune's secret, a job past 2^32, 100000 levels deep, 50 MB) refused and logged; alice's AppCore goes on"
else not_ok "frames of wrong types" "$(cat "$work/alice.log")"; fi

# 2. Idle connections from two hosts (the AppCore's and node4), and squatters
# on 127.0.0.1 at the AppCore's port on every node, while her trial jobs start.
as_bob "$intruder idle $host_ip $port 48 12" &
idle1=$!
in_node 4 "$intruder idle $host_ip $port 48 12" &
idle2=$!
squatters=()
for n in 1 2 3 4; do
  in_node "$n" "$intruder squat 127.0.0.1 $port $work/node$n.heard $pwned" &
  squatters+=($!)
done

# 3. Links at the fixed names: the old temporary names beside the history, and
# a trial's directory made in advance with links at its files' names.
for name in alice.jobs.tmp alice.channel.tmp alice.h5.tmp; do as_bob "ln -sf $victim $lab/$name"; done
as_bob "mkdir -p $lab/alice.trials/9 && chmod 777 $lab/alice.trials/9"
for name in params.json stdout stderr result.json result.json.tmp job reports; do
  as_bob "ln -sf $victim $lab/alice.trials/9/$name"
done

# 4. The channel file swapped for bob's own (his secret, his squatter's port).
sleep 3
cat >"$work/bob.channel" <<JSON
{"host": "$(hostname)", "addresses": ["$host_ip"], "port": $((port + 1)), "secret": "$(printf 'b%.0s' $(seq 1 64))", "job": 0, "jobs": "$work/bob.jobs"}
JSON
chown "$bob" "$work/bob.channel" && chmod 600 "$work/bob.channel"
as_bob "cp $work/bob.channel $lab/.bob.channel && mv -f $lab/.bob.channel $lab/alice.channel"
swapped_at=$SECONDS
# Her AppCore looks at the file every second; it is killed below only after
# it has seen the swap, or a fast cluster could reach 6 trials first and
# leave bob's file for her trial jobs to find (the swap not seen is test 5's
# failure, not a race).
for _ in $(seq 1 50); do grep -q "alice.channel was replaced" "$work/alice.log" && break; sleep 0.2; done

# 5. Alice's AppCore goes away mid-study (kill -9); bob takes its port on its
# host at once and answers her trial jobs' reconnections.
for _ in $(seq 1 100); do [ "$(count_final "$lab/alice.h5")" -ge 6 ] && break; sleep 0.2; done
pkill -9 -u "$alice" -f "tune run --trial-jobs"; wait "$core" 2>/dev/null
as_bob "$intruder squat 0.0.0.0 $port $work/host.heard $pwned" &
host_squatter=$!
for _ in $(seq 1 50); do [ -e "$work/host.heard.ready" ] && break; sleep 0.1; done
sleep 8   # her running trials end and their jobs try to report
kill "$host_squatter" "${squatters[@]}" 2>/dev/null
pkill -u "$bob" -f "intruder.py squat" 2>/dev/null
wait "$idle1" "$idle2" 2>/dev/null
start_study --resume
wait "$core"; rc=$?

# A trial job submitted in the last second before the kill -9 is in no jobs
# file, so the resumed AppCore does not know it: it leaves after --appcore-wait.
for _ in $(seq 1 120); do [ -z "$(squeue -h -u "$alice")" ] && break; sleep 0.5; done
left=$(squeue -h -u "$alice" | wc -l)
final=$(count_final "$lab/alice.h5") twice=$(ids_twice "$lab/alice.h5")
if [ $rc -eq 0 ] && [ "$final" -eq $trials ] && [ "$twice" -eq 0 ] && [ "$left" -eq 0 ]; then
  ok "alice's study finished through it all: $final trials ok, none twice, no job left (rc $rc)"
else not_ok "alice's study under attack" "rc=$rc final=$final twice=$twice left=$left" "$(tail -30 "$work/alice.log")" "$(squeue)"; fi

heard=$(cat "$work"/*.heard 2>/dev/null)
if [ ! -e "$pwned" ] && ! grep -qF "$secret" <<<"$heard" && ! grep -rqF "$secret" "$work"/*.heard 2>/dev/null; then
  ok "nothing ran as alice by bob ($pwned absent), and none of the $(grep -c . <<<"$heard") hellos bob heard holds her secret"
else not_ok "a command run as alice, or her secret heard" "$(ls -l "$pwned" 2>&1)" "$heard"; fi

unproven=$(cat "$lab"/alice.trials/job-*.out 2>/dev/null | grep -c "did not prove that it is this study's AppCore")
node_heard=$(cat "$work"/node*.heard 2>/dev/null | grep -c .)
if [ "$unproven" -ge 1 ] && grep -q "\"job\"" "$work/host.heard" && [ "$node_heard" -eq 0 ]; then
  ok "her trial jobs reached bob's squatter on the AppCore's host and ran nothing from it ($unproven lines 'did not prove'); none tried 127.0.0.1 on its node (bob's node squatters heard $node_heard)"
else not_ok "squatters" "unproven=$unproven node_heard=$node_heard" "$(cat "$work"/host.heard 2>&1 | head -5)" "$(cat "$lab"/alice.trials/job-*.out | tail -20)"; fi

if grep -q "the channel file .*alice.channel was replaced (now uid $(id -u "$bob")'s); written again" "$work/alice.log" &&
   [ "$(stat -c %U "$lab/alice.channel" 2>/dev/null || echo gone)" != "$bob" ]; then
  ok "bob's channel file, swapped in at $swapped_at s, was found and written over by her AppCore"
else not_ok "channel file swap" "$(grep -i 'channel file' "$work/alice.log")" "$(ls -l "$lab")"; fi

modes=$(stat -c '%a %U %n' "$lab"/alice.trials "$lab"/alice.trials/0 "$lab"/alice.trials/0/* 2>/dev/null)
if [ "$(cat "$victim")" = "alice's own" ] && [ -n "$modes" ] && ! grep -vE '^2?(7[0-7]0|6[0-6]0) ' <<<"$modes" | grep -q .; then
  ok "the links bob planted at the fixed names were replaced, not followed (her file intact); her trials' files no more open than the lab ($(awk '{print $1}' <<<"$modes" | sort -u | paste -sd' '))"
else not_ok "planted links or modes" "$(cat "$victim")" "$modes"; fi

if grep -q "let go unheard to make room\|refused a connection" "$work/alice.log"; then
  ok "bob's idle connections from two hosts were let go as her trial jobs came ($(grep -c 'refused\|let go' "$work/alice.log") lines, at a bounded rate)"
else not_ok "idle connections" "$(grep -c . "$work/alice.log") lines" "$(tail -20 "$work/alice.log")"; fi

# 6. Fair share charges bob, whatever account he names: a fresh one, and alice's.
block=$(su "$alice" -c "SLURM_CONF=$SLURM_CONF sbatch --parsable -o /dev/null -n 16 --wrap 'sleep 20'")
fresh=$(as_bob "sbatch --parsable -o /dev/null -n 4 -A never-seen --wrap true")
foreign=$(as_bob "sbatch --parsable -o /dev/null -n 4 -A alices-lab --wrap true")
tenants() { for j in "$fresh" "$foreign"; do scontrol show job "$j" 2>/dev/null | grep -o 'tune:tenant=[^;]*'; done; }
for _ in $(seq 1 50); do
  [ "$(tenants | wc -l)" -ge 2 ] && break
  sleep 0.2
done
sc=$(tenants | sort -u | paste -sd' ')
scancel "$block" "$fresh" "$foreign" 2>/dev/null
if [ "$sc" = "tune:tenant=user:$bob" ]; then
  ok "under sched/tune without slurmdbd, bob's jobs naming a fresh account and alice's count for him ($sc)"
else not_ok "the tenant of bob's jobs" "$sc" "$(scontrol show job "$fresh" 2>&1 | grep -i comment)"; fi
