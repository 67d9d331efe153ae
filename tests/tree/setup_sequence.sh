#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's two commands in the orders a newcomer runs them, through
# scripts/setup's states, without two builds of tune: the checkout's own
# scripts/setup runs on a small autotools tree of the same shape (configure
# takes setup's options; the program it builds prints the flags it was
# compiled with), with apt-get, dpkg and dpkg-query that record packages in a
# scratch directory instead of the system. Checked: the demo then the tests
# (packages arriving in between, the tree rebuilt at the default flags),
# the tests then the demo, a second test run after either, the state an
# older setup left (a Makefile without its config.status), setup killed
# during a package install, during configure and during the build (the next
# run recovers), and every failure named with its fix.
source "$(dirname "$0")/../integration/tap.sh"
plan 9
for tool in autoreconf automake gcc make setsid dpkg-buildflags; do
  command -v "$tool" >/dev/null || { echo "Bail out! $tool is missing: scripts/setup installs it"; exit 1; }
done
scratch_dir work || { echo "Bail out! cannot make a scratch directory"; exit 1; }
# What the tests' setup compiles with: the packages' flags (debian/rules).
opts=$(sed -n 's/^export DEB_BUILD_MAINT_OPTIONS = //p' "$TOP_SRCDIR/debian/rules")
pkg=$(DEB_BUILD_MAINT_OPTIONS=$opts dpkg-buildflags --get CFLAGS | sed -e 's/ *-ffile-prefix-map=[^ ]*//g' -e 's/^ *//')
[[ $pkg == *-O2* ]] || { echo "Bail out! dpkg-buildflags gave no packages' CFLAGS: '$pkg'"; exit 1; }

# --- the stand-ins: a package database in $work/dpkg, and a small tree --------------
fake=$work/bin state=$work/dpkg
mkdir -p "$fake" "$state"
cat >"$fake/dpkg-query" <<'SH'
#!/bin/sh
# dpkg-query -W -f=FORMAT PACKAGE, from the stand-in's database.
for p; do :; done
case "$*" in
  *'${Version}'*) [ "$p" = slurm-wlm ] && echo 22.05.8-4+deb12u3 ;;
  *) if [ -e "$FAKE_DPKG/$p" ]; then printf installed; else printf not-installed; fi ;;
esac
SH
cat >"$fake/dpkg" <<'SH'
#!/bin/sh
# dpkg --audit: what an install that was killed left; dpkg --configure -a finishes it.
echo "dpkg $*" >>"$FAKE_DPKG/log"
case "$*" in
  --audit) [ -e "$FAKE_DPKG/.interrupted" ] && echo "The following packages are only half configured: x" ;;
  "--configure -a") rm -f "$FAKE_DPKG/.interrupted" ;;
esac
exit 0
SH
cat >"$fake/apt-get" <<'SH'
#!/bin/bash
# apt-get update | install [options] PACKAGES, into the stand-in's database.
# .broken: every install fails; .hold: an install stops half done (as a
# killed one leaves dpkg) until .hold goes.
echo "apt-get $*" >>"$FAKE_DPKG/log"
[ "$1" = install ] || exit 0
shift
if [ -e "$FAKE_DPKG/.interrupted" ]; then
  echo "E: dpkg was interrupted, you must manually run 'dpkg --configure -a' to correct the problem." >&2; exit 100
fi
[ -e "$FAKE_DPKG/.broken" ] && { echo "E: Unable to locate package ${*: -1}" >&2; exit 100; }
skip=0
for p; do
  [ $skip = 1 ] && { skip=0; continue; }
  case $p in -o) skip=1; continue ;; -*) continue ;; esac
  if [ -e "$FAKE_DPKG/.hold" ]; then
    touch "$FAKE_DPKG/.interrupted" "$FAKE_DPKG/.holding"
    while [ -e "$FAKE_DPKG/.hold" ]; do sleep 0.1; done
  fi
  touch "$FAKE_DPKG/$p"
