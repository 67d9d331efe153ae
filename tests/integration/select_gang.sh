#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# select/cons_tres_gang on a real cluster (4 nodes x 4 CPUs x 4 fake GPUs),
# each case beside plain select/cons_tres on the same sequence of jobs.
source "$(dirname "$0")/tap.sh"
plan 9
work=
start() {  # SELECT: a fresh cluster
  cluster_up "select_gang" 17900 --nodes 4 --cpus 4 --gpus 4 --select "$1" "${@:2}"
  work=$CLUSTER_DIR/work
  mkdir -p "$work"
}
stop() { cluster_down; }
sub() { sbatch --parsable -D "$work" -o /dev/null "$@"; }
where() { squeue -h -j "$1" -o %N; }
state() { squeue -h -j "$1" -o %T; }
# settle [SECONDS]: let the scheduler act: wait SECONDS (3), then until no
# pending job is still unseen by it (reason None), at most 30 s more: how
# soon slurmctld looks at a new job differs between series and with load.
settle() {
  sleep "${1:-3}"
  for _ in $(seq 1 150); do squeue -h -t PD -o %r 2>/dev/null | grep -qx None || return 0; sleep 0.2; done
}

# 1. Eight 1-GPU jobs, then a 4-GPU job.
eight_then_four() {
  local ids=() i
  for i in $(seq 1 8); do ids+=("$(sub -n1 --gres=gpu:1 --wrap 'sleep 60')"); done
  settle 1
  four=$(sub -n1 --gres=gpu:4 --wrap 'sleep 60')
  settle
  nodes=$(for i in "${ids[@]}"; do where "$i"; done | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
  four_state=$(state "$four")
}
start select/cons_tres
eight_then_four
diag "plain cons_tres: 1-GPU jobs on ${nodes}; the 4-GPU job is ${four_state}"
plain_nodes=$nodes plain_four=$four_state
stop
start select/cons_tres_gang
eight_then_four
if [ "$(wc -w <<<"$nodes")" -eq 2 ] && [ "$four_state" = RUNNING ]; then
  ok "gang: eight 1-GPU jobs packed on two nodes ($nodes), the 4-GPU job started at once (plain cons_tres: $plain_nodes, $plain_four)"
else not_ok "gang packs 1-GPU jobs and starts the 4-GPU job" "gang: $nodes, $four_state" "plain: $plain_nodes, $plain_four"; fi
scancel -u root; settle 2

# 2. Best fit and whole nodes: node1 has 1 GPU busy, node2 3; then 1-, 3- and 2x4-GPU jobs.
best_fit() {
  sub -n1 -w node1 --gres=gpu:1 --wrap 'sleep 60' >/dev/null
  sub -n3 -w node2 --gres=gpu:3 --wrap 'sleep 60' >/dev/null
  settle 2
  one=$(sub -n1 --gres=gpu:1 --wrap 'sleep 60'); settle 2
  three=$(sub -n1 --gres=gpu:3 --wrap 'sleep 60'); settle 2
  pair=$(sub -N2 -n2 --gres=gpu:4 --wrap 'sleep 60'); settle
  result="1-GPU on $(where "$one"), 3-GPU on $(where "$three"), 2x4-GPU $(state "$pair") $(where "$pair")"
}
best_fit
gang_result=$result gang_pair=$(state "$pair")
stop
start select/cons_tres
best_fit
plain_result=$result plain_pair=$(state "$pair")
if [ "$gang_pair" = RUNNING ] && grep -q "1-GPU on node2, 3-GPU on node1" <<<"$gang_result"; then
  ok "best fit keeps whole nodes: gang $gang_result; plain cons_tres $plain_result"
else not_ok "best fit keeps whole nodes" "gang: $gang_result" "plain: $plain_result"; fi
stop

# 3-6 under the wrapper.
start select/cons_tres_gang
# 3. --gpus-per-task: 4 tasks x 1 GPU go on one free node, not across two half-used ones.
sub -n2 -w node1 --gres=gpu:2 --wrap 'sleep 60' >/dev/null
sub -n2 -w node2 --gres=gpu:2 --wrap 'sleep 60' >/dev/null
settle 2
gpt=$(sub -n4 --gpus-per-task=1 --wrap 'sleep 60'); settle
if [ "$(state "$gpt")" = RUNNING ] && [ "$(squeue -h -j "$gpt" -o %D)" = 1 ]; then
  ok "--gpus-per-task=1 x 4 tasks on one node ($(where "$gpt")), not split over the half-used node1, node2"
else not_ok "--gpus-per-task placement" "$(squeue -j "$gpt" -o '%T %D %N %R')"; fi
# 4. CPU-only job beside GPU jobs: it goes where no free GPU needs the cores.
cpu=$(sub -n2 --wrap 'sleep 60'); settle
node=$(where "$cpu")
free_gpus_there=$(scontrol show node "$node" | grep -o 'AllocTRES=[^ ]*' )
if [ "$(state "$cpu")" = RUNNING ] && [ "$node" != node4 ]; then
  ok "a CPU-only job runs on $node, leaving the fully free node4 whole ($free_gpus_there)"
else not_ok "CPU-only job placement" "$(squeue -j "$cpu" -o '%T %N %R')"; fi
# 5. --gpus (per job) on one node, and a drained node is left alone.
scontrol update nodename=node4 state=drain reason=tune-test
g2=$(sub -n1 --gpus=4 --wrap 'sleep 60'); settle
if [ "$(state "$g2")" = PENDING ] && scontrol ping | grep -q UP; then
  ok "--gpus=4 waits while the only node that could hold it is drained; slurmctld up"
else not_ok "drained node" "$(squeue -j "$g2" -o '%T %N %R')"; fi
scontrol update nodename=node4 state=resume
for _ in $(seq 1 150); do [ "$(state "$g2")" = RUNNING ] && break; sleep 0.2; done
if [ "$(state "$g2")" = RUNNING ] && [ "$(where "$g2")" = node4 ]; then ok "after resume it starts on node4"
else not_ok "after resume" "$(squeue -j "$g2" -o '%T %N %R')"; fi
# 6. Clients (squeue, sinfo, scontrol) load the wrapper: checked by everything above; the log names it.
if grep -q "select/cons_tres_gang: gang GPU placement over select/cons_tres" "$CLUSTER_DIR/log/slurmctld.log" &&
   sinfo -h -o %D | grep -q 4; then ok "slurmctld loaded the wrapper; sinfo and squeue work with it"
else not_ok "wrapper loaded" "$(grep -i gang "$CLUSTER_DIR/log/slurmctld.log" | tail -3)"; fi
scancel -u root; settle 2
# 7. A broken select_gang.conf: reported with its line; placement off; jobs still run.
printf 'enabled = true;\ncores_per_free_gpu = -2;\n' >"$CLUSTER_DIR/etc/select_gang.conf"
scontrol reconfigure; settle 2
j=$(sub -n1 --gres=gpu:1 --wrap 'sleep 5'); settle
if grep -q "select_gang.conf NOT read (.*select_gang.conf:2: 'cores_per_free_gpu'" "$CLUSTER_DIR/log/slurmctld.log" &&
   [ "$(state "$j")" = RUNNING ]; then ok "a broken select_gang.conf is reported with its line; jobs still run"
else not_ok "broken select_gang.conf" "$(grep -i 'select_gang' "$CLUSTER_DIR/log/slurmctld.log" | tail -3)" "$(squeue -j "$j")"; fi
scancel -u root; settle 2
# 8. placement = "fgd" by name: slurmctld runs the fragmentation-aware policy
# (it learns the mix from each job once) and places eight 1-GPU jobs (100 MB
# each, so that no series' view of free memory decides) exactly where `tune
# place --policy fgd` puts the same jobs on the same nodes (4 x 4 CPUs,
# 2000 MB, 4 GPUs): the plugin and the library make one decision.
printf 'placement = "fgd";\n' >"$CLUSTER_DIR/etc/select_gang.conf"
scontrol reconfigure; settle 2
ids=()
for i in $(seq 1 8); do ids+=("$(sub -n1 --gres=gpu:1 --mem=100 --wrap 'sleep 60')"); done
settle
nodes=$(for i in "${ids[@]}"; do where "$i"; done | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
desc=$CLUSTER_DIR/fgd-nodes.json jobs=$CLUSTER_DIR/fgd-jobs.json
printf '{"nodes": [%s]}\n' "$(for i in 1 2 3 4; do printf '%s{"name": "node%d", "cpus": 4, "mem_mb": 2000, "gpus": 4}' "$([ $i -gt 1 ] && echo ,)" $i; done)" >"$desc"
printf '[%s]\n' "$(for i in $(seq 1 8); do printf '%s{"name": "one-%d", "gpus_per_node": 1, "mem_mb": 100}' "$([ $i -gt 1 ] && echo ,)" $i; done)" >"$jobs"
expected=$("$TOP_BUILDDIR/driver/tune" place --cluster "$desc" --jobs "$jobs" --policy fgd --json |
  python3 -c 'import json, sys, collections; c = collections.Counter(j["nodes"][0]["node"] for j in json.load(sys.stdin)["jobs"] if j.get("nodes")); print(" ".join(f"{n}:{c[n]}" for n in sorted(c)))')
if grep -q "select/cons_tres_gang: fgd GPU placement over select/cons_tres" "$CLUSTER_DIR/log/slurmctld.log" &&
   [ "${nodes% }" = "$expected" ] && ! grep -q "placement policy failed" "$CLUSTER_DIR/log/slurmctld.log"; then
  ok "select_gang.conf placement = \"fgd\": loaded by name; 1-GPU jobs on ${nodes}as tune place --policy fgd puts them; no policy error"
else not_ok "placement = fgd" "cluster: $nodes" "tune place: $expected" "$(grep -i 'gang' "$CLUSTER_DIR/log/slurmctld.log" | tail -4)"; fi
