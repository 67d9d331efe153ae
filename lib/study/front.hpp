// SPDX-License-Identifier: GPL-2.0-or-later
// The answer of a study with several objectives: its Pareto front.
#pragma once

#include <vector>

#include "history/history.hpp"

namespace tune {

// The ok trials with every objective's value that no other such trial
// dominates (each objective in its own direction), in id order.
std::vector<Trial> pareto_trials(const StudyInfo& study, const std::vector<Trial>& trials);

// A trial's values with maximised objectives negated (what lib/search/pareto takes).
std::vector<double> minimisation_form(const StudyInfo& study, const std::vector<double>& values);

}  // namespace tune
