// SPDX-License-Identifier: GPL-2.0-or-later
// GCC 12 warns of an uninitialised variable inside Eigen 3.4's symmetric
// eigensolver (its tridiagonalisation), a false positive: the warning is
// silenced for Eigen's headers only, which must come first for that.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <limits>

#include "search/cmaes_sampler.hpp"
#include "search/draws.hpp"

namespace tune {
namespace {

constexpr double kSigma0 = 1.0 / 6;   // of the unit cube, as Optuna's default
constexpr int kResamples = 100;       // draws before one outside the cube is clipped
constexpr double kCollapsed = 1e-12;  // a distribution narrower than this (unit cube) starts again

}  // namespace

CmaesSampler::CmaesSampler(const SearchSpace& space, std::uint64_t seed, bool minimize)
    : space_(space), seed_(seed), minimize_(minimize), dims_(std::max<std::size_t>(1, space.dimensions())) {
  const double n = static_cast<double>(dims_);
  lambda_ = 4 + static_cast<std::size_t>(std::floor(3 * std::log(n)));
  mu_ = lambda_ / 2;
  Eigen::VectorXd w(static_cast<Eigen::Index>(lambda_));
  for (std::size_t i = 0; i < lambda_; ++i)
    w(static_cast<Eigen::Index>(i)) =
        std::log((static_cast<double>(lambda_) + 1) / 2) - std::log(static_cast<double>(i + 1));
  const auto pos = w.head(static_cast<Eigen::Index>(mu_)),
             neg = w.tail(static_cast<Eigen::Index>(lambda_ - mu_));
  mu_eff_ = pos.sum() * pos.sum() / pos.squaredNorm();
  const double mu_eff_neg = neg.squaredNorm() > 0 ? neg.sum() * neg.sum() / neg.squaredNorm() : 0;
  const double alpha_cov = 2;
  c_1_ = alpha_cov / ((n + 1.3) * (n + 1.3) + mu_eff_);
  c_mu_ = std::min(1 - c_1_, alpha_cov * (0.25 + mu_eff_ + 1 / mu_eff_ - 2) /
                                 ((n + 2) * (n + 2) + alpha_cov * mu_eff_ / 2));
  c_c_ = (4 + mu_eff_ / n) / (n + 4 + 2 * mu_eff_ / n);
  c_sigma_ = (mu_eff_ + 2) / (n + mu_eff_ + 5);
  d_sigma_ = 1 + 2 * std::max(0.0, std::sqrt((mu_eff_ - 1) / (n + 1)) - 1) + c_sigma_;
  chi_n_ = std::sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n * n));
  const double neg_scale =
      std::min({1 + c_1_ / c_mu_, 1 + 2 * mu_eff_neg / (mu_eff_ + 2), (1 - c_1_ - c_mu_) / (n * c_mu_)});
  weights_ = w;
  const double pos_sum = pos.sum(), neg_sum = -neg.sum();
  for (Eigen::Index i = 0; i < weights_.size(); ++i)
    weights_(i) = w(i) >= 0 ? w(i) / pos_sum : neg_scale * w(i) / std::max(neg_sum, 1e-300);
  const Eigen::Index d = static_cast<Eigen::Index>(dims_);
  mean_ = Eigen::VectorXd::Constant(d, 0.5);
  p_sigma_ = p_c_ = Eigen::VectorXd::Zero(d);
  sigma_ = kSigma0;
  cov_ = basis_ = Eigen::MatrixXd::Identity(d, d);
  scale_ = Eigen::VectorXd::Ones(d);
}

Eigen::VectorXd CmaesSampler::encode(const Assignment& a) const {
  const auto& ps = space_.parameters();
  Eigen::VectorXd x = mean_;  // an inactive parameter says nothing: the mean's coordinate
  for (std::size_t i = 0; i < ps.size() && i < a.size(); ++i)
    if (!is_absent(a[i])) x(static_cast<Eigen::Index>(i)) = ps[i].encode(a[i]);
  return x;
}

std::optional<Assignment> CmaesSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  // Runners need no coordination: each draw is an independent sample of the
  // same distribution, and their results join the generation they arrive in.
  auto rng = trial_rng(seed_, trial, 0xC3A5u);
  const Eigen::Index d = static_cast<Eigen::Index>(dims_);
  Eigen::VectorXd x(d), z(d);
  for (int attempt = 0; attempt <= kResamples; ++attempt) {
    for (Eigen::Index j = 0; j < d; ++j) z(j) = normal_draw(rng);
    x = mean_ + sigma_ * basis_ * scale_.cwiseProduct(z);
    if ((x.array() >= 0).all() && (x.array() <= 1).all()) break;
  }
  x = x.cwiseMax(0.0).cwiseMin(1.0);
  Assignment out;
  const auto& ps = space_.parameters();
  for (std::size_t i = 0; i < ps.size(); ++i) out.push_back(ps[i].decode(x(static_cast<Eigen::Index>(i))));
  return space_.prune_inactive(std::move(out));
}

