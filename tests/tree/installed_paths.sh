#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install puts exactly what the docs say where they say it, and make
# uninstall takes it all away again:
#  - this build's install (DESTDIR): the command, the plugins in the
#    configured Slurm plugin directory without libtool's .la files, the man
#    pages in man1/5/7/8 naming those directories, the example configurations,
#    the trial helpers and the guides; nothing else;
#  - the same build installed with prefix /usr, as the packages do: every
#    installed path that README.md, docs/ and the man pages name exists there
#    (paths of the RHEL family's layout are checked against the RPM's file
#    list by tests/integration/rpm_package.sh);
#  - make uninstall leaves no file behind.
source "$(dirname "$0")/../integration/tap.sh"
plan 6
scratch_dir dest
eval "$(make -s -C "$TOP_BUILDDIR" print-install-dirs)"
plugins_built=no
[ -e "$TOP_BUILDDIR/plugins/sched_tune/sched_tune.la" ] && plugins_built=yes

# 1. What make install puts on disk.
if ! out=$(make -s -C "$TOP_BUILDDIR" install DESTDIR="$dest/a" 2>&1); then
  not_ok "make install DESTDIR=..." "$out"; exit 0
fi
want=("$bindir/tune" "$pkgdatadir/python/tune_report.py" "$includedir/tune/tune_report.h"
      "$pkgdatadir/plugin-conf/sched_tune.conf" "$pkgdatadir/plugin-conf/site_factor_tune.conf" "$pkgdatadir/plugin-conf/select_gang.conf"
      "$mandir/man1/tune.1" "$mandir/man1/tune-simulate.1" "$mandir/man5/tune-history.5" "$mandir/man7/tune-search.7"
      "$mandir/man5/sched_tune.conf.5" "$mandir/man8/select_cons_tres_gang.8" "$mandir/man8/site_factor_tune.8"
      "$docdir/README.md" "$docdir/user-guide.md" "$docdir/admin-guide.md" "$docdir/yield-protocol.md")
# Every file of examples/.
while read -r f; do want+=("$pkgdatadir/$f"); done < <(cd "$TOP_SRCDIR" && find examples -type f ! -name '*.pyc' | sort)
[ -n "$pythonmoduledir" ] && want+=("$pythonmoduledir/tune_report.py")
if [ $plugins_built = yes ]; then
  for p in sched_tune job_submit_tune site_factor_tune select_cons_tres_gang; do want+=("$slurmplugindir/$p.so"); done
fi
got=$(cd "$dest/a" && find . -type f -o -type l | sed 's|^\.||' | sort)
expected=$(printf '%s\n' "${want[@]}" | sort)
if [ "$got" = "$expected" ]; then
  ok "make install puts the ${#want[@]} files in place, plugins in $slurmplugindir (plugins built: $plugins_built), nothing else"
else
  not_ok "make install puts exactly the expected files" "$(diff <(echo "$expected") <(echo "$got") | grep '^[<>]')"
fi

