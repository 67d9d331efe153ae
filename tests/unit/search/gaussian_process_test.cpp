// SPDX-License-Identifier: GPL-2.0-or-later
// The Gaussian process (lib/search/gaussian_process) the bayes sampler fits.
#include "search/gaussian_process.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <set>

#include "search/bayes_sampler.hpp"
#include "search/cmaes_sampler.hpp"
#include "search/halton.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {
namespace {

double matern52(double r) {
  return (1 + std::sqrt(5.0) * r + 5.0 / 3.0 * r * r) * std::exp(-std::sqrt(5.0) * r);
}

GpHyper hyper1d(double length, double signal, double noise) {
  return {Eigen::VectorXd::Constant(1, std::log(length)), std::log(signal), std::log(noise)};
}

TEST(GaussianProcess, KernelIsMatern52) {
  const GpHyper h = hyper1d(0.5, 2.0, 1e-6);
  Eigen::VectorXd a(1), b(1);
  a << 0.1;
  b << 0.4;
  EXPECT_NEAR(GaussianProcess::kernel(a, b, h), 2.0 * matern52(0.3 / 0.5), 1e-12);
  EXPECT_NEAR(GaussianProcess::kernel(a, a, h), 2.0, 1e-12);
}

// Two points, x = 0 and 1 with y = 0 and 2: standardised to -1 and +1, so the
// posterior is a 2x2 solve done here by hand.
TEST(GaussianProcess, PosteriorMatchesHandComputedTwoPointCase) {
  Eigen::MatrixXd X(2, 1);
  X << 0, 1;
  Eigen::VectorXd y(2);
  y << 0, 2;
  const double noise = 1e-2;
  const GaussianProcess gp(X, y, hyper1d(1.0, 1.0, noise));
  const double a = 1 + noise + 1e-9, b = matern52(1.0);  // K = [[a, b], [b, a]]
  Eigen::VectorXd x(1);
  // At x = 0: k* = (1, b); K^-1 (-1, 1) = (-1, 1) / (a - b).
  x << 0.0;
  auto p = gp.predict(x);
  EXPECT_NEAR(p.mean, 1 + (b - 1) / (a - b), 1e-9);
  // At the midpoint both points are equally near: mean 1, var 1 - 2c^2/(a+b).
  x << 0.5;
  p = gp.predict(x);
  const double c = matern52(0.5);
  EXPECT_NEAR(p.mean, 1.0, 1e-9);
  EXPECT_NEAR(p.var, 1 - 2 * c * c / (a + b), 1e-9);
  // Far away: the prior (mean of y, variance of y).
  x << 50;
  p = gp.predict(x);
  EXPECT_NEAR(p.mean, 1.0, 1e-9);
  EXPECT_NEAR(p.var, 1.0, 1e-9);
}

TEST(GaussianProcess, BatchPredictionAgreesWithSingle) {
  Eigen::MatrixXd X = Eigen::MatrixXd::Random(12, 3).array().abs();
  Eigen::VectorXd y = X.rowwise().sum().array().sin();
  const GaussianProcess gp(X, y, GpHyper::initial(3));
  Eigen::MatrixXd Xs = Eigen::MatrixXd::Random(5, 3).array().abs();
  Eigen::VectorXd mean, var;
  gp.predict(Xs, mean, var);
  for (int i = 0; i < 5; ++i) {
    const auto p = gp.predict(Xs.row(i).transpose());
    EXPECT_NEAR(mean(i), p.mean, 1e-9);
    EXPECT_NEAR(var(i), p.var, 1e-9);
  }
}

TEST(GaussianProcess, GradientsMatchFiniteDifferences) {
  Eigen::MatrixXd X = Eigen::MatrixXd::Random(10, 2).array().abs();
  Eigen::VectorXd y = (3 * X.col(0)).array().sin() + X.col(1).array().square();
  GpHyper h{Eigen::Vector2d(std::log(0.4), std::log(0.7)), std::log(1.3), std::log(1e-3)};
  // The likelihood's gradient in the hyperparameters.
  Eigen::VectorXd grad;
  GaussianProcess::log_likelihood(X, y, h, &grad);
  const double eps = 1e-6;
  for (int j = 0; j < 4; ++j) {
    GpHyper up = h, down = h;
    auto bump = [&](GpHyper& g, double by) {
      if (j < 2) g.log_length(j) += by;
      if (j == 2) g.log_signal += by;
      if (j == 3) g.log_noise += by;
    };
    bump(up, eps);
    bump(down, -eps);
    const double fd = (GaussianProcess::log_likelihood(X, y, up, nullptr) -
                       GaussianProcess::log_likelihood(X, y, down, nullptr)) /
                      (2 * eps);
    EXPECT_NEAR(grad(j), fd, 1e-4 * std::max(1.0, std::abs(fd))) << "hyperparameter " << j;
  }
  // The prediction's gradient in x.
  const GaussianProcess gp(X, y, h);
  Eigen::Vector2d x(0.3, 0.6);
  const auto p = gp.predict(x, true);
  for (int j = 0; j < 2; ++j) {
    Eigen::Vector2d up = x, down = x;
    up(j) += eps;
    down(j) -= eps;
    EXPECT_NEAR(p.d_mean(j), (gp.predict(up).mean - gp.predict(down).mean) / (2 * eps), 1e-5);
    EXPECT_NEAR(p.d_var(j), (gp.predict(up).var - gp.predict(down).var) / (2 * eps), 1e-5);
  }
}

TEST(GaussianProcess, FitRecoversALongLengthScaleForASmoothFunction) {
  Eigen::MatrixXd X(15, 2);
  Eigen::VectorXd y(15);
  for (int i = 0; i < 15; ++i) {
    X(i, 0) = i / 14.0;
    X(i, 1) = std::fmod(i * 0.618, 1.0);
    y(i) = std::sin(6 * X(i, 0));  // depends on x0 only
  }
  const GpHyper h = GaussianProcess::fit(X, y, GpHyper::initial(2));
  // The irrelevant dimension gets the longer length scale.
  EXPECT_GT(h.log_length(1), h.log_length(0));
  EXPECT_GT(GaussianProcess::log_likelihood(
                X, (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean()), h, nullptr),
            GaussianProcess::log_likelihood(
                X, (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean()),
                GpHyper::initial(2), nullptr));
}

}  // namespace
}  // namespace tune
