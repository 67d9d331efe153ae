// SPDX-License-Identifier: GPL-2.0-or-later
// What tune run --converged saves and gives up, on recorded real training
// (data/workloads: MLPs trained with SGD at every point of an lr x momentum
// grid, 3 seeds each). Each study is the AppCore's own Study class (the one
// the driver runs, with its HDF5 history) searching the table as
// bench/programs/table_curve.py serves it: the nearest grid point, the seed
// picked by the trial's id. Each is run twice from the same seed, once to its
// whole budget (the baseline) and once with --converged: the same trials in
// the same order up to the stop, so the two are paired trial for trial.
//
// A table's noise is how much rerunning one configuration moves its final
// accuracy: the median, over the quarter of grid points with the best mean,
// of the standard deviation across their seeds. A study has plateaued when
// the second half of its budget improves its best by no more than that noise.
// Per table and search, it prints the share of the budget the stop saves on
// plateaued studies beside the oracle's (stopping at the trial that found
// the final best: the most any rule can save without giving anything up),
// and the share of all studies whose stop gives up more than the noise.
//   bench/stopping_bench [--budget N] [--seeds A-B] [--algos random,tpe]
//                        [--margins noise,0.01] [--chance P] TABLE.json...
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_io.hpp"
#include "history/history.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/study.hpp"
#include "workload_table.hpp"

using namespace tune;
namespace fs = std::filesystem;

namespace {

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::parse(bench::workload_space_json());
  return s;
}

// One study: every result in order, up to where it stopped.
std::vector<double> run_study(const bench::WorkloadTable& t, const std::string& algo, std::uint64_t seed,
                              std::uint64_t budget, std::optional<ConvergenceRule> rule,
                              const fs::path& dir) {
  StudyInfo info;
  info.name = "s";
  info.space = space();
  info.sampler = algo;
  info.seed = seed;
  info.minimize = false;
  info.trials = budget;
  const fs::path path = dir / "h.h5";
  fs::remove(path);
  auto history = History::create(path.string(), info);
  auto sampler = make_sampler(algo, info.space, {.seed = seed, .minimize = false});
  Study study(history, *sampler, {.trials = budget, .converged = rule}, 0);
  std::vector<double> results;
  double now = 0;
  while (const auto trial = study.next_trial(1, "n", now)) {
    const double acc =
        t.run(std::get<double>(trial->params[0]), std::get<double>(trial->params[1]), trial->id).back();
    TrialRun r;
    r.trial = trial->id;
    r.exited = true;
    r.exit_code = 0;
    r.objective = acc;
    r.start_time = now;
    r.end_time = now += 1;
    study.on_result(r, 1, "n");
    results.push_back(acc);
  }
  history.close();
  return results;
}

double best_of(const std::vector<double>& v, std::size_t n) {
  return *std::max_element(v.begin(), v.begin() + static_cast<long>(std::min(n, v.size())));
}

