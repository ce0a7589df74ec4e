// Negative log marginal likelihood of the mixed-kernel GP and its analytic gradient
// (Rasmussen & Williams 2006, eq. 2.30 and 5.9), for a hyperparameter optimiser to minimise.
// The kernel supplies its own part of the gradient (MixedKernel::trace_gradient); this file adds
// the noise and the data fit.
//
// Its argument is the hyperparameter vector theta of hyperparameter_layout.hpp.
#pragma once

#include "kernel.hpp"

namespace vpbo {

class LikelihoodEvaluator {
 public:
  // extra_noise: empty, or a fixed extra noise variance per observation (MixedGP's), on the
  // diagonal beside the fitted noise; it is data, not a hyperparameter.
  LikelihoodEvaluator(const IntMatrix& h, const Matrix& x, const Vector& y, const Vector& extra_noise = Vector());

  // Returns the negative log marginal likelihood; writes its gradient w.r.t. theta. Throws
  // NumericalError when K + noise I + diag(extra) cannot be factorised.
  double negative_log_likelihood(const Vector& theta, Vector& gradient) const;

  const HyperparameterLayout& layout() const { return layout_; }
  Eigen::Index n_params() const { return layout_.size(); }

 private:
  Matrix x_;
  Vector y_;
  Vector extra_noise_;
  HyperparameterLayout layout_;
  Matrix k_h_;  // the overlap block: fixed by the data (no hyperparameter), computed once
};

// The kernel and the noise variance of a theta of the given layout (lambda clipped to [0, 1]).
// Throws std::invalid_argument on a theta of another size or with NaN or inf.
MixedKernel kernel_of_theta(const Vector& theta, const HyperparameterLayout& layout, double& noise);

}  // namespace vpbo
