// SPDX-License-Identifier: GPL-2.0-or-later
// Values people type: numbers, durations in Slurm's forms and a command
// line split into words without a shell.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tune {

// A duration as Slurm reads one (sbatch --time, slurm.conf, sacct): a bare
// number is minutes ("30", "0.5"), "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM",
// "D-HH:MM:SS"; and with a unit, "90s", "15m", "2h", "1d". In seconds, or
// nothing when the text is none of these. Every duration tune reads goes
// through here, so `--trial-time-limit 30` means what `--time 30` means.
std::optional<double> read_duration(std::string_view text);

// read_duration, or std::invalid_argument naming `what` (the flag) and the
// accepted forms.
double parse_duration(std::string_view text, std::string_view what);

// A finite number written whole ("0.01", "-4.8", "1e-3"), or
// std::invalid_argument "WHAT: 'TEXT' is not a number".
double parse_number(std::string_view text, std::string_view what);

// A memory size as Slurm takes it: "512", "512M", "4G", "1T" (MB when bare),
// in MB. Throws std::invalid_argument naming `what` and the accepted forms.
long parse_megabytes(std::string_view text, std::string_view what);

// Splits like a POSIX shell does words: blanks separate, '...' and "..." and
// backslash quote; nothing is expanded. Throws std::invalid_argument for an
// unterminated quote.
std::vector<std::string> split_command(std::string_view text);

// The inverse, for writing scripts: quotes a word for /bin/sh when needed.
std::string shell_quote(std::string_view word);

}  // namespace tune