struct Row {
  int studies = 0, plateaued = 0, stopped = 0, gave_up = 0;
  double saved = 0, oracle = 0;  // summed shares of the budget, plateaued studies
  double saved_all = 0;          // summed shares, all studies
  double given_up_max = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t budget = 60, seed_from = 0, seed_to = 29;
  std::vector<std::string> algos = {"random", "tpe"}, margins = {"noise", "0.01"}, tables;
  double chance = 0.05;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--budget")
        budget = std::stoull(value());
      else if (a == "--seeds")
        std::tie(seed_from, seed_to) = bench::seed_range(value());
      else if (a == "--algos")
        algos = bench::split(value());
      else if (a == "--margins")
        margins = bench::split(value());
      else if (a == "--chance")
        chance = std::stod(value());
      else if (a.starts_with("--"))
        throw std::invalid_argument("unknown option " + a);
      else
        tables.push_back(a);
    }
    if (tables.empty() || budget < 10 || seed_to < seed_from)
      throw std::invalid_argument(
          "give TABLE.json files, --budget of 10 or more and --seeds A-B with A <= B");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "stopping_bench: %s\nusage: %s [--budget N] [--seeds A-B] [--algos LIST] [--margins LIST] "
                 "[--chance P] TABLE.json...\n",
                 e.what(), argv[0]);
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("stopping_bench." + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf(
      "budget %llu trials, seeds %llu-%llu, --converged-chance %g; saved: share of the budget on "
      "plateaued studies (oracle: stopping at the final best's trial)\n\n",
      static_cast<unsigned long long>(budget), static_cast<unsigned long long>(seed_from),
      static_cast<unsigned long long>(seed_to), chance);
  std::printf("%-14s %-7s %-8s %-7s %9s %8s %8s %8s %13s %12s\n", "table", "search", "noise", "margin",
              "plateaued", "saved", "oracle", "all", "gave up>noise", "max gave up");
  int status = 0;
  std::vector<Row> pooled(margins.size());
  const auto print = [](const std::string& table, const std::string& algo, const std::string& noise,
                        const std::string& margin, const Row& row) {
    const double p = std::max(1, row.plateaued);
    std::printf("%-14s %-7s %-8s %-7s %5d/%-3d %7.0f%% %7.0f%% %7.0f%% %6d (%3.0f%%) %12.4f\n", table.c_str(),
                algo.c_str(), noise.c_str(), margin.c_str(), row.plateaued, row.studies, 100 * row.saved / p,
                100 * row.oracle / p, 100 * row.saved_all / std::max(1, row.studies), row.gave_up,
                100.0 * row.gave_up / std::max(1, row.studies), row.given_up_max);
    std::fflush(stdout);
  };
  const auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", v);
    return std::string(b);
  };
  try {
    for (const std::string& path : tables) {
      const bench::WorkloadTable t = bench::read_workload_table(path);
      for (const std::string& algo : algos)
        for (std::size_t mi = 0; mi < margins.size(); ++mi) {
          const std::string& m = margins[mi];
          const double margin = m == "noise" ? t.noise : std::stod(m);
          Row row;
          for (std::uint64_t seed = seed_from; seed <= seed_to; ++seed) {
            const auto full = run_study(t, algo, seed, budget, std::nullopt, dir);
            const auto ended = run_study(t, algo, seed, budget, ConvergenceRule{margin, chance}, dir);
            if (full.size() != budget || ended.size() > full.size() ||
                !std::equal(ended.begin(), ended.end(), full.begin()))
              throw std::runtime_error("the two runs of seed " + std::to_string(seed) + " are not paired");
            const double final_best = best_of(full, full.size());
            const bool plateaued = final_best - best_of(full, budget / 2) <= t.noise;
            const double given_up = final_best - best_of(ended, ended.size());
            const double saved = 1 - static_cast<double>(ended.size()) / static_cast<double>(budget);
            const auto first_best = std::find(full.begin(), full.end(), final_best) - full.begin() + 1;
            ++row.studies;
            row.stopped += ended.size() < budget;
            row.saved_all += saved;
            row.gave_up += given_up > t.noise;
            row.given_up_max = std::max(row.given_up_max, given_up);
            if (plateaued) {
              ++row.plateaued;
              row.saved += saved;
              row.oracle += 1 - static_cast<double>(first_best) / static_cast<double>(budget);
            }
          }
          print(t.name, algo, num(t.noise), num(margin), row);
          Row& all = pooled[mi];
          all.studies += row.studies, all.plateaued += row.plateaued, all.stopped += row.stopped;
          all.gave_up += row.gave_up, all.saved += row.saved, all.oracle += row.oracle;
          all.saved_all += row.saved_all, all.given_up_max = std::max(all.given_up_max, row.given_up_max);
        }
    }
    for (std::size_t mi = 0; mi < margins.size(); ++mi) print("all", "all", "", margins[mi], pooled[mi]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stopping_bench: %s\n", e.what());
    status = 1;
  }
  fs::remove_all(dir);
  return status;
}