done
SH
chmod 755 "$fake"/*

skel=$work/skel
mkdir -p "$skel/scripts" "$skel/driver" "$skel/debian" "$skel/.cache/slurm/slurm-wlm-22.05.8/src/slurmctld"
cp "$TOP_SRCDIR/scripts/setup" "$skel/scripts/setup"
cp "$TOP_SRCDIR/debian/rules" "$skel/debian/rules"
touch "$skel/.cache/slurm/slurm-wlm-22.05.8/src/slurmctld/slurmctld.h"
echo 22.05.8-4+deb12u3 >"$skel/.cache/slurm/slurm-wlm-22.05.8.debversion"
cat >"$skel/scripts/debian-packages" <<'EOF'
# SPDX-License-Identifier: GPL-2.0-or-later
fake-build
[tests]
fake-configure-finds
[tests, while tune builds]
fake-tests-run
EOF
# configure takes setup's options; .hold-configure (in the tree) stops it
# after it wrote Makefile and config.status, until the file goes.
cat >"$skel/configure.ac" <<'EOF'
AC_INIT([toy], [1])
AM_INIT_AUTOMAKE([foreign subdir-objects])
AC_PROG_CC
AC_ARG_WITH([slurm-source], [AS_HELP_STRING([--with-slurm-source=DIR], [Slurm's source])])
AC_ARG_ENABLE([cluster-tests], [AS_HELP_STRING([--enable-cluster-tests], [cluster tests])])
AC_CONFIG_FILES([Makefile])
AC_CONFIG_COMMANDS([hold], [if test -e .hold-configure; then touch .holding; while test -e .hold-configure; do sleep 0.1; done; fi])
AC_OUTPUT
EOF
# The program prints its compile flags; gate.h's rule stops the build while
# .hold-build exists.
cat >"$skel/Makefile.am" <<'EOF'
noinst_PROGRAMS = driver/tune
driver_tune_SOURCES = driver/tune.c
nodist_driver_tune_SOURCES = gate.h
BUILT_SOURCES = gate.h
CLEANFILES = gate.h
driver_tune_CPPFLAGS = -DFLAGS='"$(CFLAGS)"'
gate.h:
	@if test -e .hold-build; then touch .holding; while test -e .hold-build; do sleep 0.1; done; fi
	@echo '/* gate */' >$@
EOF
cat >"$skel/driver/tune.c" <<'EOF'
#include <stdio.h>
int main(void) { puts(FLAGS); return 0; }
EOF
(cd "$skel" && autoreconf -fi >/dev/null 2>"$work/autoreconf.log") ||
  { echo "Bail out! autoreconf of the small tree failed: $(tail -n 5 "$work/autoreconf.log")"; exit 1; }

