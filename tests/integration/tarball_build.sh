#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The release tarball on a Debian 12 machine that has only what building
# needs: a bookworm chroot (debootstrap, kept in the cache directory between
# runs) holding the build dependencies the admin guide lists, Slurm's
# libraries and plugins as a build host has them, and none of the test tools
# (GoogleTest, Google Benchmark, FUSE, clang). There, in an empty directory,
#   ./configure --prefix=/usr && make && make install
# builds tune and its plugins (Slurm's source found in /usr/src, the plugins
# put into Slurm's own directory); the installed tune runs; make check stops
# and names the missing test tools with their packages; make uninstall
# removes what install put.
source "$(dirname "$0")/tap.sh"
plan 4
for tool in debootstrap chroot mount; do
  command -v "$tool" >/dev/null || { echo "Bail out! $tool is missing: apt-get install debootstrap (scripts/setup does)"; exit 1; }
done
eval "$(make -s -C "$TOP_BUILDDIR" print-install-dirs)"
[ -f "$slurmsrc/META" ] || { echo "Bail out! this build has no Slurm source ($slurmsrc)"; exit 1; }
slurm_version=$slurmversion
cache=${TUNE_SLURM_CACHE:-/var/cache/tune}
root=$cache/chroot-bookworm-build
# What building needs, as docs/admin-guide.md lists it, and Slurm as the build host runs it.
guide=$TOP_SRCDIR/docs/admin-guide.md
deps=$(sed -n '/^<!-- build-dependencies -->$/,/^<!-- \/build-dependencies -->$/p' "$guide" | grep -o 'apt-get install [^`]*' | sed 's/apt-get install //')
[ -n "$deps" ] || { echo "Bail out! no build-dependencies block in $guide"; exit 1; }
test_only="googletest libgtest-dev libgmock-dev libbenchmark-dev libfuse3-dev fuse3 clang-14 libclang-rt-14-dev python3-scipy groff-base"
stamp="$deps slurm-wlm-basic-plugins ccache | $(dpkg-query -W -f='${Version}' libslurm-dev)"

# The Slurm source and the host's compiler cache are bind-mounted into the
# chroot while it builds: unmounted at exit, and before anything under the
# chroot is removed (also after a run that was killed).
unmount_all() { chroot_release "$root"; }
chroot_exit() {
  unmount_all
  [ -d "$root/build" ] && rm -rf --one-file-system "$root/build"
  tap_exit
}
trap chroot_exit EXIT
unmount_all

