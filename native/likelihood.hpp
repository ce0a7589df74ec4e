// Negative log marginal likelihood of the mixed-kernel GP and its analytic gradient
// (Rasmussen & Williams 2006, eq. 2.30 and 5.9), for a hyperparameter optimiser to minimise.
// The kernel supplies its own part of the gradient (MixedKernel::trace_gradient); this file adds
// the noise and the data fit.
//
// Hyperparameter vector theta (the layout the Python fit uses):
//   [log l_1 .. log l_d, log variance, log noise, lambda(, log r_1 .. log r_k)]
// Lengthscales, variance and noise in log space, lambda as it is (bounded to [0, 1]); with the
// categorical relevance on, the k log relevances of the categorical variables last.
#pragma once

#include "kernel.hpp"

namespace vpbo {

class LikelihoodEvaluator {
 public:
  // categorical_relevance: theta ends with one log relevance per categorical variable (else the
  // overlap kernel has equal weights).
  LikelihoodEvaluator(const IntMatrix& h, const Matrix& x, const Vector& y, bool categorical_relevance = false);

  // Returns the negative log marginal likelihood; writes its gradient w.r.t. theta. Throws
  // NumericalError when K + noise I cannot be factorised.
  double negative_log_likelihood(const Vector& theta, Vector& gradient) const;

  Eigen::Index n_params() const { return x_.cols() + 3 + n_relevances_; }

 private:
  Matrix x_;
  Vector y_;
  Eigen::Index n_relevances_ = 0;
  Matrix k_h_;                      // equal weights: fixed by the data, computed once
  std::vector<Matrix> agreements_;  // relevances: the per-variable pieces of k_h
};

// The kernel and the noise variance of a theta vector with n_relevances log relevances last.
MixedKernel kernel_of_theta(const Vector& theta, Eigen::Index n_numeric, Eigen::Index n_relevances, double& noise);

}  // namespace vpbo
