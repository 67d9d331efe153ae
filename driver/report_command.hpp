// SPDX-License-Identifier: GPL-2.0-or-later
// `tune report`: a study's findings as text, one self-contained HTML page and,
// if asked, one SVG file per chart.
#pragma once

#include <string>

namespace tune {

// html: the page to write ("" = HISTORY without .h5 + "-report.html", "-" = none);
// svg_dir: also write every chart there as NAME.svg ("" = no).
int write_report(const std::string& history, const std::string& html, const std::string& svg_dir);

}  // namespace tune
