// SPDX-License-Identifier: GPL-2.0-or-later
// The {name} placeholders of a trial's command line: filled with the
// trial's parameter values, and listed so a study can check them first.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tune {

// Fills {name} placeholders of each argument with parameter values; "{{" and
// "}}" stand for braces. Throws std::invalid_argument for an unknown name.
std::vector<std::string> fill_placeholders(const std::vector<std::string>& argv,
                                           const std::vector<std::pair<std::string, std::string>>& values);
// The names of the {name} placeholders of argv, in order.
std::vector<std::string> placeholder_names(const std::vector<std::string>& argv);

}  // namespace tune
