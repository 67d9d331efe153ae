#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tune installed as a site installs it, from the release tarball to the
# packages' removal:
#  1. make dist; in a clean bookworm chroot (build-essential and what
#     `apt-get build-dep ./` brings), the unpacked tarball builds the Debian
#     packages with the admin guide's lines, checks on, against Debian's
#     Slurm source beside it; lintian has no error or warning to report;
#  2. the packages hold what the guide says, split between every host's
#     (tune) and the controller's (tune-slurm-plugins, pinned to this Slurm);
#  3. apt installs them; a cluster whose slurm.conf has the admin guide's
#     lines as written (sched/tune, select/cons_tres_gang) and no PluginDir
#     line starts, and slurmctld loads the plugins from Slurm's own
#     directory;
#  4. a non-root user, in a Python virtual environment of their own, with
#     nothing of the build tree on PATH or LD_LIBRARY_PATH, runs a study of
#     trial jobs and one in MPI mode with the installed tune; the trials run
#     the venv's interpreter; the histories read; no job is left;
#  5. apt purges the packages: slurmctld starts again with the tune lines
#     taken out, and nothing of tune is left but the configuration files.
# Packages built here are installed on this machine for the test's length
# and purged however it ends.
source "$(dirname "$0")/tap.sh"
plan 10
packages=(tune tune-slurm-plugins)
purge_packages() {
  local p installed=()
  for p in "${packages[@]}"; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = not-installed ] ||
      [ -z "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" ] || installed+=("$p")
  done
  [ ${#installed[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${installed[@]}" >/dev/null 2>&1
}
test_exit() { cluster_down; purge_packages; tap_exit; }
trap test_exit EXIT
for tool in debootstrap chroot lintian apt-get; do
  command -v "$tool" >/dev/null || { echo "Bail out! $tool is missing: apt-get install debootstrap lintian (scripts/setup does)"; exit 1; }
done
purge_packages  # a run that died before its end left them
eval "$(make -s -C "$TOP_BUILDDIR" print-install-dirs)"
[ -f "$slurmsrc/META" ] || { echo "Bail out! this build has no Slurm source ($slurmsrc): configure --with-slurm-source"; exit 1; }
scratch_dir work
cd "$work" || exit 1

# --- 1. the tarball and the Debian packages ------------------------------------------
t0=$SECONDS
if ! out=$(release_tarball "$work"); then
  not_ok "make dist makes $tarname.tar.gz" "$out"; exit 0
fi
# In a checkout: every tracked file is in the tarball but the repository's
# own (CI, git) and the measurements (docs/results and what it reads).
not_in_dist=
if git -C "$TOP_SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
  not_in_dist=$(comm -23 <(git -C "$TOP_SRCDIR" ls-files | sort) <(tar tzf "$tarname.tar.gz" | sed "s|^$tarname/||" | sort) |
    grep -vE '^(\.ci/|\.gitignore$|m4/\.gitkeep$|bench/results/|docs/results/)')
fi
# The packages are built as the admin guide says, in a clean bookworm chroot
# (sbuild's way; kept in the cache directory, made again when debian/control
# or Slurm's version changes): debootstrap's minimal system with
# build-essential, then the guide's `apt-get build-dep ./` and
# `dpkg-buildpackage -us -uc -b`, checks included (make check-package).
# Slurm's source stands beside the tree as the guide's `apt-get source
# slurm-wlm` leaves it (the build's own copy, bind-mounted read-only).
cache=${TUNE_SLURM_CACHE:-/var/cache/tune}
root=$cache/chroot-bookworm-deb
stamp="$(md5sum <"$TOP_SRCDIR/debian/control" | cut -d' ' -f1) $(dpkg-query -W -f='${Version}' libslurm-dev)"
guide_lines=$(sed -n '/^### Debian and Ubuntu packages$/,/^### RPMs/p' "$TOP_SRCDIR/docs/admin-guide.md" |
  awk '/^```$/ {if (inside) exit; inside = 1; next} inside' | sed 's/ *#.*//')
build_dep=$(grep -m1 '^apt-get build-dep ' <<<"$guide_lines")
buildpackage=$(grep -m1 '^dpkg-buildpackage ' <<<"$guide_lines")
[ -n "$build_dep" ] && [ -n "$buildpackage" ] ||
  { echo "Bail out! the admin guide's Debian block has no apt-get build-dep or dpkg-buildpackage line"; exit 1; }
ccache_dir=$(ccache -k cache_dir 2>/dev/null || echo "$HOME/.cache/ccache")
mkdir -p "$ccache_dir"
# The build takes the build tree's objects (compiled with the packages'
# flags, scripts/setup) from ccache, its key free of the build directory's
# name (which -ffile-prefix-map carries); a site file keeps configure's
# dependency tracking on (dh_auto_configure turns it off; the tree's compile
# commands have it). It changes no file the packages hold.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  CCACHE_DIR=/ccache CCACHE_BASEDIR=/build CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=locale 'CCACHE_IGNOREOPTIONS=-ffile-prefix-map=*' \
  CONFIG_SITE=/build/config.site \
  DEBIAN_FRONTEND=noninteractive /bin/bash -c "$*"; }
