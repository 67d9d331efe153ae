// The study flags (lib/study/study_flags) declared once on the command line
// for `tune run` and `tune submit`, so the two cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "study/study_flags.hpp"

namespace tune {

enum class StudyCommand { Run, Submit };

// Declares the study flags on `app` (tune run or tune submit). With Submit,
// --space and --trials are required (a job cannot ask); with Run a resumed
// study may leave them out. Returns the --trial-jobs flag.
CLI::Option* add_study_flags(CLI::App& app, StudyFlags& f, StudyCommand command);

}  // namespace tune
