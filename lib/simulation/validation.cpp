// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "simulation/summary.hpp"

namespace tune::sim {

namespace {
double relative_error(double simulated, double recorded) {
  if (recorded == 0) return simulated == 0 ? 0 : 1;
  return std::abs(simulated - recorded) / recorded;
}
}  // namespace

Agreement compare_with_history(const Workload& w, const SimResult& r, double tie) {
  struct Pair {
    double recorded, simulated;
  };
  std::vector<Pair> starts;
  std::vector<double> errors;
  Agreement a;
  double first_submit = -1, end_rec = 0, end_sim = 0, wait_rec = 0, wait_sim = 0;
  for (std::size_t i = 0; i < w.jobs.size() && i < r.jobs.size(); ++i) {
    const SimJob& j = w.jobs[i];
    if (j.recorded_start < 0 || r.jobs[i].start < 0) continue;
    ++a.jobs;
    if (first_submit < 0 || j.submit < first_submit) first_submit = j.submit;
    wait_rec += std::max(0.0, j.recorded_start - j.submit);
    wait_sim += r.jobs[i].start - j.submit;
    end_rec = std::max(end_rec, j.recorded_start + j.runtime);
    end_sim = std::max(end_sim, r.jobs[i].end);
    starts.push_back({j.recorded_start, r.jobs[i].start});
    errors.push_back(std::abs(r.jobs[i].start - j.recorded_start));
  }
  if (a.jobs == 0)
    throw std::invalid_argument("no job of " + w.source +
                                " has a recorded start to compare with (sacct output and SWF have one; "
                                "arrivals must not be compressed)");
  a.wait_recorded = wait_rec / a.jobs;
  a.wait_simulated = wait_sim / a.jobs;
  a.wait_error = relative_error(a.wait_simulated, a.wait_recorded);
  a.makespan_recorded = end_rec - first_submit;
  a.makespan_simulated = end_sim - first_submit;
  a.makespan_error = relative_error(a.makespan_simulated, a.makespan_recorded);
  const Stats e = stats_of(errors);
  a.start_error_median = e.median, a.start_error_p95 = e.p95;
  // Pairwise order: every pair up to 3,000 jobs, else 10 million random pairs.
  long long same = 0, total = 0;
  auto count = [&](const Pair& x, const Pair& y) {
    if (std::abs(x.recorded - y.recorded) <= tie) return;
    ++total;
    if ((x.recorded < y.recorded) == (x.simulated < y.simulated) && x.simulated != y.simulated) ++same;
  };
  const std::size_t n = starts.size();
  if (n <= 3000) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = i + 1; k < n; ++k) count(starts[i], starts[k]);
  } else {
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    for (int s = 0; s < 10000000; ++s) {
      const std::size_t i = pick(rng), k = pick(rng);
      if (i != k) count(starts[i], starts[k]);
    }
  }
  a.pairs = total;
  a.order_agreement = total > 0 ? static_cast<double>(same) / total : 1;
  return a;
}

std::string format_agreements(const std::vector<std::pair<std::string, Agreement>>& rows) {
  std::string out;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%-24s %6s %9s %9s %6s %9s %9s %6s %7s %9s %9s\n", "POLICY", "JOBS",
                "WAIT-REC", "WAIT-SIM", "ERR", "SPAN-REC", "SPAN-SIM", "ERR", "ORDER", "DSTART-50",
                "DSTART-95");
  out += buf;
  for (const auto& [label, a] : rows) {
    std::snprintf(buf, sizeof buf,
                  "%-24s %6d %8.1fs %8.1fs %5.1f%% %8.0fs %8.0fs %5.1f%% %6.1f%% %8.0fs %8.0fs\n",
                  label.c_str(), a.jobs, a.wait_recorded, a.wait_simulated, 100 * a.wait_error,
                  a.makespan_recorded, a.makespan_simulated, 100 * a.makespan_error, 100 * a.order_agreement,
                  a.start_error_median, a.start_error_p95);
    out += buf;
  }
  return out;
}

}  // namespace tune::sim
