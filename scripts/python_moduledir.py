# SPDX-License-Identifier: GPL-2.0-or-later
# Where python3 looks for modules installed under PREFIX (argv[1]): Debian's
# and Ubuntu's own directories for /usr and /usr/local, else the standard
# layout under PREFIX. configure puts tune_report.py there.
import sys
import sysconfig

prefix = sys.argv[1].rstrip("/") or "/"
schemes = sysconfig.get_scheme_names()
if prefix == "/usr" and "deb_system" in schemes:
    scheme, base = "deb_system", "/usr"
elif prefix == "/usr/local" and "posix_local" in schemes:
    scheme, base = "posix_local", "/usr"
else:
    scheme, base = "posix_prefix", prefix
print(sysconfig.get_path("purelib", scheme, {"base": base, "platbase": base}))
