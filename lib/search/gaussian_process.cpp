// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/gaussian_process.hpp"

#include <LBFGSB.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace tune {
namespace {

const double kSqrt5 = std::sqrt(5.0);
// Bounds of the hyperparameter search (logs). Inputs live in the unit cube, so
// length scales below 0.01 would interpolate noise and above 20 are flat.
constexpr double kMinLogLength = -4.6, kMaxLogLength = 3.0;
constexpr double kMinLogSignal = -4.6, kMaxLogSignal = 4.6;
constexpr double kMinLogNoise = -18.4, kMaxLogNoise = 0.0;
constexpr double kJitter = 1e-9;

// Matern 5/2 as a function of the scaled distance r: (1 + sqrt5 r + 5/3 r^2) e^(-sqrt5 r).
double matern(double r) {
  return (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-kSqrt5 * r);
}
// -(1/r) dm/dr = 5/3 (1 + sqrt5 r) e^(-sqrt5 r): finite at r = 0.
double matern_slope(double r) {
  return 5.0 / 3.0 * (1 + kSqrt5 * r) * std::exp(-kSqrt5 * r);
}

Eigen::VectorXd inverse_squared_lengths(const GpHyper& h) {
  return (-2.0 * h.log_length.array()).exp().matrix();
}

double scaled_distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& inv_l2) {
  return std::sqrt(((a - b).array().square() * inv_l2.array()).sum());
}

Eigen::MatrixXd covariance(const Eigen::MatrixXd& X, const GpHyper& h, Eigen::MatrixXd* R = nullptr) {
  const Eigen::Index n = X.rows();
  const Eigen::VectorXd inv_l2 = inverse_squared_lengths(h);
  const double signal = std::exp(h.log_signal);
  Eigen::MatrixXd K(n, n);
  if (R) R->resize(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b <= a; ++b) {
      const double r = scaled_distance(X.row(a).transpose(), X.row(b).transpose(), inv_l2);
      K(a, b) = K(b, a) = signal * matern(r);
      if (R) (*R)(a, b) = (*R)(b, a) = r;
    }
    K(a, a) += std::exp(h.log_noise) + kJitter;
  }
  return K;
}

// Cholesky of K, adding jitter until it succeeds (near-duplicate inputs with a
// tiny noise make K numerically singular).
Eigen::LLT<Eigen::MatrixXd> stable_cholesky(Eigen::MatrixXd K) {
  double extra = 1e-8;
  for (int attempt = 0;; ++attempt) {
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() == Eigen::Success) return llt;
    if (attempt == 8) throw std::runtime_error("Gaussian process: covariance is not positive definite");
    K.diagonal().array() += extra;
    extra *= 10;
  }
}

Eigen::VectorXd pack(const GpHyper& h) {
  Eigen::VectorXd v(h.log_length.size() + 2);
  v << h.log_length, h.log_signal, h.log_noise;
  return v;
}

GpHyper unpack(const Eigen::VectorXd& v) {
  const Eigen::Index d = v.size() - 2;
  return {v.head(d), v(d), v(d + 1)};
}

}  // namespace

GpHyper GpHyper::initial(int dims) {
  return {Eigen::VectorXd::Constant(dims, std::log(0.3)), 0.0, std::log(1e-3)};
}

double GaussianProcess::kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const GpHyper& h) {
  return std::exp(h.log_signal) * matern(scaled_distance(a, b, inverse_squared_lengths(h)));
}

double GaussianProcess::log_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const GpHyper& h,
                                       Eigen::VectorXd* grad) {
  const Eigen::Index n = X.rows(), d = X.cols();
  Eigen::MatrixXd R;
  const auto llt = stable_cholesky(covariance(X, h, grad ? &R : nullptr));
  const Eigen::VectorXd alpha = llt.solve(y);
  const Eigen::MatrixXd L = llt.matrixL();
  const double log_det = 2 * L.diagonal().array().log().sum();
  const double lml = -0.5 * y.dot(alpha) - 0.5 * log_det - 0.5 * n * std::log(2 * std::numbers::pi);
  if (!grad) return lml;
  // d lml / d theta = 1/2 tr((alpha alpha^T - K^-1) dK/dtheta)
  const Eigen::MatrixXd W = alpha * alpha.transpose() - llt.solve(Eigen::MatrixXd::Identity(n, n));
  const double signal = std::exp(h.log_signal);
  const Eigen::VectorXd inv_l2 = inverse_squared_lengths(h);
  grad->setZero(d + 2);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b) {
      const double w = W(a, b);
      const double r = R(a, b);
      const double slope = signal * matern_slope(r);
      for (Eigen::Index j = 0; j < d; ++j) {
        const double diff = X(a, j) - X(b, j);
        (*grad)(j) += 0.5 * w * slope * diff * diff * inv_l2(j);  // dK/dlog l_j
      }
      (*grad)(d) += 0.5 * w * signal * matern(r);  // dK/dlog signal = signal part of K
    }
  }
  (*grad)(d + 1) = 0.5 * std::exp(h.log_noise) * W.trace();
  return lml;
}

