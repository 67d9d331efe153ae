#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A test cluster whose nodes are hosts (scripts/cluster start --hosts): each
# slurmd in a network and a UTS namespace of its own, with its own hostname
# and address on a bridge, NodeAddr and NodeHostname as on a real cluster.
# Trial jobs on other nodes reach an AppCore that runs as a job on a compute
# node over that network; a node's link cut and put back; stop leaves no
# namespace or interface behind.
source "$(dirname "$0")/tap.sh"
plan 5
user_tools
scratch_dir work || { echo "Bail out! cannot make a scratch directory"; exit 1; }
deployed_cluster_up cluster_hosts 17790 --hosts --nodes 3 --cpus 5 --memory 5000 --gpus 0
port=$CLUSTER_PORT
cd "$work" || exit 1
net=$(sed -n 's/^NodeName=node1 NodeAddr=\([0-9.]*\)\.1 .*/\1/p' "$SLURM_CONF")

# 1. Every node its own hostname and address, as slurmctld knows them.
seen=$(srun -N 3 -l sh -c 'echo "$(hostname) $(ip -4 -o addr show eth0 | awk "{print \$4}")"' 2>&1 | sort)
addrs=$(for n in 1 2 3; do scontrol show node "node$n" | grep -o 'NodeAddr=[0-9.]*'; done | paste -sd' ')
if [ -n "$net" ] && [ "$(awk '{print $2, $3}' <<<"$seen" | paste -sd' ')" = "node1 $net.1/24 node2 $net.2/24 node3 $net.3/24" ] &&
   [ "$addrs" = "NodeAddr=$net.1 NodeAddr=$net.2 NodeAddr=$net.3" ]; then
  ok "three nodes, three hosts: node1..node3 at $net.1-3, slurmctld's NodeAddr the same"
else not_ok "nodes as hosts" "$seen" "$addrs" "net=$net"; fi

# 2. No route off the machine from a node: its /24 only.
routes=$(srun -w node2 ip -4 route 2>&1)
if [ "$(wc -l <<<"$routes")" -eq 1 ] && grep -q "^$net.0/24 dev eth0" <<<"$routes"; then
  ok "a node routes its own /24 and nothing else ($routes)"
else not_ok "routes" "$routes"; fi

# 3. tune submit --trial-jobs: the AppCore is a job on one node, its trial
# jobs run on others and reach it at its node's address.
cp "$TOP_SRCDIR/examples/synthetic/branin.json" .
cat >where.sh <<'SH'
#!/bin/bash
echo "$(hostname)" >>"$TUNE_TRIAL_DIR/where"
sleep 1
echo "objective=$TUNE_PARAM_x1" >&"$TUNE_REPORT_FD"
SH
chmod 755 where.sh
out=$("$tune" submit --trial-jobs --name hosts --space branin.json --trials 6 --parallel 2 --cpus-per-trial 4 --seed 3 -- ./where.sh 2>&1)
appcore=$(sed -n 's/^submitted job \([0-9]*\)$/\1/p' <<<"$out")
channel=
for _ in $(seq 1 300); do
  [ -s hosts.channel ] && channel=$(cat hosts.channel) && break
  sleep 0.1
done
wait_job "$appcore" 120
trial_nodes=$(cat hosts.trials/*/where 2>/dev/null | sort -u | paste -sd' ')
recorded=$("$tune" export hosts.h5 --csv 2>/dev/null | awk -F, 'NR > 1 && $2 == "ok"' | wc -l)
chost=$(/usr/bin/python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j["host"], j["addresses"][0])' "$channel" 2>/dev/null)
if [ "$recorded" -eq 6 ] && [[ $chost =~ ^(node[1-3])\ $net\.([1-3])$ ]] && [ "${BASH_REMATCH[1]}" = "node${BASH_REMATCH[2]}" ] &&
   grep -qv "${BASH_REMATCH[1]}" <<<"$(tr ' ' '\n' <<<"$trial_nodes")" && [ -z "$(squeue -h)" ]; then
  ok "6 trials recorded; the AppCore on ${BASH_REMATCH[1]} listened at $net.${BASH_REMATCH[2]}, trial jobs ran on $trial_nodes and reached it there; no job left"
else not_ok "trial jobs across hosts" "$out" "channel: $channel" "trial nodes: $trial_nodes; recorded $recorded" "$(tail -5 hosts-"$appcore".out 2>&1)"; fi

# 4. link-down cuts a node off the network (its slurmd's port unreachable
# from another node), link-up puts it back.
reach() { srun -w node1 timeout 3 bash -c "echo >/dev/tcp/$net.3/$((port + 3))" >/dev/null 2>&1; }
before=no; during=no; after=no
reach && before=yes
"$cluster" link-down node3 --dir "$CLUSTER_DIR" --port $port >/dev/null && { reach && during=yes; }
"$cluster" link-up node3 --dir "$CLUSTER_DIR" --port $port >/dev/null && { reach && after=yes; }
if [ "$before $during $after" = "yes no yes" ]; then
  ok "link-down node3 cuts it off (node1 cannot reach its slurmd), link-up puts it back"
else not_ok "link-down/link-up" "reachable before/during/after: $before $during $after"; fi

# 5. stop ends the daemons and removes every namespace and the bridge.
"$cluster" stop --dir "$CLUSTER_DIR" --port $port >/dev/null 2>&1
left=$( (ip netns list | grep -o "^tune${port}n[0-9]*"; ip -o link show | grep -oE "(tunebr$port|tv${port}n[0-9]+)") | paste -sd' ')
if [ -z "$left" ] && ! "$cluster" status --dir "$CLUSTER_DIR" --port $port >/dev/null 2>&1; then
  ok "stop leaves no namespace, veth or bridge of the cluster behind"
else not_ok "stop's cleanup" "left: $left"; fi
