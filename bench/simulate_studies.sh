#!/usr/bin/env bash
# What sched/tune's convergence-aware priority does for tuning studies on a
# shared cluster, in tune simulate: STUDIES studies (default 12; half keep
# improving until their target, half plateau below it, as in Table 4's
# workload) recorded by real `tune run` studies of bench/programs/curve.py
# (random search, 60 trials, 4 runners), each trial a 1-GPU trial scaled to
# about 10 minutes, submitted 5 minutes apart, replayed on CLUSTER:
#   small  4 nodes x 4 GPUs, the studies alone (default)
#   openb  a tenth of Alibaba's openb GPU nodes with its default pods at 80%
# as trial jobs and as whole allocations, under FIFO, priority/multifactor
# (classic fair share) without and with site_factor/tune, sched/tune with
# Algorithm 1 off (fair share only) and on. REPLICATES (3)
# runs with submissions jittered by 0-300 s.
source "$(dirname "$0")/bench_env.sh"
studies=${STUDIES:-12}
traces=$top/../shared/traces
cp "$top/bench/programs/curve.json" .
specs=()
for i in $(seq 1 "$studies"); do
  ceiling=1
  if [ $((i % 2)) -eq 0 ]; then ceiling=0.8$((4 + i % 5)); fi
  CURVE_EPOCH=0.02 CURVE_CEILING=$ceiling mpirun --oversubscribe -np 5 "$tune" run --space curve.json \
    --history "s$i.h5" --name "s$i" --algo random --seed "$i" --trials 60 --direction max -q -- \
    "$top/bench/programs/curve.py" >/dev/null
  specs+=(--study "s$i.h5,target=0.96,time-scale=4000,gpus=1,parallel=4,account=team$i,submit=$((300 * (i - 1)))")
done
echo 'adaptive: { enabled = false; };' >fs_only.conf
case ${CLUSTER:-small} in
  small)
    printf 'NodeName=n[1-4] CPUs=32 RealMemory=256000 Gres=gpu:4\nPartitionName=p Nodes=n[1-4] Default=YES\n' >small.conf
    where=(--cluster small.conf) ;;
  openb)
    where=(--cluster "$traces/alibaba-openb/openb_node_list_gpu_node.csv" --cluster-share 0.1
           --jobs "$traces/alibaba-openb/openb_pod_list_default.csv" --utilisation 0.8) ;;
  *) echo "simulate_studies: unknown CLUSTER '${CLUSTER}': use small or openb" >&2; exit 2 ;;
esac
common=("${where[@]}" "${specs[@]}" --study-mode trials,whole --replicates "${REPLICATES:-3}" --jitter 300)
echo "== FIFO, multifactor, multifactor with site_factor/tune, sched/tune ($studies studies, ${CLUSTER:-small})"
"$tune" simulate "${common[@]}" --priority fifo,multifactor,multifactor+tune,tune | sed -n '/^STUDIES/,/^bounds/p;/^across/,$p'
echo "== sched/tune with Algorithm 1 off (adaptive.enabled = false)"
"$tune" simulate "${common[@]}" --priority tune --sched-conf fs_only.conf | sed -n '/^STUDIES/,/^bounds/p;/^across/,$p'
