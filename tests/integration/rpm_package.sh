#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The RPMs of the RHEL family, built the way the admin guide says (rpmbuild
# -ta on the release tarball, against Slurm's source tarball of the version
# this tree was configured for), here with Debian's rpmbuild: the RHEL
# family's build dependencies cannot be resolved on Debian (--nodeps), so
# the Slurm this tree was built against stands in for slurm-devel. Checked:
# both packages are made, each holds what the guide says (plugins in
# /usr/lib64/slurm, no libtool files), the plugins require exactly this
# Slurm, neither has scriptlets, and every /usr/lib64/slurm path the docs
# name is in the package.
source "$(dirname "$0")/tap.sh"
plan 4
command -v rpmbuild >/dev/null || { echo "Bail out! rpmbuild is missing: apt-get install rpm (scripts/setup does)"; exit 1; }
eval "$(make -s -C "$TOP_BUILDDIR" print-install-dirs)"
[ -f "$slurmsrc/META" ] || { echo "Bail out! this build has no Slurm source: configure --with-slurm-source"; exit 1; }
slurm_prefix=$(sed -n 's/^SLURM_PREFIX = //p' "$TOP_BUILDDIR/Makefile")
slurm_version=$slurmversion
# Slurm's release tarball as a site has it (scripts/test's source directory),
# else the unpacked source this tree was built with.
slurm_source=$slurmsrc
for t in "${TUNE_SLURM_SOURCES:-/nonexistent}"/slurm-"$slurm_version".tar.*; do [ -f "$t" ] && slurm_source=$t; done
scratch_dir work
cd "$work" || exit 1

t0=$SECONDS
if ! out=$(release_tarball "$work"); then
  not_ok "make dist makes $tarname.tar.gz" "$out"; exit 0
fi
log=$TOP_BUILDDIR/tests/integration/rpm_package.rpmbuild.log
# ccache across runs, its key free of the scratch directory's name. Debian's
# rpm has no RHEL flags to give (%optflags is "-O2 -g"): the build takes the
# build tree's (the Debian packages' hardened flags, as the RHEL family's
# %optflags are hardened too), and a site file keeps configure's dependency
# tracking on (%configure turns it off; the tree's compile commands have it),
# so that ccache serves the objects the tree against this Slurm compiled and
# only the plugins, against Slurm's unpacked tarball, compile.
echo 'enable_dependency_tracking=yes' >"$work/config.site"
one_build_at_a_time env PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$(ccache -k cache_dir 2>/dev/null || echo "$HOME/.cache/ccache")" \
  CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=locale CONFIG_SITE="$work/config.site" \
  CFLAGS="$(tree_flag CFLAGS)" CXXFLAGS="$(tree_flag CXXFLAGS)" CPPFLAGS="$(tree_flag CPPFLAGS)" LDFLAGS="$(tree_flag LDFLAGS)" \
  CCACHE_IGNOREOPTIONS='-ffile-prefix-map=* -fdebug-prefix-map=*' \
  rpmbuild -ta "$tarname.tar.gz" --nodeps --without check --define "_topdir $work/rpmbuild" \
  --define "slurm_source $slurm_source" ${slurm_prefix:+--define "slurm_prefix $slurm_prefix"} >"$log" 2>&1
rc=$?
rpms=$(find "$work/rpmbuild/RPMS" -name '*.rpm' 2>/dev/null | sort)
main=$(grep -E '/tune-[0-9][^/]*\.rpm$' <<<"$rpms")
plugins=$(grep -E '/tune-slurm-plugins-[0-9][^/]*\.rpm$' <<<"$rpms")
if [ $rc -eq 0 ] && [ -f "$main" ] && [ -f "$plugins" ]; then
  ok "rpmbuild -ta $tarname.tar.gz against Slurm $slurm_version (${slurm_source##*/}) makes ${main##*/} and ${plugins##*/} ($((SECONDS - t0)) s)"
else not_ok "rpmbuild -ta makes the tune and tune-slurm-plugins RPMs" "exit $rc" "$rpms" "$(tail -n 30 "$log")"; exit 0; fi

files_main=$(rpm -qlp "$main" 2>/dev/null) files_plugins=$(rpm -qlp "$plugins" 2>/dev/null)
missing=()
for f in /usr/bin/tune /usr/share/tune/python/tune_report.py /usr/include/tune/tune_report.h /usr/share/doc/tune/admin-guide.md; do
  grep -qxF "$f" <<<"$files_main" || missing+=("tune: $f")
done
# %license: /usr/share/licenses/NAME on the RHEL family, NAME-VERSION with Debian's rpm.
grep -qE '^/usr/share/licenses/tune(-[0-9.]+)?/LICENSE$' <<<"$files_main" || missing+=("tune: its LICENSE")
for p in man1/tune.1 man1/tune-simulate.1 man5/tune-history.5 man7/tune-search.7; do
  grep -qE "^/usr/share/man/$p(\\.gz)?\$" <<<"$files_main" || missing+=("tune: $p")
done
grep -q '^/usr/share/tune/examples/synthetic/branin.py$' <<<"$files_main" || missing+=("tune: the examples")
grep -q '/tune_report.py$' <<<"$(grep -v '^/usr/share/tune/' <<<"$files_main")" || missing+=("tune: tune_report.py where python3 imports it")
for f in /usr/lib64/slurm/{sched_tune,job_submit_tune,site_factor_tune,select_cons_tres_gang}.so \
         /usr/share/tune/plugin-conf/{sched_tune,site_factor_tune,select_gang}.conf; do
  grep -qxF "$f" <<<"$files_plugins" || missing+=("tune-slurm-plugins: $f")
done
for p in man5/sched_tune.conf.5 man8/select_cons_tres_gang.8 man8/site_factor_tune.8; do
  grep -qE "^/usr/share/man/$p(\\.gz)?\$" <<<"$files_plugins" || missing+=("tune-slurm-plugins: $p")
done
grep -q '\.so$' <<<"$files_main" && missing+=("tune holds a plugin")
grep -q '\.la$' <<<"$files_plugins" && missing+=("tune-slurm-plugins holds libtool files")
# The RHEL paths the docs name are in the package.
for p in $(grep -ohE '/usr/lib64/slurm/[a-z_]+\.so' "$TOP_SRCDIR/README.md" "$TOP_SRCDIR"/docs/*.md "$TOP_SRCDIR"/man/*.in | sort -u); do
  [ "$p" = /usr/lib64/slurm/select_cons_tres.so ] && continue  # Slurm's own
  grep -qxF "$p" <<<"$files_plugins" || missing+=("named in the docs, not in the RPM: $p")
done
if [ ${#missing[@]} -eq 0 ]; then
  ok "tune holds the command, its page, the helpers, guides and licence; tune-slurm-plugins the plugins in /usr/lib64/slurm, their pages and examples"
else not_ok "the RPMs hold what the admin guide says" "${missing[@]}" "tune: $files_main" "plugins: $files_plugins"; fi

requires=$(rpm -qp --requires "$plugins" 2>/dev/null)
if grep -qE "^slurm(\\([a-z0-9_-]+\\))? = $slurm_version\$" <<<"$requires"; then
  ok "tune-slurm-plugins requires slurm = $slurm_version exactly"
else not_ok "tune-slurm-plugins requires slurm = $slurm_version exactly" "$requires"; fi

scripts=$(rpm -qp --scripts "$main" "$plugins" 2>/dev/null)
if [ -z "$scripts" ]; then ok "neither RPM has a scriptlet (installing starts, stops or restarts nothing)"
else not_ok "neither RPM has a scriptlet" "$scripts"; fi
