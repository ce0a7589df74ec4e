// Negative log marginal likelihood of the mixed-kernel GP and its analytic gradient
// (Rasmussen & Williams 2006, eq. 2.30 and 5.9), for a hyperparameter optimiser to minimise.
// The kernel supplies its own part of the gradient (MixedKernel::trace_gradient); this file adds
// the noise and the data fit.
//
// Hyperparameter vector theta (the layout the Python fit uses):
//   [log l_1 .. log l_d, log variance, log noise, lambda]
// Lengthscales, variance and noise in log space, lambda as it is (bounded to [0, 1]).
#pragma once

#include "kernel.hpp"

namespace vpbo {

class LikelihoodEvaluator {
 public:
  LikelihoodEvaluator(const IntMatrix& h, const Matrix& x, const Vector& y);

  // Returns the negative log marginal likelihood; writes its gradient w.r.t. theta. Throws
  // NumericalError when K + noise I cannot be factorised.
  double negative_log_likelihood(const Vector& theta, Vector& gradient) const;

  Eigen::Index n_params() const { return x_.cols() + 3; }

 private:
  Matrix x_;
  Vector y_;
  Matrix k_h_;  // fixed by the data: computed once
};

// The kernel and the noise variance of a theta vector.
MixedKernel kernel_of_theta(const Vector& theta, Eigen::Index n_numeric, double& noise);

}  // namespace vpbo
