#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trial program that misbehaves on request ($TUNE_PARAM_mode), for tests.
r=${TUNE_REPORT_FD:-2}
case ${TUNE_PARAM_mode:-ok} in
  ok) echo "step=1 loss=0.5" >&"$r"; echo "objective=${TUNE_PARAM_x:-1}" >&"$r" ;;
  crash) kill -SEGV $$ ;;
  exit3) echo "about to fail" >&2; exit 3 ;;
  hang) sleep 1001 & sleep 1001 ;;
  garbage) head -c 20000 /dev/urandom >&"$r"; echo >&"$r" ;;
  nan) echo "objective=nan" >&"$r" ;;
  noobj) echo "step=1 loss=1" >&"$r" ;;
  slow) sleep "${TUNE_PARAM_sleep:-0.2}"; echo "objective=${TUNE_PARAM_x:-1}" >&"$r" ;;
  fail) exit 1 ;;
esac
