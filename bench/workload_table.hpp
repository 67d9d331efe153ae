// SPDX-License-Identifier: GPL-2.0-or-later
// A recorded training table of data/workloads (MLPs trained with SGD at every
// point of an lr x momentum grid, a few seeds each, the held-out accuracy
// after every epoch), served to a trial as bench/programs/table_curve.py
// serves it: the grid point nearest to the trial's lr (in log10) and
// momentum, and of that point's runs the one the trial's id picks (CRC-32 of
// the id in decimal), so that reruns differ as training runs do. The
// benchmarks that replay studies on the tables (stopping_bench,
// multifidelity_bench) read them through this.
#pragma once

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace bench {

struct WorkloadPoint {
  double lr = 0, momentum = 0;
  std::vector<std::vector<double>> runs;  // each seed's accuracy after epoch 1, 2, ...
};

struct WorkloadTable {
  std::string name;
  std::vector<WorkloadPoint> points;
  std::size_t epochs = 0;
  double best = 0;   // the best final accuracy of any run
  double noise = 0;  // the seeds' spread at the best quarter of the points (see below)

  // The run a trial is served.
  const std::vector<double>& run(double lr, double momentum, std::uint64_t trial) const {
    const WorkloadPoint* nearest = nullptr;
    double d_best = 0;
    for (const WorkloadPoint& p : points) {
      const double a = std::log10(p.lr) - std::log10(lr), b = (p.momentum - momentum) / 0.3;
      if (!nearest || a * a + b * b < d_best) nearest = &p, d_best = a * a + b * b;
    }
    const std::string id = std::to_string(trial);
    const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(id.data()), static_cast<uInt>(id.size()));
    return nearest->runs[crc % nearest->runs.size()];
  }
};

// The space the tables are searched in (data/workloads/space.json).
inline const char* workload_space_json() {
  return R"({"parameters": [
    {"name": "lr", "type": "bound", "value": [1e-4, 0.5], "log": true},
    {"name": "momentum", "type": "bound", "value": [0, 0.99]}]})";
}

// Throws std::runtime_error naming the file and what is wrong with it.
inline WorkloadTable read_workload_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read it (make it with data/workloads/make_tables.py)");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    WorkloadTable t;
    t.name = j.at("name").get<std::string>();
    for (const auto& p : j.at("points")) {
      WorkloadPoint q{p.at("lr").get<double>(), p.at("momentum").get<double>(), {}};
      for (const auto& r : p.at("runs")) {
        q.runs.push_back(r.at("accuracy").get<std::vector<double>>());
        if (q.runs.back().empty()) throw std::runtime_error("a run without epochs");
        if (t.epochs == 0) t.epochs = q.runs.back().size();
        if (q.runs.back().size() != t.epochs) throw std::runtime_error("runs of different lengths");
        t.best = std::max(t.best, q.runs.back().back());
      }
      if (q.runs.empty()) throw std::runtime_error("a point without runs");
      t.points.push_back(std::move(q));
    }
    if (t.points.empty()) throw std::runtime_error("no points");
    // The noise: how much rerunning one good configuration moves its final
    // accuracy, the median over the quarter of the points with the best mean
    // of the standard deviation across their seeds.
    std::vector<std::pair<double, double>> mean_sd;
    for (const WorkloadPoint& p : t.points) {
      const double n = static_cast<double>(p.runs.size());
      double m = 0, v = 0;
      for (const auto& r : p.runs) m += r.back();
      m /= n;
      for (const auto& r : p.runs) v += (r.back() - m) * (r.back() - m);
      mean_sd.emplace_back(m, n > 1 ? std::sqrt(v / (n - 1)) : 0);
    }
    std::sort(mean_sd.rbegin(), mean_sd.rend());
    std::vector<double> sds;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, mean_sd.size() / 4); ++i)
      sds.push_back(mean_sd[i].second);
    std::sort(sds.begin(), sds.end());
    t.noise = sds[sds.size() / 2];
    return t;
  } catch (const std::exception& e) {
    throw std::runtime_error(path + ": not a table of data/workloads: " + e.what());
  }
}

}  // namespace bench
