// SPDX-License-Identifier: GPL-2.0-or-later
// The 24 noiseless BBOB functions (Finck, Hansen, Ros, Auger: "Real-parameter
// black-box optimization benchmarking 2009: noiseless functions
// definitions", as implemented in COCO's code-experiments/src/f_*.c) on
// [-5, 5]^D, with shifted optima and random rotations. An instance's optimum
// x_opt, rotations and peaks are drawn from this file's own generator (seeded
// by function, dimension and instance), not from COCO's, so instance numbers
// do not match COCO's; the value at the optimum is 0 (COCO adds an offset
// f_opt, which changes no sampler's ranking and no regret).
//
// Also: noisy versions (f * exp(beta N(0,1)), BBOB's Gaussian noise model)
// and mixed spaces shaped like real tuning problems (log-scaled rates,
// integer sizes, a choice), each with a known minimum.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace bench::bbob {

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;

class Function {
 public:
  // fid 1..24, dim >= 2, instance >= 1.
  Function(int fid, int dim, int instance);
  double operator()(const Vec& x) const;
  // A point where the function is 0 (its minimum), for tests.
  Vec optimum() const { return xbest_; }
  int id() const { return fid_; }
  int dim() const { return d_; }
  static const char* name(int fid);

 private:
  int fid_, d_;
  Vec xopt_, xbest_, lambda10_, lambda100_, lambda1000_, lambda_001_;
  Mat R_, Q_;
  Vec signs_;  // f20, f24
  // Gallagher (f21, f22): peaks, their weights and conditioning.
  std::vector<Vec> peaks_;
  Vec weights_;
  std::vector<Vec> peak_lambda_;
  std::uint64_t seed_;

  Vec rot(const Mat& M, const Vec& v) const {
    Vec out(d_, 0.0);
    for (int i = 0; i < d_; ++i)
      for (int j = 0; j < d_; ++j) out[i] += M[i][j] * v[j];
    return out;
  }
  Vec shifted(const Vec& x) const {
    Vec z(d_);
    for (int i = 0; i < d_; ++i) z[i] = x[i] - xopt_[i];
    return z;
  }
  double power(int i, double base) const {
    return d_ > 1 ? std::pow(base, static_cast<double>(i) / (d_ - 1)) : 1;
  }
};

// Coordinatewise transformations of the BBOB definitions.
inline double t_osz(double x) {
  if (x == 0) return 0;
  const double xh = std::log(std::fabs(x));
  const double c1 = x > 0 ? 10 : 5.5, c2 = x > 0 ? 7.9 : 3.1;
  return (x > 0 ? 1 : -1) * std::exp(xh + 0.049 * (std::sin(c1 * xh) + std::sin(c2 * xh)));
}
inline void t_osz(Vec& v) {
  for (auto& x : v) x = t_osz(x);
}
inline void t_asy(Vec& v, double beta) {
  const int d = static_cast<int>(v.size());
  for (int i = 0; i < d; ++i)
    if (v[i] > 0)
      v[i] = std::pow(v[i], 1 + beta * (d > 1 ? static_cast<double>(i) / (d - 1) : 0) * std::sqrt(v[i]));
}
inline double f_pen(const Vec& x) {
  double s = 0;
  for (double v : x) s += std::pow(std::max(0.0, std::fabs(v) - 5), 2);
  return s;
}

inline Mat random_rotation(int d, std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, 1);
  Mat m(d, Vec(d));
  for (auto& row : m)
    for (auto& v : row) v = n(rng);
  for (int i = 0; i < d; ++i) {  // Gram-Schmidt on the rows
    for (int k = 0; k < i; ++k) {
      double dot = 0;
      for (int j = 0; j < d; ++j) dot += m[i][j] * m[k][j];
      for (int j = 0; j < d; ++j) m[i][j] -= dot * m[k][j];
    }
    double norm = 0;
    for (double v : m[i]) norm += v * v;
    norm = std::sqrt(norm);
    for (auto& v : m[i]) v /= norm;
  }
  return m;
}

inline const char* Function::name(int fid) {
  static const char* names[] = {"sphere",         "ellipsoid",         "rastrigin",      "buche-rastrigin",
                                "linear-slope",   "attractive-sector", "step-ellipsoid", "rosenbrock",
                                "rosenbrock-rot", "ellipsoid-rot",     "discus",         "bent-cigar",
                                "sharp-ridge",    "different-powers",  "rastrigin-rot",  "weierstrass",
                                "schaffers-f7",   "schaffers-f7-ill",  "griewank-rosen", "schwefel",
                                "gallagher-101",  "gallagher-21",      "katsuura",       "lunacek"};
  return fid >= 1 && fid <= 24 ? names[fid - 1] : "?";
}

