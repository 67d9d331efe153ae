// SPDX-License-Identifier: GPL-2.0-or-later
// `tune status FILE` and `tune export FILE`: read a history, also while its
// study runs.
#pragma once

#include <string>

#include "history/history.hpp"

namespace tune {

// read_history for a reading command: a read that was not whole (another
// host writing the file) is said on stderr, naming `command` and the file.
HistorySnapshot read_history_for(const std::string& command, const std::string& history, bool with_reports);

int show_status(const std::string& history, int top);
int export_history(const std::string& history, const std::string& format, const std::string& output);

}  // namespace tune
