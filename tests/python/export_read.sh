#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tune export read as a researcher reads it: pandas on the trials and curves
# CSV, Optuna's load_study, trials_dataframe and plots on the journal, of a
# finished two-objective study and a one-objective study, each with pruned
# and failed trials; and the user guide's snippet reading a history while
# its study still runs (tests/python/export_read_test.py, TAP).
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export TUNE="${TOP_BUILDDIR:-$top}/driver/tune"
exec /usr/bin/python3 "$top/tests/python/export_read_test.py"
