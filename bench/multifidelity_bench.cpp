// SPDX-License-Identifier: GPL-2.0-or-later
// Multi-fidelity search at equal epochs: tune's Hyperband and BOHB beside
// its ASHA and plain random search, on problems whose budget is epochs
// (mf_problems.hpp: recorded real training and multi-fidelity test
// functions). Each study is the AppCore's own Study class, with its HDF5
// history, its sampler and its pruner, fed one report per epoch.
//
// The clock every arm runs on (bench/multifidelity_compare.py runs Optuna on
// the same one): K runners train side by side, each one epoch per tick in
// runner order; a runner without a trial asks for one, a trial reports its
// value after each epoch and ends when the pruner stops it or at max_step,
// its result the value there. Every arm spends the same total epochs,
// budget x max_step; the figure is the regret of the best result any trial
// reached by then (by 1/4 and 1/2 of it too).
//
//   multifidelity_bench run [--seeds A-B] [--arms LIST] [--workers K]
//                           [--budget N] [TABLE.json...]
//       one JSON line per study: problem, arm, seed, regret at each quarter
//       mark, trials, seconds
//   multifidelity_bench problems [--workers K] [--budget N] [TABLE.json...]
//       one JSON line per problem: name, space, max_step, minimize, epochs,
//       brackets, workers
//   multifidelity_bench serve [TABLE.json...]
//       {"problem", "trial", "params": {name: value}, "step"} per line in,
//       {"value", "regret"} out
// The arms: random (every trial its whole max_step), asha (random with
// --prune asha), hyperband (random with --prune hyperband), bohb (--algo
// bohb with --prune hyperband), tpe-hyperband (--algo tpe with --prune
// hyperband). Rungs at 1, 3, 9, ... (--min-resource 1 --reduction-factor
// 3); Hyperband's brackets as many as fit below max_step, as Optuna's
// HyperbandPruner counts them.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_io.hpp"
#include "history/history.hpp"
#include "mf_problems.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "study/study.hpp"

using namespace tune;
namespace fs = std::filesystem;

namespace {

constexpr double kEta = 3;

struct Options {
  std::uint64_t seed_from = 0, seed_to = 9;
  std::vector<std::string> arms = {"random", "asha", "hyperband", "bohb", "tpe-hyperband"};
  int workers = 4;
  int budget = 30;  // in whole trials: budget x max_step epochs
  std::vector<std::string> tables;
};

std::vector<bench::MfProblem> problems_of(const Options& o) {
  std::vector<bench::MfProblem> out;
  for (const auto& path : o.tables) out.push_back(bench::table_problem(bench::read_workload_table(path)));
  for (auto& p : bench::function_problems()) out.push_back(std::move(p));
  return out;
}

// Brackets whose first rung is at or below max_step: floor(log_eta(max)) + 1.
int brackets_of(const bench::MfProblem& p) {
  return static_cast<int>(std::floor(std::log(p.max_step) / std::log(kEta) + 1e-9)) + 1;
}

std::vector<double> values(const Assignment& a) {
  std::vector<double> x;
  for (const auto& v : a) x.push_back(std::get<double>(v));
  return x;
}

struct Outcome {
  std::map<int, double> regret;  // at each quarter mark: 1, 2, 4 (of 4)
  std::uint64_t trials = 0;
};

Outcome run_study(const bench::MfProblem& p, const std::string& arm, std::uint64_t seed, const Options& o,
                  const fs::path& dir) {
  StudyInfo info;
  info.name = "s";
  info.space = SearchSpace::parse(p.space_json);
  info.sampler = arm == "bohb" ? "bohb" : arm == "tpe-hyperband" ? "tpe" : "random";
  info.seed = seed;
  info.minimize = p.minimize;
  const std::string rule = arm == "asha" ? "asha" : arm == "random" ? "none" : "hyperband";
  if (arm != "random" && arm != "asha" && arm != "hyperband" && arm != "bohb" && arm != "tpe-hyperband")
    throw std::invalid_argument("unknown arm " + arm + ": random, asha, hyperband, bohb or tpe-hyperband");
  info.pruner.rule = rule;
  info.pruner.metric = "value";
  info.pruner.minimize = p.minimize;
  if (rule != "none") {
    std::map<std::string, double> s = {{"min_resource", 1}, {"reduction_factor", kEta}};
    if (rule == "hyperband") s["brackets"] = brackets_of(p);
    info.pruner.settings = Settings(s);
  }
  const fs::path path = dir / "h.h5";
  fs::remove(path);
  auto history = History::create(path.string(), info);
  auto sampler = make_sampler(info.sampler, info.space, {.seed = seed, .minimize = p.minimize});
  Study study(history, *sampler, {}, 0);

  struct Slot {
    std::optional<Trial> trial;
    int step = 0;
  };
  std::vector<Slot> slots(static_cast<std::size_t>(o.workers));
  const long epochs = static_cast<long>(o.budget) * p.max_step;
  long spent = 0;
  double best = std::numeric_limits<double>::infinity(), now = 0;
  Outcome out;
  while (spent < epochs) {
    bool busy = false;
    for (std::size_t i = 0; i < slots.size() && spent < epochs; ++i) {
      Slot& s = slots[i];
      const int rank = static_cast<int>(i) + 1;
      if (!s.trial) {
        s.trial = study.next_trial(rank, "n", now);
        s.step = 0;
        if (!s.trial) continue;
        ++out.trials;
      }
      busy = true;
      const double v = p.value(values(s.trial->params), s.trial->id, ++s.step);
      ++spent;
      Report r;
      r.step = s.step;
      r.metrics = {{"value", v}};
      const bool pruned = study.on_report(s.trial->id, r, now);
      if (pruned || s.step == p.max_step) {
        TrialRun run;
        run.trial = s.trial->id;
        run.exited = true;
        run.exit_code = 0;
        run.pruned = pruned;
        if (!pruned) run.objective = v;
        run.start_time = now;
        run.end_time = now + 1;
        run.last_step = s.step;
        study.on_result(run, rank, "n");
        if (!pruned) best = std::min(best, p.regret(v));
        s.trial.reset();
      }
      for (int q : {1, 2, 4})
        if (spent == epochs * q / 4) out.regret[q] = best;
    }
    if (!busy) break;
    now += 1;
  }
  history.close();
  return out;
}

int run(const Options& o) {
  const fs::path dir = fs::temp_directory_path() / ("multifidelity_bench." + std::to_string(getpid()));
  fs::create_directories(dir);
  int status = 0;
  try {
    for (const auto& p : problems_of(o))
      for (const auto& arm : o.arms)
        for (std::uint64_t seed = o.seed_from; seed <= o.seed_to; ++seed) {
          const auto start = std::chrono::steady_clock::now();
          const Outcome r = run_study(p, arm, seed, o, dir);
          nlohmann::json regret = nlohmann::json::object();
          for (const auto& [q, v] : r.regret)
            regret[std::to_string(q)] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
          const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::printf("%s\n", nlohmann::json{{"problem", p.name},
                                             {"arm", arm},
                                             {"seed", seed},
                                             {"regret", regret},
                                             {"trials", r.trials},
                                             {"seconds", secs}}
                                  .dump()
                                  .c_str());
          std::fflush(stdout);
        }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "multifidelity_bench: %s\n", e.what());
    status = 1;
  }
  fs::remove_all(dir);
  return status;
}

