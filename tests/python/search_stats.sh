#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The search benchmark's paired statistic (bench/search_stats.py), tested
# against published critical values: tests/python/search_stats_test.py (TAP).
exec /usr/bin/python3 "${TOP_SRCDIR:-$(dirname "$0")/../..}/tests/python/search_stats_test.py"
