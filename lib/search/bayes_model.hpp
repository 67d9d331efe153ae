// SPDX-License-Identifier: GPL-2.0-or-later
// BayesSampler's model of one proposal (bayes_sampler.cpp fits it,
// bayes_acquisition.cpp maximises expected improvement over it): the GP, the
// best value, the running trials to keep away from, the trust region.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "search/bayes_sampler.hpp"
#include "search/gaussian_process.hpp"

namespace tune {

// Running trials keep this far apart (Euclidean, in the unit cube): once the
// model has converged, EI peaks within a hair of a running trial however much
// the believed value lowers it there, and 8 runners would test one point.
constexpr double kSeparation = 2e-3;

struct BayesSampler::Model {
  GaussianProcess gp;
  double best;                           // smallest observed y (imputed points excluded)
  std::vector<Eigen::VectorXd> running;  // unit-cube points of the pending trials
  // The trust region: where proposals may go (unit cube; the interval
  // parameters' coordinates are limited, the discrete ones are free).
  Eigen::VectorXd lo, hi;

  bool near_running(const Eigen::VectorXd& u) const {
    for (const auto& r : running)
      if ((u - r).norm() < kSeparation) return true;
    return false;
  }
  double ei(const Eigen::VectorXd& f) const {
    const auto p = gp.predict(f);
    return expected_improvement(p.mean, std::sqrt(p.var), best).ei;
  }
};

}  // namespace tune