int list(const Options& o) {
  for (const auto& p : problems_of(o))
    std::printf("%s\n", nlohmann::json{{"problem", p.name},
                                       {"space", nlohmann::json::parse(p.space_json)},
                                       {"max_step", p.max_step},
                                       {"minimize", p.minimize},
                                       {"epochs", o.budget * p.max_step},
                                       {"brackets", brackets_of(p)},
                                       {"workers", o.workers}}
                            .dump()
                            .c_str());
  return 0;
}

int serve(const Options& o) {
  std::map<std::string, bench::MfProblem> known;
  for (auto& p : problems_of(o)) known.emplace(p.name, std::move(p));
  return bench::serve_lines([&](const nlohmann::json& req) {
    const bench::MfProblem& p = known.at(req.at("problem").get<std::string>());
    const SearchSpace space = SearchSpace::parse(p.space_json);
    std::vector<double> x;
    for (const auto& par : space.parameters()) x.push_back(req.at("params").at(par.name).get<double>());
    const int step = req.at("step").get<int>();
    if (step < 1 || step > p.max_step)
      throw std::invalid_argument("step out of 1.." + std::to_string(p.max_step));
    const double v = p.value(x, req.at("trial").get<std::uint64_t>(), step);
    return nlohmann::json{{"value", v}, {"regret", p.regret(v)}};
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::string mode;
  try {
    if (argc < 2) throw std::invalid_argument("give a mode: run, problems or serve");
    mode = argv[1];
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--seeds")
        std::tie(o.seed_from, o.seed_to) = bench::seed_range(value());
      else if (a == "--arms")
        o.arms = bench::split(value());
      else if (a == "--workers")
        o.workers = std::stoi(value());
      else if (a == "--budget")
        o.budget = std::stoi(value());
      else if (a.starts_with("--"))
        throw std::invalid_argument("unknown option " + a);
      else
        o.tables.push_back(a);
    }
    if (o.workers < 1 || o.budget < 1 || o.seed_to < o.seed_from)
      throw std::invalid_argument("--workers and --budget of 1 or more, --seeds A-B with A <= B");
    if (mode == "run") return run(o);
    if (mode == "problems") return list(o);
    if (mode == "serve") return serve(o);
    throw std::invalid_argument("unknown mode " + mode + ": run, problems or serve");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "multifidelity_bench: %s\nusage: %s run|problems|serve [--seeds A-B] [--arms LIST] "
                 "[--workers K] [--budget N] [TABLE.json...]\n",
                 e.what(), argv[0]);
    return 2;
  }
}
