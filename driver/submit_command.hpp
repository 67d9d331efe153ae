// SPDX-License-Identifier: GPL-2.0-or-later
// `tune submit` (the source design's da-submit): writes an sbatch script for
// a study, keeps it beside the history, and submits it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "command/job_script.hpp"
#include "study_flags_cli.hpp"

namespace tune {

void add_submit_options(CLI::App& app, SubmitOptions& o);
int submit_study(const SubmitOptions& o);

}  // namespace tune