# --- the chroot, made once per machine (and again when the list changes) -----------------
t0=$SECONDS
if [ "$(cat "$root/.tune-stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf --one-file-system "$root" && mkdir -p "$cache"
  log=$TOP_BUILDDIR/tests/integration/tarball_build.chroot.log
  {
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian &&
      cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
    chroot "$root" apt-get update -q &&
      chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        $deps slurm-wlm-basic-plugins ccache &&
      chroot "$root" apt-get clean
  } >"$log" 2>&1 || { echo "Bail out! cannot make the build chroot in $root: $(tail -n 5 "$log" | tr '\n' ' ')"; exit 1; }
  echo "$stamp" >"$root/.tune-stamp"
  diag "made the build chroot $root in $((SECONDS - t0)) s"
fi
present=()
for p in $test_only; do
  [ "$(chroot "$root" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] && present+=("$p")
done
if [ ${#present[@]} -eq 0 ] && [ "$(chroot "$root" dpkg-query -W -f='${Version}' libslurm-dev)" = "$(dpkg-query -W -f='${Version}' libslurm-dev)" ]; then
  ok "a bookworm chroot with the admin guide's build dependencies ($(wc -w <<<"$deps") packages) and Slurm $slurm_version, none of the test tools"
else not_ok "a chroot with the build dependencies only" "test tools present: ${present[*]}"; fi

# --- the tarball, built there -------------------------------------------------------------------
rm -rf --one-file-system "$root/build" && mkdir -p "$root/build" "$root/ccache" "$root/usr/src/slurm-$slurm_version"
if ! out=$(release_tarball "$root/build"); then not_ok "make dist" "$out"; exit 0; fi
# Slurm's source where configure looks for it by default, read-only; the
# host's compiler cache (ccache_dir), so that a second run is quick and the
# first takes the objects of the build tree (the same default flags; keys
# free of the locale, which env -i leaves unset here, as scripts/setup's are).
ccache_dir=$(ccache -k cache_dir 2>/dev/null || echo "$HOME/.cache/ccache")
mkdir -p "$ccache_dir"
mount --bind "$slurmsrc" "$root/usr/src/slurm-$slurm_version" &&
  mount -o remount,bind,ro "$root/usr/src/slurm-$slurm_version" &&
  mount --bind "$ccache_dir" "$root/ccache" ||
  { echo "Bail out! cannot bind-mount the Slurm source and the compiler cache into $root"; exit 1; }
# The build tree's flags (the packages' hardened ones, scripts/setup), as a
# site's build environment carries its distribution's: the admin guide's
# commands as written, and the tree's objects from ccache.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  CFLAGS="$(tree_flag CFLAGS)" CXXFLAGS="$(tree_flag CXXFLAGS)" CPPFLAGS="$(tree_flag CPPFLAGS)" LDFLAGS="$(tree_flag LDFLAGS)" \
  CCACHE_DIR=/ccache CCACHE_BASEDIR=/build CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=locale /bin/bash -c "cd /build && $*"; }
log=$TOP_BUILDDIR/tests/integration/tarball_build.build.log
t0=$SECONDS
one_build_at_a_time in_root "tar xzf $tarname.tar.gz && cd $tarname && ./configure --prefix=/usr && make -j2 && make install" >"$log" 2>&1
rc=$?
installed=$(in_root "ls /usr/bin/tune /usr/lib/x86_64-linux-gnu/slurm-wlm/{sched_tune,job_submit_tune,site_factor_tune,select_cons_tres_gang}.so /usr/share/tune/plugin-conf/sched_tune.conf /usr/share/man/man1/tune.1" 2>&1 | grep -c '^/')
version=$(in_root "/usr/bin/tune --version" 2>&1)
if [ $rc -eq 0 ] && [ "$installed" -eq 7 ] && grep -q "Slurm source found in /usr/src/slurm-$slurm_version" "$log" &&
   grep -q 'make check will stop: missing' "$log" && [[ $version == *0.* ]]; then
  ok "there, ./configure --prefix=/usr && make && make install builds and installs tune and its plugins ($((SECONDS - t0)) s); tune --version: $version"
else not_ok "./configure --prefix=/usr && make && make install with the build dependencies only" "exit $rc, $installed of 7 files installed" "$version" "$(tail -n 25 "$log")"; fi

# make check without the test tools: stops, naming each with its packages.
in_root "cd $tarname && make check" >"${log%.log}.check.log" 2>&1
crc=$?
tools=$(cat "$root/build/$tarname/tests/tools.log" 2>/dev/null)
if [ $crc -ne 0 ] && grep -q '^not ok 1 - the tools the tests need are here' <<<"$tools" &&
   grep -q 'apt-get install libgtest-dev libgmock-dev' <<<"$tools"; then
  ok "make check there stops and names the missing test tools: $(grep -c 'apt-get install' <<<"$tools")"
else not_ok "make check without the test tools names them" "exit $crc" "$tools" "$(tail -n 15 "${log%.log}.check.log")"; fi

in_root "cd $tarname && make uninstall" >"${log%.log}.uninstall.log" 2>&1
left=$(in_root "find /usr/bin/tune /usr/share/tune /usr/include/tune /usr/share/doc/tune /usr/share/man/man1/tune.1 /usr/lib/x86_64-linux-gnu/slurm-wlm/{sched_tune,job_submit_tune,site_factor_tune,select_cons_tres_gang}.so -type f" 2>/dev/null)
if [ -z "$left" ]; then ok "make uninstall there removes what make install put"
else not_ok "make uninstall removes what make install put" "$left"; fi