inline Function::Function(int fid, int dim, int instance)
    : fid_(fid),
      d_(dim),
      seed_(static_cast<std::uint64_t>(fid) * 1000003u + static_cast<std::uint64_t>(dim) * 7919u +
            static_cast<std::uint64_t>(instance)) {
  std::mt19937_64 rng(seed_);
  std::uniform_real_distribution<double> u(-4, 4);
  xopt_.resize(d_);
  for (auto& v : xopt_) v = u(rng);
  // Round away from exact zero, as COCO does (Tosz and Tasy are smooth there, but a 0 breaks f5's sign).
  for (auto& v : xopt_)
    if (std::fabs(v) < 1e-5) v = 1e-5;
  R_ = random_rotation(d_, rng);
  Q_ = random_rotation(d_, rng);
  lambda10_.resize(d_), lambda100_.resize(d_), lambda1000_.resize(d_), lambda_001_.resize(d_);
  for (int i = 0; i < d_; ++i) {
    lambda10_[i] = power(i, std::sqrt(10.0));
    lambda100_[i] = power(i, 10.0);
    lambda1000_[i] = power(i, std::sqrt(1000.0));
    lambda_001_[i] = power(i, std::sqrt(0.01));
  }
  std::bernoulli_distribution coin(0.5);
  signs_.resize(d_);
  for (auto& s : signs_) s = coin(rng) ? 1 : -1;
  xbest_ = xopt_;
  const double scale = std::max(1.0, std::sqrt(static_cast<double>(d_)) / 8);
  switch (fid_) {
    case 5:  // the optimum is on the boundary, in the corner the slope points to
      for (int i = 0; i < d_; ++i) xopt_[i] = xbest_[i] = 5 * signs_[i];
      break;
    case 8:  // Rosenbrock: x_opt scaled into [-3, 3]
      for (auto& v : xopt_) v *= 0.75;
      xbest_ = xopt_;
      break;
    case 9:
    case 19: {  // z = scale R x + 1/2 is 1 at the optimum: x = R^T (1/2 / scale)
      Vec half(d_, 0.5 / scale);
      for (int i = 0; i < d_; ++i) {
        xbest_[i] = 0;
        for (int j = 0; j < d_; ++j) xbest_[i] += R_[j][i] * half[j];
      }
      break;
    }
    case 20:
      for (int i = 0; i < d_; ++i) xopt_[i] = xbest_[i] = 4.2096874633 / 2 * signs_[i];
      break;
    case 24:
      for (int i = 0; i < d_; ++i) xopt_[i] = xbest_[i] = 2.5 / 2 * signs_[i];
      break;
    case 21:
    case 22: {
      const int peaks = fid_ == 21 ? 101 : 21;
      const double first = fid_ == 21 ? 4 : 3.92, rest = fid_ == 21 ? 5 : 4.9;
      std::vector<double> alphas;
      for (int j = 0; j < peaks - 1; ++j) alphas.push_back(std::pow(1000.0, 2.0 * j / (peaks - 2)));
      std::shuffle(alphas.begin(), alphas.end(), rng);
      for (int k = 0; k < peaks; ++k) {
        std::uniform_real_distribution<double> py(-(k ? rest : first), k ? rest : first);
        Vec y(d_);
        for (auto& v : y) v = py(rng);
        peaks_.push_back(y);
        weights_.push_back(k == 0 ? 10 : 1.1 + 8.0 * (k - 1) / (peaks - 2));
        const double alpha = k == 0 ? (fid_ == 21 ? 1000 : 1e6) : alphas[k - 1];
        Vec lam(d_);
        for (int i = 0; i < d_; ++i) lam[i] = power(i, std::sqrt(alpha)) / std::pow(alpha, 0.25);
        // Each peak's axes in a random order, as the definition's permuted Lambda.
        std::shuffle(lam.begin(), lam.end(), rng);
        peak_lambda_.push_back(lam);
      }
      xopt_ = xbest_ = peaks_[0];
      break;
    }
    default: break;
  }
}

