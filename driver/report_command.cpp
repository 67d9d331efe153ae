// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "history/history.hpp"
#include "report/study_report.hpp"
#include "status_command.hpp"

namespace tune {
namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw HistoryError(path + ": cannot write it (check the directory exists and is writable)");
}

}  // namespace

int write_report(const std::string& history, const std::string& html, const std::string& svg_dir) {
  const HistorySnapshot h = read_history_for("report", history, true);
  const StudyModel model = fit_study_model(h);
  std::cout << report_summary(h, model);
  if (html != "-") {
    std::string path = html;
    if (path.empty()) {
      std::filesystem::path p(history);
      path = (p.parent_path() / (p.stem().string() + "-report.html")).string();
    }
    write_file(path, report_html(h, model));
    std::cout << "report: " << path << "\n";
  }
  if (!svg_dir.empty()) {
    std::filesystem::create_directories(svg_dir);
    for (const auto& c : study_charts(h)) {
      const std::string path = (std::filesystem::path(svg_dir) / (c.name + ".svg")).string();
      write_file(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(c.chart));
    }
    for (const auto& [name, svg] : model_svgs(h, model))
      write_file((std::filesystem::path(svg_dir) / (name + ".svg")).string(),
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg);
    std::cout << "charts: " << svg_dir << "/*.svg\n";
  }
  return 0;
}

}  // namespace tune
