// SPDX-License-Identifier: GPL-2.0-or-later
// The study flags (lib/command/study_flags' list) declared on the command line
// for `tune run` and `tune submit`, in one loop, so the two cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>

#include "command/study_flags.hpp"

namespace tune {

// Declares every study flag on `app` (tune run or tune submit) with its check,
// default and scope. With Submit, --space and --trials are required (a job
// cannot ask); with Run a resumed study may leave them out. Returns the
// --trial-jobs flag.
CLI::Option* add_study_flags(CLI::App& app, StudyFlags& f, StudyCommand command);

}  // namespace tune