test_exit() { chroot_release "$root"; rm -rf --one-file-system "$root/build"; cluster_down; purge_packages; tap_exit; }
chroot_release "$root"
chroot_log=$TOP_BUILDDIR/tests/integration/site_install.chroot.log
if [ "$(cat "$root/.tune-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf --one-file-system "$root" && mkdir -p "$cache"
  {
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian &&
      cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
    chroot "$root" apt-get update -q && in_root "apt-get install -y -q --no-install-recommends build-essential ccache"
  } >"$chroot_log" 2>&1 || { echo "Bail out! cannot make the package build chroot $root: $(tail -n 5 "$chroot_log" | tr '\n' ' ')"; exit 1; }
fi
rm -rf --one-file-system "$root/build" && mkdir -p "$root/build/${slurmsrc##*/}" "$root/ccache"
tar xzf "$tarname.tar.gz" -C "$root/build"
echo 'enable_dependency_tracking=yes' >"$root/build/config.site"
# /proc as sbuild mounts it: the history's writer claim reads processes' start times.
mount --bind "$slurmsrc" "$root/build/${slurmsrc##*/}" && mount -o remount,bind,ro "$root/build/${slurmsrc##*/}" &&
  mount --bind "$ccache_dir" "$root/ccache" && mount -t proc proc "$root/proc" ||
  { echo "Bail out! cannot bind-mount the Slurm source and the compiler cache into $root"; exit 1; }
build_log=$TOP_BUILDDIR/tests/integration/site_install.dpkg-buildpackage.log
{ in_root "cd /build/$tarname && ${build_dep/apt-get build-dep/apt-get build-dep -y -q}" && echo "$stamp" >"$root/.tune-stamp" &&
    one_build_at_a_time in_root "cd /build/$tarname && DEB_BUILD_OPTIONS=parallel=2 $buildpackage"; } >"$build_log" 2>&1
rc=$?
checks=$(grep -E '^# (TOTAL|PASS|FAIL):' "$build_log" | tr -s ' ' | paste -sd' ')
failed=$(cd "$root/build/$tarname/tests" 2>/dev/null && grep -h -A15 '^not ok' ./*.log ./*/*.log 2>/dev/null | head -n 80)
cp "$root"/build/tune_*.deb "$root"/build/tune-slurm-plugins_*.deb "$work/" 2>/dev/null
chroot_release "$root"
debs=("$work"/tune_*.deb "$work"/tune-slurm-plugins_*.deb)
if [ $rc -eq 0 ] && [ -f "${debs[0]}" ] && [ -f "${debs[1]}" ] && [ -z "$not_in_dist" ] && grep -q '^# FAIL: *0$' "$build_log"; then
  ok "in a clean bookworm chroot, the admin guide's '$build_dep' and '$buildpackage' build ${debs[*]##*/} with the checks on ($checks; $((SECONDS - t0)) s)"
else
  not_ok "the release tarball holds the source and builds the Debian packages, checks on, in a clean chroot" \
    "files of the checkout missing from $tarname.tar.gz: ${not_in_dist:-none}" "exit $rc" "$(tail -n 30 "$build_log")" "$failed"; exit 0
fi
lint=$(lintian --fail-on error,warning "${debs[@]}" 2>&1); lrc=$?
if [ $lrc -eq 0 ] && ! grep -qE '^[EW]: ' <<<"$lint"; then ok "lintian reports no error or warning on the packages ($(grep -c . <<<"$lint") notes)"
else not_ok "lintian reports no error or warning on the packages" "$lint"; fi

# --- 2. what they hold ------------------------------------------------------------------
list() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\.||; s|/$||' | grep -v '^$'; }
tune_files=$(list "${debs[0]}") plugin_files=$(list "${debs[1]}")
depends=$(dpkg-deb -f "${debs[1]}" Depends)
slurm_version=$slurmversion
missing=()
for f in /usr/bin/tune /usr/share/man/man1/tune.1.gz /usr/share/man/man1/tune-simulate.1.gz /usr/share/man/man5/tune-history.5.gz \
         /usr/share/man/man7/tune-search.7.gz /usr/share/tune/python/tune_report.py /usr/include/tune/tune_report.h \
         /usr/lib/python3/dist-packages/tune_report.py /usr/share/tune/examples/README.md \
         /usr/share/tune/examples/synthetic/branin.py /usr/share/tune/examples/pytorch/train.py \
         /usr/share/doc/tune/admin-guide.md.gz /usr/share/doc/tune/copyright; do
  grep -qxF "$f" <<<"$tune_files" || missing+=("tune: $f")
done
for f in "$slurmplugindir"/{sched_tune,job_submit_tune,site_factor_tune,select_cons_tres_gang}.so \
         /usr/share/tune/plugin-conf/{sched_tune,site_factor_tune,select_gang}.conf \
         /usr/share/man/man5/sched_tune.conf.5.gz /usr/share/man/man8/{select_cons_tres_gang,site_factor_tune}.8.gz; do
  grep -qxF "$f" <<<"$plugin_files" || missing+=("tune-slurm-plugins: $f")
done
grep -q '\.so$' <<<"$tune_files" && missing+=("tune holds a plugin: $(grep '\.so$' <<<"$tune_files")")
grep -q '\.la$' <<<"$plugin_files" && missing+=("tune-slurm-plugins holds libtool files")
grep -qF "slurm-wlm-basic-plugins (>= $slurm_version)" <<<"$depends" && grep -qF "slurm-wlm-basic-plugins (<< $slurm_version.0~)" <<<"$depends" ||
  missing+=("tune-slurm-plugins Depends: $depends (want slurm-wlm-basic-plugins of exactly $slurm_version)")
if [ ${#missing[@]} -eq 0 ]; then
  ok "tune holds the command, man page, helpers and guides; tune-slurm-plugins the plugins in $slurmplugindir, their pages and examples, and depends on Slurm $slurm_version exactly"
else not_ok "the packages hold what the admin guide says" "${missing[@]}"; fi

# --- 3. installed with apt; a cluster from the guide's lines ----------------------------------
out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${debs[@]}" 2>&1)
if [ $? -eq 0 ] && [ "$(dpkg-query -W -f='${db:Status-Status} ' "${packages[@]}")" = "installed installed " ] &&
   [ -x /usr/bin/tune ] && [ -f "$slurmplugindir/sched_tune.so" ]; then
  ok "apt-get install ./tune_*.deb ./tune-slurm-plugins_*.deb"
else not_ok "apt-get installs the packages" "$(tail -n 15 <<<"$out")"; exit 0; fi

# A researcher with only the package: an installed example runs by hand
# (tune_report imported from python3's own path, reports on stderr).
hand=$(cd "$work" && env -u PYTHONPATH TUNE_PARAM_x1=3.14159 TUNE_PARAM_x2=2.275 /usr/share/tune/examples/synthetic/branin.py 2>&1)
if [ $? -eq 0 ] && grep -q '^objective=0.39' <<<"$hand"; then
  ok "an installed example runs by hand outside a trial (tune_report from /usr/lib/python3/dist-packages)"
else not_ok "an installed example runs by hand" "$hand"; fi

guide=$TOP_SRCDIR/docs/admin-guide.md
block() { sed -n "/^<!-- slurm.conf: $1 -->\$/,/^<!-- \/slurm.conf -->\$/p" "$guide" | grep -vE '^(<!--|```)' | sed 's/#.*//; /^[[:space:]]*$/d'; }
lines=$(block sched-tune; block select-gang)
confs=()
while read -r l; do confs+=(--conf "$l"); done <<<"$lines"
cp /usr/share/tune/plugin-conf/sched_tune.conf /usr/share/tune/plugin-conf/select_gang.conf "$work/"
# Quicker than the installed defaults, so that a study of a few trials sees a pass.
sed -i 's/^interval = .*/interval = 2;/' "$work/sched_tune.conf"
cluster_up site_install 17975 --installed --nodes 2 --cpus 4 --gpus 2 --sched-conf "$work/sched_tune.conf" \
  --select-conf "$work/select_gang.conf" "${confs[@]}"
conf_ok=yes
grep -q '^PluginDir=' "$SLURM_CONF" && conf_ok="a PluginDir line"
while read -r l; do grep -qxF "$l" "$SLURM_CONF" || conf_ok="no line '$l'"; done <<<"$lines"
ctld=$(cat "$CLUSTER_DIR/run/slurmctld.pid" 2>/dev/null)
mapped=$(grep -oE '/[^ ]*(sched_tune|select_cons_tres_gang)\.so' "/proc/$ctld/maps" 2>/dev/null | sort -u | paste -sd' ')
if [ "$conf_ok" = yes ] && [ "$(wc -l <<<"$lines")" -ge 5 ] && [[ $mapped == *"$slurmplugindir/sched_tune.so"* ]] &&
   [[ $mapped == *"$slurmplugindir/select_cons_tres_gang.so"* ]] &&
   grep -q "sched/tune: loaded $CLUSTER_DIR/etc/sched_tune.conf" "$CLUSTER_DIR/log/slurmctld.log"; then
  ok "slurmctld runs the admin guide's $(wc -l <<<"$lines") lines with no PluginDir and loads $mapped"
else not_ok "slurmctld runs the admin guide's lines and loads the installed plugins" "slurm.conf: $conf_ok" "lines: $lines" "mapped: $mapped" \
  "$(grep -E 'tune|gang|error' "$CLUSTER_DIR/log/slurmctld.log" | tail -n 10)"; fi

# --- 4. a researcher's studies from a venv, with the installed tune ------------------------------
user=$(test_user tune-user1) || { echo "Bail out! cannot create a test user"; exit 1; }
cat >"$work/space.json" <<'JSON'
{"parameters": [{"name": "x", "type": "bound", "value": [-2, 2]}]}
JSON
# The trial program imports a module only the venv has, and says which
# interpreter ran it.
cat >"$work/train.py" <<'PY'
#!/usr/bin/env python3
import os, sys
import venv_only  # in the user's virtual environment alone
from tune_report import objective
x = float(os.environ["TUNE_PARAM_x"])
print("interpreter", sys.executable, "prefix", sys.prefix, flush=True)
objective(venv_only.loss(x))
PY
chmod 755 "$work/train.py"
chmod 644 "$work/space.json"
as_user() { su - "$user" -c "cd $work && export SLURM_CONF=$SLURM_CONF && . venv/bin/activate && $*"; }
su - "$user" -c "cd $work && /usr/bin/python3 -m venv venv" &&
  site=$(su - "$user" -c "$work/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'") &&
  printf 'def loss(x):\n    return (x - 0.5) ** 2\n' >"$site/venv_only.py" && chown "$user" "$site/venv_only.py"
env_seen=$(as_user 'echo "PATH=$PATH LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} tune=$(command -v tune) python3=$(command -v python3)"' 2>&1)
sub_jobs=$(as_user "tune submit --trial-jobs --space space.json --trials 4 --parallel 2 --mem-per-trial 200M --name venv-jobs -- ./train.py" 2>&1)
sub_mpi=$(as_user "tune submit --space space.json --trials 4 --parallel 2 --mem-per-trial 200M --name venv-mpi -- ./train.py" 2>&1)
for _ in $(seq 1 180); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 1; done
left=$(squeue -h -o '%i %j %T' 2>&1)
st_jobs=$(as_user "tune status venv-jobs.h5" 2>&1)
st_mpi=$(as_user "tune status venv-mpi.h5" 2>&1)
ran=$(find "$work/venv-jobs.trials" "$work/venv-mpi.trials" -name stdout -exec cat {} + 2>/dev/null | grep -c "^interpreter $work/venv/bin/python3\? ")
build_tree=$(cd "$TOP_BUILDDIR" && pwd -P)
if [[ $env_seen == *"tune=/usr/bin/tune python3=$work/venv/bin/python3"* ]] && [[ $env_seen != *"$build_tree"* ]] &&
   grep -q '^submitted job' <<<"$sub_jobs" && grep -q '^submitted job' <<<"$sub_mpi"; then
  ok "$user submits from a venv with the installed tune (/usr/bin/tune, nothing of the build tree on PATH or LD_LIBRARY_PATH)"
else not_ok "$user submits from a venv with the installed tune" "$env_seen" "$sub_jobs" "$sub_mpi"; fi
if grep -qE '^trials: +4 \(4 ok\)' <<<"$st_jobs" && grep -qE '^trials: +4 \(4 ok\)' <<<"$st_mpi" && [ "$ran" -eq 8 ] && [ -z "$left" ]; then
  ok "both studies (trial jobs, MPI mode) finished 4 of 4 trials on the venv's interpreter, tune status reads them, no job left"
else not_ok "both studies finished their trials on the venv's interpreter" "trial jobs: $st_jobs" "MPI: $st_mpi" "queue: $left" \
  "lines naming the venv's interpreter: $ran" "$(tail -n 15 "$work"/venv-*.out 2>/dev/null)" \
  "a trial's stderr: $(find "$work/venv-jobs.trials" -name stderr -exec tail -n 5 {} + 2>/dev/null | head -n 12)"; fi

# The admin guide's check after each stage, as a user on a login node would
# type it (its second block in "4. Verify"); the last line once the study ended.
verify=$(sed -n '/^## 4\. Verify$/,/^## 5\./p' "$TOP_SRCDIR/docs/admin-guide.md" |
  awk '/^```$/ {n++; if (n == 3) {inside = 1; next} if (n == 4) exit} inside' | sed 's/ *#.*//')
vdir=$work/verify
mkdir -p "$vdir" && chown "$user" "$vdir"
v_out=$(su - "$user" -c "cd $vdir && export SLURM_CONF=$SLURM_CONF && set -e && $(head -n -1 <<<"$verify" | paste -sd';')" 2>&1)
v_rc=$?
for _ in $(seq 1 180); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 1; done
v_status=$(su - "$user" -c "cd $vdir/check && export SLURM_CONF=$SLURM_CONF && $(tail -n 1 <<<"$verify")" 2>&1)
if [ $v_rc -eq 0 ] && [ "$(wc -l <<<"$verify")" -ge 4 ] && grep -q '^submitted job' <<<"$v_out" &&
   grep -qE '^trials: +4 \(4 ok\)' <<<"$v_status"; then
  ok "the admin guide's verify step runs as written with the installed example: $(grep -E '^trials:' <<<"$v_status")"
else not_ok "the admin guide's verify step as written" "$verify" "exit $v_rc: $v_out" "$v_status" "$(squeue)"; fi

# --- 5. purged: slurmctld without the tune lines, nothing of tune left ---------------------------------
cluster_down
out=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${packages[@]}" 2>&1); prc=$?
leftover=()
for f in /usr/bin/tune /usr/share/tune /usr/include/tune /usr/share/doc/tune /usr/share/doc/tune-slurm-plugins \
         /usr/share/man/man1/tune.1.gz /usr/share/man/man5/sched_tune.conf.5.gz \
         "$slurmplugindir"/{sched_tune,job_submit_tune,site_factor_tune,select_cons_tres_gang}.so; do
  [ -e "$f" ] && leftover+=("$f")
done
status=$(dpkg-query -W -f='${db:Status-Abbrev}' "${packages[@]}" 2>/dev/null | tr -d ' ')
# The tune lines out: slurmctld's own scheduler and select plugin, the rest as before.
cluster_up site_install_after 17975 --installed --nodes 2 --cpus 4 --gpus 2 --sched-conf "$work/sched_tune.conf"
job=$(sbatch --parsable -o "$work/after.out" --wrap 'echo after' 2>&1)
wait_job "$job" 30
kept=$(ls "$work/sched_tune.conf" "$CLUSTER_DIR/etc/sched_tune.conf" 2>/dev/null | wc -l)
if [ $prc -eq 0 ] && [ ${#leftover[@]} -eq 0 ] && [[ -z $status || $status =~ ^(un)+$ ]] &&
   [ "$(cat "$work/after.out" 2>/dev/null)" = after ] && [ "$kept" -eq 2 ]; then
  ok "apt-get purge leaves nothing of tune but the configuration files; slurmctld without the tune lines starts and runs a job"
else not_ok "after apt-get purge, nothing of tune is left and slurmctld runs without it" "purge exit $prc: $(tail -n 5 <<<"$out")" \
  "left: ${leftover[*]}" "dpkg status: $status" "job: $job $(cat "$work/after.out" 2>&1)" "configuration files kept: $kept of 2"; fi
