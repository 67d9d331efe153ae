# Sourced by the integration tests: TAP output, and a private test cluster
# started through scripts/cluster that is stopped however the test ends.
set -u
TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TOP_BUILDDIR=${TOP_BUILDDIR:-$TOP_SRCDIR}
cluster=$TOP_SRCDIR/scripts/cluster
tap_n=0

plan() { echo "1..$1"; }
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
not_ok() {
  tap_n=$((tap_n + 1)); echo "not ok $tap_n - $1"; shift
  [ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
  return 0
}
# check NAME COMMAND...: one test case, passed when COMMAND exits 0; its output
# is shown only on failure.
check() {
  local name=$1 out; shift
  if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

# cluster_up NAME PORT [scripts/cluster options...]: a fresh cluster in
# tests/integration/NAME.run, stopped at exit. Bails out if it cannot start.
cluster_up() {
  local name=$1; CLUSTER_PORT=$2; shift 2
  CLUSTER_DIR=$TOP_BUILDDIR/tests/integration/$name.run
  trap cluster_down EXIT
  local out
  if ! out=$("$cluster" start --fresh --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" "$@" 2>&1); then
    printf '%s\n' "$out" | sed 's/^/# /'
    echo "Bail out! the test cluster did not start"
    exit 1
  fi
  diag "$out"
  # shellcheck disable=SC1091
  source "$CLUSTER_DIR/env"
}
cluster_down() {
  [ -n "${CLUSTER_DIR:-}" ] && "$cluster" stop --dir "$CLUSTER_DIR" --port "$CLUSTER_PORT" >/dev/null 2>&1
  return 0
}

# A non-root user for multi-user tests (created once; needs root).
test_user() {
  local u=${1:-tune-user1}
  id "$u" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$u" >/dev/null 2>&1 || return 1
  echo "$u"
}

# Waits for batch job $1 to leave the queue (up to $2 seconds, default 60).
wait_job() {
  local i
  for i in $(seq 1 $((${2:-60} * 5))); do
    squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
    sleep 0.2
  done
  return 1
}
