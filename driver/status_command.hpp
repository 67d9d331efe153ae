// `tune status FILE` and `tune export FILE`: read a history, also while its
// study runs.
#pragma once

#include <string>

namespace tune {

int show_status(const std::string& history, int top);
int export_history(const std::string& history, const std::string& format, const std::string& output);

}  // namespace tune
