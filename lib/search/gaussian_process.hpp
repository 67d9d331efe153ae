// SPDX-License-Identifier: GPL-2.0-or-later
// Gaussian-process regression for Bayesian optimisation: a constant mean,
// a Matern-5/2 kernel with one length scale per input dimension, and a noise
// term, the hyperparameters fitted by maximising the log marginal likelihood
// (Rasmussen & Williams, ch. 2 and 5). Inputs are feature vectors (see
// bayes_sampler.hpp for how parameters become features); outputs are
// standardised inside, predictions come back on the caller's scale.
#pragma once

#include <Eigen/Dense>

namespace tune {

// Hyperparameters, in logs so an optimiser can move freely.
struct GpHyper {
  Eigen::VectorXd log_length;  // one per input dimension
  double log_signal = 0;       // kernel variance of the standardised output
  double log_noise = -6;       // noise variance of the standardised output

  static GpHyper initial(int dims);  // length 0.3, signal 1, noise 1e-3
};

class GaussianProcess {
 public:
  // Conditions on X (one row per point) and y with the given hyperparameters.
  // Throws std::invalid_argument for empty or mismatched data.
  GaussianProcess(Eigen::MatrixXd X, const Eigen::VectorXd& y, GpHyper hyper);

  // Log marginal likelihood of the standardised data, and its gradient in the
  // order (log_length..., log_signal, log_noise) when `grad` is given.
  static double log_likelihood(const Eigen::MatrixXd& X, const Eigen::VectorXd& y_std, const GpHyper& h,
                               Eigen::VectorXd* grad);
  // The hyperparameters maximising the likelihood of (X, y) within fixed
  // bounds, by L-BFGS-B from `start` and from the default start.
  static GpHyper fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const GpHyper& start);

  struct Prediction {
    double mean = 0;
    double var = 0;                 // of the latent function, without noise
    Eigen::VectorXd d_mean, d_var;  // gradients in x, if asked for
  };
  Prediction predict(const Eigen::VectorXd& x, bool gradient = false) const;
  // Means and variances of many points at once (one per row).
  void predict(const Eigen::MatrixXd& Xs, Eigen::VectorXd& mean, Eigen::VectorXd& var) const;

  const GpHyper& hyper() const { return h_; }
  int size() const { return static_cast<int>(X_.rows()); }

  // The kernel k(a, b) on standardised outputs; exposed for the tests.
  static double kernel(const Eigen::VectorXd& a, const Eigen::VectorXd& b, const GpHyper& h);

 private:
  Eigen::MatrixXd X_;
  GpHyper h_;
  double y_mean_ = 0, y_scale_ = 1;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;  // K^-1 (y - mean) / scale
};

// Expected improvement below `best` (minimisation) of a Gaussian with this
// mean and standard deviation, and its derivatives in mean and sd.
struct Improvement {
  double ei = 0, d_mean = 0, d_sd = 0;
};
Improvement expected_improvement(double mean, double sd, double best);

}  // namespace tune