inline double Function::operator()(const Vec& x) const {
  const int D = d_;
  const double pi = std::numbers::pi;
  auto rastrigin = [&](const Vec& z) {
    double c = 0, s = 0;
    for (double v : z) c += std::cos(2 * pi * v), s += v * v;
    return 10 * (D - c) + s;
  };
  auto scaled = [&](Vec v, const Vec& lam) {
    for (int i = 0; i < D; ++i) v[i] *= lam[i];
    return v;
  };
  switch (fid_) {
    case 1: {
      double s = 0;
      for (double v : shifted(x)) s += v * v;
      return s;
    }
    case 2: {
      Vec z = shifted(x);
      t_osz(z);
      double s = 0;
      for (int i = 0; i < D; ++i) s += power(i, 1e6) * z[i] * z[i];
      return s;
    }
    case 3: {
      Vec z = shifted(x);
      t_osz(z);
      t_asy(z, 0.2);
      return rastrigin(scaled(z, lambda10_));
    }
    case 4: {
      Vec z = shifted(x);
      t_osz(z);
      for (int i = 0; i < D; ++i) z[i] *= (z[i] > 0 && i % 2 == 0 ? 10 : 1) * lambda10_[i];
      return rastrigin(z) + 100 * f_pen(x);
    }
    case 5: {
      double s = 0;
      for (int i = 0; i < D; ++i) {
        const double z = x[i] * xopt_[i] < 25 ? x[i] : xopt_[i];
        const double si = signs_[i] * power(i, 10.0);
        s += 5 * std::fabs(si) - si * z;
      }
      return s;
    }
    case 6: {
      Vec z = rot(Q_, scaled(rot(R_, shifted(x)), lambda10_));
      double s = 0;
      for (int i = 0; i < D; ++i) s += std::pow((z[i] * xopt_[i] > 0 ? 100 : 1) * z[i], 2);
      return std::pow(t_osz(s), 0.9);
    }
    case 7: {
      const Vec zh = scaled(rot(R_, shifted(x)), lambda10_);
      Vec zt(D);
      for (int i = 0; i < D; ++i)
        zt[i] = std::fabs(zh[i]) > 0.5 ? std::floor(0.5 + zh[i]) : std::floor(0.5 + 10 * zh[i]) / 10;
      const Vec z = rot(Q_, zt);
      double s = 0;
      for (int i = 0; i < D; ++i) s += power(i, 100.0) * z[i] * z[i];
      return 0.1 * std::max(std::fabs(zh[0]) / 1e4, s) + f_pen(x);
    }
    case 8:
    case 9:
    case 19: {
      const double scale = std::max(1.0, std::sqrt(static_cast<double>(D)) / 8);
      Vec z(D);
      if (fid_ == 8)
        for (int i = 0; i < D; ++i) z[i] = scale * (x[i] - xopt_[i]) + 1;
      else {
        z = rot(R_, x);
        for (auto& v : z) v = scale * v + 0.5;
      }
      double s = 0;
      for (int i = 0; i + 1 < D; ++i) {
        const double r = 100 * std::pow(z[i] * z[i] - z[i + 1], 2) + std::pow(z[i] - 1, 2);
        s += fid_ == 19 ? r / 4000 - std::cos(r) : r;
      }
      return fid_ == 19 ? 10 * s / (D - 1) + 10 : s;
    }
    case 10:
    case 11: {
      Vec z = rot(R_, shifted(x));
      t_osz(z);
      double s = 0;
      for (int i = 0; i < D; ++i) s += (fid_ == 10 ? power(i, 1e6) : (i == 0 ? 1e6 : 1)) * z[i] * z[i];
      return s;
    }
    case 12: {
      Vec z = rot(R_, shifted(x));
      t_asy(z, 0.5);
      z = rot(R_, z);
      double s = z[0] * z[0];
      for (int i = 1; i < D; ++i) s += 1e6 * z[i] * z[i];
      return s;
    }
    case 13: {
      const Vec z = rot(Q_, scaled(rot(R_, shifted(x)), lambda10_));
      double s = 0;
      for (int i = 1; i < D; ++i) s += z[i] * z[i];
      return z[0] * z[0] + 100 * std::sqrt(s);
    }
    case 14: {
      const Vec z = rot(R_, shifted(x));
      double s = 0;
      for (int i = 0; i < D; ++i)
        s += std::pow(std::fabs(z[i]), 2 + 4 * (D > 1 ? static_cast<double>(i) / (D - 1) : 0));
      return std::sqrt(s);
    }
    case 15: {
      Vec z = rot(R_, shifted(x));
      t_osz(z);
      t_asy(z, 0.2);
      return rastrigin(rot(R_, scaled(rot(Q_, z), lambda10_)));
    }
    case 16: {
      Vec z = rot(R_, shifted(x));
      t_osz(z);
      z = rot(R_, scaled(rot(Q_, z), lambda_001_));
      double f0 = 0;
      for (int k = 0; k < 12; ++k) f0 += std::pow(0.5, k) * std::cos(pi * std::pow(3, k));
      double s = 0;
      for (int i = 0; i < D; ++i)
        for (int k = 0; k < 12; ++k) s += std::pow(0.5, k) * std::cos(2 * pi * std::pow(3, k) * (z[i] + 0.5));
      return 10 * std::pow(s / D - f0, 3) + 10.0 / D * f_pen(x);
    }
    case 17:
    case 18: {
      Vec z = rot(R_, shifted(x));
      t_asy(z, 0.5);
      z = scaled(rot(Q_, z), fid_ == 17 ? lambda10_ : lambda1000_);
      double s = 0;
      for (int i = 0; i + 1 < D; ++i) {
        const double si = std::sqrt(z[i] * z[i] + z[i + 1] * z[i + 1]);
        s += std::sqrt(si) + std::sqrt(si) * std::pow(std::sin(50 * std::pow(si, 0.2)), 2);
      }
      return std::pow(s / (D - 1), 2) + 10 * f_pen(x);
    }
    case 20: {
      Vec xh(D), zh(D), z(D);
      for (int i = 0; i < D; ++i) xh[i] = 2 * signs_[i] * x[i];
      zh[0] = xh[0];
      for (int i = 1; i < D; ++i) zh[i] = xh[i] + 0.25 * (xh[i - 1] - 2 * std::fabs(xopt_[i - 1]));
      for (int i = 0; i < D; ++i)
        z[i] = 100 * (lambda10_[i] * (zh[i] - 2 * std::fabs(xopt_[i])) + 2 * std::fabs(xopt_[i]));
      double s = 0;
      for (double v : z) s += v * std::sin(std::sqrt(std::fabs(v)));
      Vec z100 = z;
      for (auto& v : z100) v /= 100;
      return -s / (100.0 * D) + 4.189828872724339 + 100 * f_pen(z100);
    }
    case 21:
    case 22: {
      double best = 0;
      for (std::size_t k = 0; k < peaks_.size(); ++k) {
        Vec diff(D);
        for (int i = 0; i < D; ++i) diff[i] = x[i] - peaks_[k][i];
        const Vec r = rot(R_, diff);
        double q = 0;
        for (int i = 0; i < D; ++i) q += peak_lambda_[k][i] * r[i] * r[i];
        best = std::max(best, weights_[k] * std::exp(-q / (2.0 * D)));
      }
      return std::pow(t_osz(10 - best), 2) + f_pen(x);
    }
    case 23: {
      const Vec z = rot(Q_, scaled(rot(R_, shifted(x)), lambda100_));
      double p = 1;
      for (int i = 0; i < D; ++i) {
        double s = 0;
        for (int j = 1; j <= 32; ++j) {
          const double t = std::pow(2.0, j) * z[i];
          s += std::fabs(t - std::nearbyint(t)) / std::pow(2.0, j);
        }
        p *= std::pow(1 + (i + 1) * s, 10 / std::pow(D, 1.2));
      }
      return 10.0 / (D * D) * p - 10.0 / (D * D) + f_pen(x);
    }
    case 24: {
      const double mu0 = 2.5, sd = 1 - 1 / (2 * std::sqrt(D + 20.0) - 8.2),
                   mu1 = -std::sqrt((mu0 * mu0 - 1) / sd);
      Vec xh(D), c(D);
      for (int i = 0; i < D; ++i) xh[i] = 2 * signs_[i] * x[i], c[i] = xh[i] - mu0;
      const Vec z = rot(Q_, scaled(rot(R_, c), lambda100_));
      double a = 0, b = 0, cs = 0;
      for (int i = 0; i < D; ++i) a += (xh[i] - mu0) * (xh[i] - mu0), b += (xh[i] - mu1) * (xh[i] - mu1);
      for (double v : z) cs += std::cos(2 * pi * v);
      return std::min(a, D + sd * b) + 10 * (D - cs) + 1e4 * f_pen(x);
    }
    default: return 0;
  }
}

}  // namespace bench::bbob
