# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmark scripts: paths, a scratch study directory in the
# build tree (like a real study directory; this machine's /tmp is slow) that is
# removed at exit, Open MPI settings for root and for fake nodes, and a
# one-parameter space.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tune=$top/driver/tune
work=$(mktemp -d -p "$top/bench" run.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp
echo '{"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]}' >space.json
# The Slurm the benchmark's cluster runs: TUNE_CLUSTER_SLURM (built by
# scripts/setup --slurm) or the installed one.
slurm_under_test() {
  if [ -n "${TUNE_CLUSTER_SLURM:-}" ]; then
    "$top/scripts/slurm-build" --prefix "$TUNE_CLUSTER_SLURM" | sed 's|.*/slurm-\([^/]*\)/prefix$|\1|'
  else
    /usr/sbin/slurmctld -V | awk '{print $2}'
  fi
}
