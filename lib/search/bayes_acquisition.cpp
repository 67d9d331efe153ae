// SPDX-License-Identifier: GPL-2.0-or-later
// BayesSampler's acquisition: the point of the trust region with the
// highest expected improvement, from scored candidates and local searches
// (L-BFGS-B over the continuous parameters, neighbouring values of the
// discrete ones).
#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "search/bayes_model.hpp"
#include "search/draws.hpp"

namespace tune {
namespace {

constexpr int kCandidates = 1000;  // random points scored before local search
constexpr int kStarts = 5;         // local searches from the best of them
constexpr int kNearBest = 5;       // observed trials whose neighbourhoods are sampled too
constexpr int kPerNeighbourhood = 40;

}  // namespace

Eigen::VectorXd BayesSampler::maximise_ei(const Model& model, const std::vector<Point>& data,
                                          std::mt19937_64& rng) const {
  const Eigen::Index d = static_cast<Eigen::Index>(space_.dimensions());
  // Candidates: uniform points, and points near the best trials, where EI
  // tends to peak once the model is confident.
  std::vector<std::size_t> order(data.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return data[a].y < data[b].y; });
  const int near = std::min<int>(kNearBest, static_cast<int>(order.size()));
  const Eigen::Index m = kCandidates + near * kPerNeighbourhood;
  Eigen::MatrixXd U(m, d);
  for (Eigen::Index c = 0; c < kCandidates; ++c)
    for (Eigen::Index j = 0; j < d; ++j) U(c, j) = model.lo(j) + (model.hi(j) - model.lo(j)) * unit_draw(rng);
  for (int b = 0; b < near; ++b)
    for (int k = 0; k < kPerNeighbourhood; ++k) {
      const double radius = k % 2 ? 0.02 : 0.1;
      const Eigen::Index row = kCandidates + b * kPerNeighbourhood + k;
      for (Eigen::Index j = 0; j < d; ++j)
        U(row, j) = std::clamp(data[order[static_cast<std::size_t>(b)]].u(j) + radius * normal_draw(rng),
                               model.lo(j), model.hi(j));
    }
  Eigen::MatrixXd F(m, feature_dims_);
  for (Eigen::Index c = 0; c < m; ++c) F.row(c) = features(U.row(c).transpose()).transpose();
  Eigen::VectorXd mean, var;
  model.gp.predict(F, mean, var);
  std::vector<std::pair<double, Eigen::Index>> scored;
  for (Eigen::Index c = 0; c < m; ++c)
    scored.emplace_back(model.near_running(U.row(c).transpose())
                            ? 0.0
                            : expected_improvement(mean(c), std::sqrt(var(c)), model.best).ei,
                        c);
  const auto starts = std::min<std::size_t>(kStarts, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(starts), scored.end(),
                    [](const auto& a, const auto& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  Eigen::VectorXd best_u = U.row(scored.front().second).transpose();
  double best_ei = scored.front().first;
  for (std::size_t s = 0; s < starts; ++s) {
    Eigen::VectorXd u = U.row(scored[s].second).transpose();
    const double ei = local_search(model, u);
    if (ei > best_ei) {
      best_ei = ei;
      best_u = u;
    }
  }
  return best_u;
}

// Alternates L-BFGS-B over the continuous parameters with a sweep of
// neighbouring values of the discrete ones, until neither improves EI.
double BayesSampler::local_search(const Model& model, Eigen::VectorXd& u) const {
  const auto& ps = space_.parameters();
  std::vector<Eigen::Index> cont;          // indices of interval parameters in u
  std::vector<Eigen::Index> cont_feature;  // ... and of their features
  Eigen::Index at = 0;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].kind == ParamKind::Bound) {
      cont.push_back(static_cast<Eigen::Index>(i));
      cont_feature.push_back(at);
    }
    at += ps[i].kind == ParamKind::Choice ? static_cast<Eigen::Index>(ps[i].choices.size()) : 1;
  }
  double current = model.ei(features(u));
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 30;
  param.epsilon = 1e-6;
  param.max_linesearch = 20;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  for (int round = 0; round < 4; ++round) {
    bool improved = false;
    if (!cont.empty()) {
      const Eigen::Index c = static_cast<Eigen::Index>(cont.size());
      Eigen::VectorXd v(c), lo(c), hi(c);
      for (Eigen::Index k = 0; k < c; ++k) {
        const Eigen::Index j = cont[static_cast<std::size_t>(k)];
        lo(k) = model.lo(j), hi(k) = model.hi(j);
        v(k) = std::clamp(u(j), lo(k), hi(k));
      }
      Eigen::VectorXd trial_u = u;
      // Maximise EI = minimise -EI; gradients by the chain rule through the GP.
      auto objective = [&](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
        for (Eigen::Index k = 0; k < c; ++k) trial_u(cont[static_cast<std::size_t>(k)]) = x(k);
        const auto p = model.gp.predict(features(trial_u), true);
        const double sd = std::sqrt(p.var);
        const auto imp = expected_improvement(p.mean, sd, model.best);
        g.resize(c);
        for (Eigen::Index k = 0; k < c; ++k) {
          const Eigen::Index f = cont_feature[static_cast<std::size_t>(k)];
          const double d_sd = sd > 1e-12 ? p.d_var(f) / (2 * sd) : 0.0;
          g(k) = -(imp.d_mean * p.d_mean(f) + imp.d_sd * d_sd);
        }
        return -imp.ei;
      };
      double value = -current;
      try {
        solver.minimize(objective, v, value, lo, hi);
      } catch (const std::exception&) {
        Eigen::VectorXd g;
        value = objective(v, g);  // the line search gave up; v is still a valid point
      }
      Eigen::VectorXd moved = u;
      for (Eigen::Index k = 0; k < c; ++k) moved(cont[static_cast<std::size_t>(k)]) = v(k);
      if (-value > current * (1 + 1e-9) && !model.near_running(moved)) {
        u = moved;
        current = -value;
        improved = true;
      }
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const auto& p = ps[i];
      if (p.kind == ParamKind::Bound) continue;
      const Eigen::Index j = static_cast<Eigen::Index>(i);
      // Neighbouring values: every other choice; integers and listed numbers
      // 1, 2, 4, ... values away.
      std::vector<ParamValue> tries;
      const ParamValue now = p.decode(u(j));
      if (p.kind == ParamKind::Int) {
        const auto v = std::get<std::int64_t>(now);
        for (std::int64_t step = 1; step <= static_cast<std::int64_t>(p.high - p.low); step *= 2)
          for (std::int64_t w : {v - step, v + step})
            if (w >= p.low && w <= p.high) tries.emplace_back(w);
      } else {
        const std::size_t levels = p.cardinality();
        std::size_t at_level = 0;
        for (std::size_t l = 0; l < levels; ++l)
          if ((p.kind == ParamKind::Number ? ParamValue{p.numbers[l]} : ParamValue{p.choices[l]}) == now)
            at_level = l;
        for (std::size_t l = 0; l < levels; ++l) {
          const std::size_t dist = l > at_level ? l - at_level : at_level - l;
          if (p.kind == ParamKind::Choice || (dist & (dist - 1)) == 0)
            tries.push_back(p.kind == ParamKind::Number ? ParamValue{p.numbers[l]}
                                                        : ParamValue{p.choices[l]});
        }
      }
      for (const auto& value : tries) {
        if (value == now) continue;
        Eigen::VectorXd cand = u;
        cand(j) = p.encode(value);
        const double ei = model.ei(features(cand));
        if (ei > current * (1 + 1e-9) && !model.near_running(cand)) {
          current = ei;
          u = cand;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return current;
}

}  // namespace tune