# tree NAME: a fresh copy of the small tree (file times kept), its packages
# back to none; then setup ARGS... runs the checkout's setup there.
tree() {
  rm -rf "${state:?}"/* "$state"/.[a-z]* && t=$work/$1 && cp -a "$skel" "$t"
}
setup() { (cd "$t" && PATH="$fake:$PATH" FAKE_DPKG=$state TUNE_SETUP_POLICY_RC="$work/policy-rc.d" scripts/setup "$@" 2>&1); }
flags() { "$t/driver/tune" 2>&1; }
# killed_at MARKER ARGS...: setup ARGS started in a session of its own,
# killed (the whole session, -9) once MARKER appears, as a closed terminal or
# an ended CI job leaves it.
killed_at() {
  local marker=$1 pid; shift
  (cd "$t" && PATH="$fake:$PATH" FAKE_DPKG=$state TUNE_SETUP_POLICY_RC="$work/policy-rc.d" exec setsid scripts/setup "$@") >"$work/killed.out" 2>&1 &
  pid=$!
  wait_until 120 test -e "$marker" || { kill -KILL -- -"$pid" 2>/dev/null; return 1; }
  kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  return 0
}
lines() { grep -c "$1" <<<"$2"; }

# 1. The README's order: the demo, then the tests (their packages arrive, so
# configure runs again; the -O1 tree is cleaned and built at the defaults),
# then the tests again (nothing to do), then the demo again (the tree as is).
# The tests' flags are the packages' ($pkg).
tree demo-first
d=$(setup --demo); drc=$? dflags=$(flags)
s=$(setup); src=$? sflags=$(flags)
s2=$(setup); s2rc=$?
d2=$(setup --demo); d2rc=$? d2flags=$(flags)
if [ $drc -eq 0 ] && [[ $dflags == *-O1* ]] && [ $src -eq 0 ] && [ "$sflags" = "$pkg" ] &&
   grep -q "rebuilding: the tree was built with other flags" <<<"$s" && [ $s2rc -eq 0 ] && [ "$(lines '^setup: configure' "$s2")" -eq 0 ] &&
   [ $d2rc -eq 0 ] && [ "$(lines '^setup: configure' "$d2")" -eq 0 ] && [ "$d2flags" = "$pkg" ]; then
  ok "scripts/demo then scripts/test: built at '$dflags', then installed the tests' packages and rebuilt at '$sflags'; a second test run and a demo after it configure nothing"
else not_ok "scripts/demo then scripts/test, then each again" "demo (exit $drc, built '$dflags'):" "$d" "test (exit $src, built '$sflags'):" "$s" \
  "test again (exit $s2rc):" "$s2" "demo again (exit $d2rc, built '$d2flags'):" "$d2"; fi

# 2. The other order: the tests, then the demo, then the tests.
tree test-first
s=$(setup); src=$? sflags=$(flags)
d=$(setup --demo); drc=$? dflags=$(flags)
s2=$(setup); s2rc=$?
if [ $src -eq 0 ] && [ "$sflags" = "$pkg" ] && [ $drc -eq 0 ] && [ "$dflags" = "$pkg" ] &&
   [ "$(lines '^setup: configure' "$d")" -eq 0 ] && [ $s2rc -eq 0 ] && ! grep -q "rebuilding" <<<"$d$s2"; then
  ok "scripts/test then scripts/demo then scripts/test: one build at the packages' flags, kept"
else not_ok "scripts/test then scripts/demo then scripts/test" "test (exit $src, '$sflags'):" "$s" "demo (exit $drc, '$dflags'):" "$d" "test again (exit $s2rc):" "$s2"; fi

# 3. What an older setup left after the demo: a Makefile, no config.status
# (it removed config.status when packages arrived), the demo's mark.
tree older-state
setup --demo >/dev/null
rm -f "$t/config.status" "$t/.setup-configured"
s=$(setup); src=$? sflags=$(flags)
if [ $src -eq 0 ] && [ "$sflags" = "$pkg" ]; then ok "a demo-built tree with a Makefile and no config.status is configured, cleaned and rebuilt"
else not_ok "a Makefile without its config.status" "exit $src, built '$sflags'" "$s"; fi

# 4. Killed during a package install (dpkg left half done), then run again.
tree killed-install
touch "$state/.hold"
if killed_at "$state/.holding" --demo; then
  rm -f "$state/.hold"
  d=$(setup --demo); drc=$?
  if [ $drc -eq 0 ] && [ -e "$state/fake-build" ] && grep -q -- "--configure -a" "$state/log" && [ -x "$t/driver/tune" ] &&
     [ ! -e "$work/policy-rc.d" ]; then
    ok "setup killed during a package install: the next run finishes dpkg's work and the install, builds, and removes the daemons' policy file the killed run left"
  else not_ok "setup killed during a package install recovers" "exit $drc" "$d" "$(cat "$state/log")"; fi
else rm -f "$state/.hold"; not_ok "setup killed during a package install" "the install never started: $(cat "$work/killed.out")"; fi

# 5. Killed during configure (Makefile and config.status written, configure
# not finished) after the demo, then the tests' setup again.
tree killed-configure
setup --demo >/dev/null
touch "$t/.hold-configure"
if killed_at "$t/.holding"; then
  rm -f "$t/.hold-configure" "$t/.holding"
  s=$(setup); src=$? sflags=$(flags)
  if [ $src -eq 0 ] && [ "$sflags" = "$pkg" ] && grep -q '^setup: configure' <<<"$s"; then
    ok "setup killed during configure: the next run configures again, cleans the demo's build and builds"
  else not_ok "setup killed during configure recovers" "exit $src, built '$sflags'" "$s"; fi
else rm -f "$t/.hold-configure"; not_ok "setup killed during configure" "configure never started: $(cat "$work/killed.out")"; fi

# 6. Killed during the build, then run again.
tree killed-build
touch "$t/.hold-build"
if killed_at "$t/.holding" --demo; then
  rm -f "$t/.hold-build" "$t/.holding"
  s=$(setup); src=$? sflags=$(flags)
  if [ $src -eq 0 ] && [ "$sflags" = "$pkg" ]; then ok "setup killed during the build: the next run builds"
  else not_ok "setup killed during the build recovers" "exit $src, built '$sflags'" "$s"; fi
else rm -f "$t/.hold-build"; not_ok "setup killed during the build" "the build never started: $(cat "$work/killed.out")"; fi

# 7-9. Failures say what failed and the fix: a package install, a configure,
# and a build (the last command of a list, where set -e alone ends silently).
named() { # OUTPUT EXIT: failed, with an error line and a fix line
  [ "$2" -ne 0 ] && grep -q '^setup: error: ' <<<"$1" && grep -q '^setup: fix: ' <<<"$1"
}
tree broken-apt
touch "$state/.broken"
s=$(setup --demo); src=$?
if named "$s" $src && grep -q "apt-get install failed" <<<"$s" && grep -q "Unable to locate package" <<<"$s"; then
  ok "a failed package install is named, with apt-get's own words and the fix"
else not_ok "a failed package install is named" "exit $src" "$s"; fi
tree broken-configure
sed -i 's/^AC_OUTPUT$/AC_MSG_ERROR([no such library])\nAC_OUTPUT/' "$t/configure.ac"
touch -d '+1 minute' "$t/configure.ac"
s=$(setup --demo); src=$?
if named "$s" $src && grep -q "configure failed" <<<"$s"; then ok "a failed configure is named, with the fix"
else not_ok "a failed configure is named" "exit $src" "$s"; fi
tree broken-build
setup --demo >/dev/null
echo 'syntax error' >>"$t/driver/tune.c"
s=$(setup); src=$?
if named "$s" $src; then ok "a failed build (after the demo's tree was cleaned) is named: $(grep '^setup: error' <<<"$s" | head -1)"
else not_ok "a failed build is named" "exit $src" "$s"; fi