GpHyper GaussianProcess::fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const GpHyper& start) {
  const Eigen::Index d = X.cols();
  const double mean = y.mean();
  const double sd = std::sqrt((y.array() - mean).square().mean());
  const Eigen::VectorXd ys = (y.array() - mean) / (sd > 0 ? sd : 1.0);
  Eigen::VectorXd lb(d + 2), ub(d + 2);
  lb << Eigen::VectorXd::Constant(d, kMinLogLength), kMinLogSignal, kMinLogNoise;
  ub << Eigen::VectorXd::Constant(d, kMaxLogLength), kMaxLogSignal, kMaxLogNoise;
  auto objective = [&](const Eigen::VectorXd& v, Eigen::VectorXd& g) {
    const double lml = log_likelihood(X, ys, unpack(v), &g);
    g = -g;
    return -lml;
  };
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 50;
  param.epsilon = 1e-4;
  param.max_linesearch = 30;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  GpHyper best = start;
  double best_value = std::numeric_limits<double>::infinity();
  for (const GpHyper& from : {start, GpHyper::initial(static_cast<int>(d))}) {
    Eigen::VectorXd v = pack(from).cwiseMax(lb).cwiseMin(ub);
    double value = 0;
    try {
      solver.minimize(objective, v, value, lb, ub);
    } catch (const std::exception&) {
      // A line search that gave up still leaves a valid point in v.
      Eigen::VectorXd g;
      value = objective(v, g);
    }
    if (std::isfinite(value) && value < best_value) {
      best_value = value;
      best = unpack(v);
    }
  }
  return best;
}

GaussianProcess::GaussianProcess(Eigen::MatrixXd X, const Eigen::VectorXd& y, GpHyper hyper)
    : X_(std::move(X)), h_(std::move(hyper)) {
  if (X_.rows() == 0 || X_.rows() != y.size() || h_.log_length.size() != X_.cols())
    throw std::invalid_argument("GaussianProcess: inputs, outputs and length scales do not match");
  y_mean_ = y.mean();
  const double sd = std::sqrt((y.array() - y_mean_).square().mean());
  y_scale_ = sd > 0 ? sd : 1.0;
  llt_ = stable_cholesky(covariance(X_, h_));
  alpha_ = llt_.solve(((y.array() - y_mean_) / y_scale_).matrix());
}

GaussianProcess::Prediction GaussianProcess::predict(const Eigen::VectorXd& x, bool gradient) const {
  const Eigen::Index n = X_.rows(), d = X_.cols();
  const Eigen::VectorXd inv_l2 = inverse_squared_lengths(h_);
  const double signal = std::exp(h_.log_signal);
  Eigen::VectorXd k(n);
  Eigen::MatrixXd dk;  // dk_a/dx_j
  if (gradient) dk.resize(n, d);
  for (Eigen::Index a = 0; a < n; ++a) {
    const double r = scaled_distance(x, X_.row(a).transpose(), inv_l2);
    k(a) = signal * matern(r);
    if (gradient)
      dk.row(a) = (-signal * matern_slope(r) * (x - X_.row(a).transpose()).array() * inv_l2.array())
                      .matrix()
                      .transpose();
  }
  Prediction p;
  const Eigen::VectorXd v = llt_.solve(k);  // K^-1 k
  p.mean = y_mean_ + y_scale_ * k.dot(alpha_);
  p.var = std::max(0.0, y_scale_ * y_scale_ * (signal - k.dot(v)));
  if (gradient) {
    p.d_mean = y_scale_ * dk.transpose() * alpha_;
    p.d_var = -2 * y_scale_ * y_scale_ * dk.transpose() * v;
  }
  return p;
}

void GaussianProcess::predict(const Eigen::MatrixXd& Xs, Eigen::VectorXd& mean, Eigen::VectorXd& var) const {
  const Eigen::Index n = X_.rows(), m = Xs.rows();
  const Eigen::VectorXd inv_l2 = inverse_squared_lengths(h_);
  const double signal = std::exp(h_.log_signal);
  Eigen::MatrixXd Ks(n, m);
  for (Eigen::Index c = 0; c < m; ++c)
    for (Eigen::Index a = 0; a < n; ++a)
      Ks(a, c) = signal * matern(scaled_distance(Xs.row(c).transpose(), X_.row(a).transpose(), inv_l2));
  mean = (y_mean_ + y_scale_ * (Ks.transpose() * alpha_).array()).matrix();
  const Eigen::MatrixXd V = llt_.matrixL().solve(Ks);  // L^-1 K*, one triangular solve for all points
  var =
      (y_scale_ * y_scale_ * (signal - V.colwise().squaredNorm().array())).cwiseMax(0.0).matrix().transpose();
}

Improvement expected_improvement(double mean, double sd, double best) {
  Improvement out;
  if (!(sd > 1e-12)) {
    out.ei = std::max(0.0, best - mean);
    out.d_mean = best > mean ? -1.0 : 0.0;
    return out;
  }
  const double z = (best - mean) / sd;
  const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
  const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
  out.ei = (best - mean) * cdf + sd * pdf;
  out.d_mean = -cdf;
  out.d_sd = pdf;
  return out;
}

}  // namespace tune