# 2. The installed man pages name this build's directories.
pages=$(cat "$dest/a$mandir"/man*/* 2>/dev/null)
if ! grep -q '@[a-zA-Z_]*@' <<<"$pages" && grep -qF "$slurmplugindir/sched_tune.so" <<<"$pages" &&
   grep -qF "$pkgdatadir/plugin-conf/sched_tune.conf" <<<"$pages" && [ "$(grep -c 'PluginDir=' <<<"$pages")" -eq 0 ]; then
  ok "the installed man pages name $slurmplugindir and $pkgdatadir/plugin-conf, ask for no PluginDir line, no @...@ left"
else not_ok "the installed man pages name this build's directories" "$(grep -n '@[a-zA-Z_]*@\|PluginDir=' <<<"$pages" | head)"; fi

# 3. The install with prefix /usr, as the packages make it, holds every
# installed path the docs name.
if ! out=$(make -s -C "$TOP_BUILDDIR" install prefix=/usr DESTDIR="$dest/usr" 2>&1); then
  not_ok "make install prefix=/usr" "$out"; exit 0
fi
docs=("$TOP_SRCDIR/README.md" "$TOP_SRCDIR"/docs/*.md "$TOP_SRCDIR"/man/*.in "$TOP_SRCDIR"/etc/*.conf)
named=$(grep -ohE '(/usr|/etc)/[A-Za-z0-9_.+/-]*' "${docs[@]}" | sed 's|[.,/]*$||' | sort -u)
bad=() checked=0
while read -r p; do
  [ -n "$p" ] || continue
  case $p in
    */lib/tune/slurm*|*/tune/slurm) bad+=("$p: the old plugin directory (plugins go into Slurm's own)"); continue ;;
    /usr/lib64/slurm/*)  # the RHEL family's plugin directory: one of our plugins or Slurm's own
      b=${p##*/}; case $b in sched_tune.so|job_submit_tune.so|site_factor_tune.so|select_cons_tres_gang.so|select_cons_tres.so) ;; *) bad+=("$p: not a plugin of tune") ;; esac
      continue ;;
    /usr/share/tune*|/usr/bin/tune|/usr/include/tune*|/usr/share/doc/tune*|/usr/lib/*/slurm-wlm/*_tune*.so|/usr/lib/*/slurm-wlm/select_cons_tres_gang.so) ;;
    *) continue ;;  # not a path tune installs (Slurm's, the system's)
  esac
  p=${p/\/usr\/lib\/x86_64-linux-gnu\/slurm-wlm/$slurmplugindir}
  checked=$((checked + 1))
  [ -e "$dest/usr$p" ] || bad+=("$p: named in the docs, not installed")
done <<<"$named"
if [ ${#bad[@]} -eq 0 ] && [ $checked -gt 5 ]; then ok "the $checked installed paths README.md, docs/ and man/ name are where make install prefix=/usr puts them"
else not_ok "the installed paths the docs name are where make install puts them ($checked checked)" "${bad[@]}"; fi

# 3b. Every link of the installed guides and the examples' README resolves
# in the installed tree (make install rewrites them for it).
dead=() links=0
while read -r md; do
  while read -r t; do
    t=${t%%#*}
    case $t in ''|http://*|https://*|mailto:*) continue ;; esac
    links=$((links + 1))
    if [[ $t == /* ]]; then [ -e "$dest/usr$t" ] || dead+=("${md#"$dest/usr"}: $t")
    else [ -e "$(dirname "$md")/$t" ] || dead+=("${md#"$dest/usr"}: $t"); fi
  done < <(grep -oE '\]\([^) ]+\)' "$md" | sed 's/^](//; s/)$//')
done < <(eval "$(make -s -C "$TOP_BUILDDIR" print-install-dirs prefix=/usr | sed 's/^/usr_/')"
         find "$dest/usr$usr_docdir" "$dest/usr$usr_pkgdatadir" -name '*.md')
if [ ${#dead[@]} -eq 0 ] && [ $links -gt 5 ]; then ok "the $links links of the installed guides and examples resolve in the installed tree"
else not_ok "the installed guides' links resolve ($links links)" "${dead[@]}"; fi

# 4. make uninstall removes what install put.
for d in a usr; do
  extra=(); [ $d = usr ] && extra=(prefix=/usr)
  make -s -C "$TOP_BUILDDIR" uninstall DESTDIR="$dest/$d" "${extra[@]}" >/dev/null 2>&1
done
left=$(find "$dest/a" "$dest/usr" -type f -o -type l)
if [ -z "$left" ]; then ok "make uninstall removes every file make install put"
else not_ok "make uninstall removes every file make install put" "$left"; fi

# 5. The configured plugin directory is Slurm's own when configure found it.
if [ $plugins_built = no ]; then
  skip "plugins go into Slurm's plugin directory" "plugins not built"
elif [ -f "$slurmplugindir/select_cons_tres.so" ] || grep -q -- '--with-slurm-plugindir' "$TOP_BUILDDIR/config.status"; then
  ok "the plugin directory $slurmplugindir is Slurm's own (it holds select_cons_tres.so) or was chosen with --with-slurm-plugindir"
else not_ok "the plugin directory is Slurm's own" "$slurmplugindir has no select_cons_tres.so"; fi