void CmaesSampler::observe(const Observation& done) {
  if (done.pruned) {
    buffer_.push_back({encode(done.params), std::numeric_limits<double>::infinity(), true});
  } else if (done.objective && std::isfinite(*done.objective)) {
    buffer_.push_back({encode(done.params), minimize_ ? *done.objective : -*done.objective, false});
  } else {
    return;  // a failed trial says nothing about where it was
  }
  if (buffer_.size() >= lambda_) update();
}

void CmaesSampler::update() {
  const Eigen::Index d = static_cast<Eigen::Index>(dims_);
  const double n = static_cast<double>(dims_);
  // Best first; pruned trials last, in the order they arrived.
  std::stable_sort(buffer_.begin(), buffer_.end(),
                   [](const Result& a, const Result& b) { return a.y < b.y; });
  const Eigen::MatrixXd inv_sqrt = basis_ * scale_.cwiseInverse().asDiagonal() * basis_.transpose();
  // Steps from the current mean, in units of sigma, each capped in the
  // current metric (injected or clipped solutions must not blow the step size up).
  const double cap = std::sqrt(n) + 2 * n / (n + 2);
  std::vector<Eigen::VectorXd> steps, whitened;
  for (const auto& r : buffer_) {
    Eigen::VectorXd y = (r.x - mean_) / sigma_;
    Eigen::VectorXd w = inv_sqrt * y;
    const double norm = w.norm();
    if (norm > cap) y *= cap / norm, w *= cap / norm;
    steps.push_back(std::move(y));
    whitened.push_back(std::move(w));
  }
  Eigen::VectorXd y_w = Eigen::VectorXd::Zero(d);
  for (std::size_t i = 0; i < mu_; ++i) y_w += weights_(static_cast<Eigen::Index>(i)) * steps[i];
  mean_ = (mean_ + sigma_ * y_w).cwiseMax(0.0).cwiseMin(1.0);
  p_sigma_ = (1 - c_sigma_) * p_sigma_ + std::sqrt(c_sigma_ * (2 - c_sigma_) * mu_eff_) * (inv_sqrt * y_w);
  const double gen = static_cast<double>(generation_ + 1);
  const bool h_sigma =
      p_sigma_.norm() / std::sqrt(1 - std::pow(1 - c_sigma_, 2 * gen)) < (1.4 + 2 / (n + 1)) * chi_n_;
  p_c_ = (1 - c_c_) * p_c_ + (h_sigma ? std::sqrt(c_c_ * (2 - c_c_) * mu_eff_) : 0.0) * y_w;
  Eigen::MatrixXd rank_mu = Eigen::MatrixXd::Zero(d, d);
  for (std::size_t i = 0; i < lambda_; ++i) {
    double w = weights_(static_cast<Eigen::Index>(i));
    // A negative weight acts on the step's direction, not its length.
    if (w < 0) w *= n / std::max(whitened[i].squaredNorm(), 1e-300);
    rank_mu += w * steps[i] * steps[i].transpose();
  }
  const double delta = h_sigma ? 0.0 : c_c_ * (2 - c_c_);
  cov_ = (1 + c_1_ * delta - c_1_ - c_mu_ * weights_.sum()) * cov_ + c_1_ * p_c_ * p_c_.transpose() +
         c_mu_ * rank_mu;
  sigma_ *= std::exp(std::min(1.0, c_sigma_ / d_sigma_ * (p_sigma_.norm() / chi_n_ - 1)));
  ++generation_;
  buffer_.clear();
  decompose();
  // A distribution that has collapsed (or gone numerically bad) starts
  // again from where it is, at the first step size.
  if (!std::isfinite(sigma_) || !mean_.allFinite() || sigma_ * scale_.maxCoeff() < kCollapsed) {
    sigma_ = kSigma0;
    cov_ = basis_ = Eigen::MatrixXd::Identity(d, d);
    scale_ = Eigen::VectorXd::Ones(d);
    p_sigma_ = p_c_ = Eigen::VectorXd::Zero(d);
    if (!mean_.allFinite()) mean_ = Eigen::VectorXd::Constant(d, 0.5);
  }
}

void CmaesSampler::decompose() {
  cov_ = (cov_ + cov_.transpose()) / 2;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov_);
  if (eig.info() != Eigen::Success || !eig.eigenvalues().allFinite()) {
    sigma_ = std::numeric_limits<double>::quiet_NaN();  // update() starts again
    return;
  }
  // Eigenvalues held above a floor relative to the largest: C stays positive definite.
  const Eigen::VectorXd values =
      eig.eigenvalues().cwiseMax(1e-20 * std::max(eig.eigenvalues().maxCoeff(), 1e-300));
  basis_ = eig.eigenvectors();
  scale_ = values.cwiseSqrt();
  cov_ = basis_ * values.asDiagonal() * basis_.transpose();
}

}  // namespace tune
