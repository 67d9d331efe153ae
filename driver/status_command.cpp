// SPDX-License-Identifier: GPL-2.0-or-later
#include "status_command.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "history/history.hpp"
#include "report/export.hpp"
#include "report/status_view.hpp"
#include "run_command.hpp"
#include "trial_jobs/jobs_file.hpp"

namespace tune {

HistorySnapshot read_history_for(const std::string& command, const std::string& history, bool with_reports) {
  HistorySnapshot h = read_history(history, with_reports);
  if (!h.warning.empty())
    std::cerr << "tune " << command << ": warning: " << history << ": " << h.warning << std::endl;
  return h;
}

int show_status(const std::string& path, int top) {
  const HistorySnapshot h = read_history_for("status", path, false);
  std::cout << status_text(h, top, read_jobs_file(jobs_file_of(path)),
                           static_cast<double>(std::time(nullptr)))
            << std::flush;
  return 0;
}

int export_history(const std::string& path, const std::string& format, const std::string& output) {
  const HistorySnapshot h = read_history_for("export", path, format != "csv");
  if (format == "optuna" && !output.empty() && output != "-" && std::filesystem::exists(output)) {
    std::cerr << "tune export: error: " << output
              << " exists; an Optuna journal is appended to, not replaced: remove it or give another -o\n";
    return kExitUsage;
  }
  std::ofstream file;
  if (!output.empty() && output != "-") {
    file.open(output);
    if (!file) throw HistoryError(output + ": cannot write the export file");
  }
  std::ostream& out = file.is_open() ? file : std::cout;
  if (format == "csv")
    write_trials_csv(h, out);
  else if (format == "curves")
    write_curves_csv(h, out);
  else if (format == "optuna")
    write_optuna_journal(h, out);
  else
    write_study_json(h, out);
  out.flush();
  if (!out)
    throw HistoryError((output.empty() ? std::string("standard output") : output) +
                       ": the export could not be written");
  return 0;
}

}  // namespace tune
