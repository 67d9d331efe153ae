// SPDX-License-Identifier: GPL-2.0-or-later
// Several objectives: tune's samplers on the standard test problems (ZDT1-3
// with 2 objectives, DTLZ2 with 3), scored by the hypervolume of the front
// found. The reference point is 1.1 times each objective's worst value over
// the box (ZDT1/2: 1.1, 11; ZDT3: 1.1, 11.85; DTLZ2: 2.475 each), so every
// trial counts from the first; `front` gives the true front's hypervolume
// under the same point.
//
//   mo_bench compare [--trials 150] [--checkpoints 50,150] [--seeds 10]
//                    [--samplers random,tpe,bayes] [--problems zdt1,zdt2,zdt3,dtlz2]
//       one JSON line per study: {"problem", "sampler", "seed", "hv": {"50": ..}}
//   mo_bench problems [--problems ...]   the problems' spaces, one JSON line each
//   mo_bench serve                       evaluates them for bench/mo_compare.py
//   mo_bench front PROBLEM               the hypervolume of 1000 points of the true front
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "bench_io.hpp"
#include "search/pareto.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"

using namespace tune;

namespace {

struct MoProblem {
  std::string name;
  int dims, objectives;
  std::vector<double> reference;
  std::function<std::vector<double>(const std::vector<double>&)> f;
  std::string space() const {
    nlohmann::json ps = nlohmann::json::array();
    for (int i = 0; i < dims; ++i)
      ps.push_back({{"name", "x" + std::to_string(i + 1)}, {"type", "bound"}, {"value", {0.0, 1.0}}});
    return nlohmann::json{{"parameters", ps}}.dump();
  }
};

// Zitzler, Deb and Thiele (2000); 6 variables here (30 in the paper) so that
// 150 trials can get somewhere.
double zdt_g(const std::vector<double>& x) {
  double s = 0;
  for (std::size_t i = 1; i < x.size(); ++i) s += x[i];
  return 1 + 9 * s / static_cast<double>(x.size() - 1);
}

std::vector<MoProblem> all_problems() {
  std::vector<MoProblem> out;
  out.push_back({"zdt1", 6, 2, {1.1, 11}, [](const std::vector<double>& x) {
                   const double g = zdt_g(x);
                   return std::vector<double>{x[0], g * (1 - std::sqrt(x[0] / g))};
                 }});
  out.push_back({"zdt2", 6, 2, {1.1, 11}, [](const std::vector<double>& x) {
                   const double g = zdt_g(x);
                   return std::vector<double>{x[0], g * (1 - std::pow(x[0] / g, 2))};
                 }});
  out.push_back({"zdt3", 6, 2, {1.1, 11.85}, [](const std::vector<double>& x) {
                   const double g = zdt_g(x), r = x[0] / g;
                   // Shifted by 0.7733 so the disconnected front lies within 0..1 like the others.
                   return std::vector<double>{
                       x[0], g * (1 - std::sqrt(r) - r * std::sin(10 * std::numbers::pi * x[0])) + 0.7733};
                 }});
  // Deb, Thiele, Laumanns and Zitzler (2002): 3 objectives, k = 5 (7 variables); the front is the unit
  // sphere's octant.
  out.push_back({"dtlz2", 7, 3, {2.475, 2.475, 2.475}, [](const std::vector<double>& x) {
                   double g = 0;
                   for (std::size_t i = 2; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
                   const double a = x[0] * std::numbers::pi / 2, b = x[1] * std::numbers::pi / 2;
                   return std::vector<double>{(1 + g) * std::cos(a) * std::cos(b),
                                              (1 + g) * std::cos(a) * std::sin(b), (1 + g) * std::sin(a)};
                 }});
  return out;
}

double reference_hv(const std::vector<std::vector<double>>& values, const MoProblem& p) {
  return hypervolume(values, p.reference);
}

int compare(int argc, char** argv) {
  int trials = 150, seeds = 10;
  std::vector<int> checkpoints;
  std::vector<std::string> samplers = {"random", "tpe", "bayes"}, names = {"zdt1", "zdt2", "zdt3", "dtlz2"};
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--trials")
      trials = std::stoi(v);
    else if (a == "--seeds")
      seeds = std::stoi(v);
    else if (a == "--checkpoints")
      for (const auto& c : bench::split(v)) checkpoints.push_back(std::stoi(c));
    else if (a == "--samplers")
      samplers = bench::split(v);
    else if (a == "--problems")
      names = bench::split(v);
    else
      throw std::invalid_argument("unknown option " + a);
  }
  if (checkpoints.empty()) checkpoints = {trials};
  for (const auto& p : all_problems()) {
    if (std::find(names.begin(), names.end(), p.name) == names.end()) continue;
    const SearchSpace space = SearchSpace::parse(p.space());
    for (const auto& s : samplers)
      for (int seed = 0; seed < seeds; ++seed) {
        const auto t0 = std::chrono::steady_clock::now();
        auto sampler = make_sampler(
            s, space,
            {.seed = static_cast<std::uint64_t>(seed),
             .minimize = true,
             .objectives_minimize = std::vector<bool>(static_cast<std::size_t>(p.objectives), true)});
        std::vector<std::vector<double>> seen;
        nlohmann::json hv = nlohmann::json::object();
        for (int t = 0; t < trials; ++t) {
          const auto a = sampler->propose(static_cast<std::uint64_t>(t), {});
          std::vector<double> x;
          for (const auto& v : *a) x.push_back(std::get<double>(v));
          const auto y = p.f(x);
          seen.push_back(y);
          sampler->observe({static_cast<std::uint64_t>(t), *a, y[0], false, y});
          if (std::find(checkpoints.begin(), checkpoints.end(), t + 1) != checkpoints.end())
            hv[std::to_string(t + 1)] = reference_hv(seen, p);
        }
        std::printf(
            "%s\n",
            nlohmann::json{
                {"problem", p.name},
                {"sampler", "tune-" + s},
                {"seed", seed},
                {"hv", hv},
                {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}}
                .dump()
                .c_str());
        std::fflush(stdout);
      }
  }
  return 0;
}

int serve() {
  std::map<std::string, MoProblem> known;
  for (auto& p : all_problems()) known.emplace(p.name, p);
  return bench::serve_lines([&](const nlohmann::json& req) {
    const auto& p = known.at(req.at("problem").get<std::string>());
    std::vector<double> x;
    for (int i = 0; i < p.dims; ++i)
      x.push_back(req.at("params").at("x" + std::to_string(i + 1)).get<double>());
    nlohmann::json answer = {{"values", p.f(x)}};
    if (req.contains("front")) {
      std::vector<std::vector<double>> pts;
      for (const auto& v : req["front"]) pts.push_back(v.get<std::vector<double>>());
      answer["hv"] = reference_hv(pts, p);
    }
    return answer;
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "compare") return compare(argc, argv);
    if (mode == "serve") return serve();
    if (mode == "problems") {
      for (const auto& p : all_problems())
        std::printf("%s\n", nlohmann::json{{"problem", p.name},
                                           {"objectives", p.objectives},
                                           {"space", nlohmann::json::parse(p.space())}}
                                .dump()
                                .c_str());
      return 0;
    }
    if (mode == "front" && argc > 2) {
      // The best hypervolume there is: 2000 points spread over the true front.
      for (const auto& p : all_problems()) {
        if (p.name != argv[2]) continue;
        std::vector<std::vector<double>> pts;
        const int n = p.objectives == 2 ? 2000 : 60;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < (p.objectives == 2 ? 1 : n); ++j) {
            std::vector<double> x(static_cast<std::size_t>(p.dims), p.name == "dtlz2" ? 0.5 : 0.0);
            x[0] = static_cast<double>(i) / (n - 1);
            if (p.objectives == 3) x[1] = static_cast<double>(j) / (n - 1);
            pts.push_back(p.f(x));
          }
        std::printf("%s %.6f\n", p.name.c_str(), reference_hv(pts, p));
        return 0;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mo_bench %s: %s\n", mode.c_str(), e.what());
    return 2;
  }
  std::fprintf(stderr,
               "usage: mo_bench compare|problems|serve|front PROBLEM (see the top of bench/mo_bench.cpp)\n");
  return 2;
}
