// MixedGP: exact GP regression with the mixed kernel (kernel.hpp) for fixed hyperparameters.
// Rasmussen & Williams (2006), Algorithm 2.1: Cholesky of K + noise I + diag(extra), alpha =
// K^-1 y, and the batched posterior mean and variance of the latent function. `extra` is an
// optional per-observation noise variance on top of the shared one (an observation known less
// well than the others, e.g. a pruned trial's imputed final value); empty means none, and then
// no arithmetic differs from the GP without it.
#pragma once

#include "kernel.hpp"

namespace vpbo {

// Checks shapes and finiteness of training or query data; throws std::invalid_argument.
void validate_points(const IntMatrix& h, const Matrix& x, const char* what);

// Checks a per-observation extra noise vector: empty, or one finite value >= 0 per observation.
void validate_extra_noise(const Vector& extra, Eigen::Index n, const char* what);

// The lower Cholesky factor of a symmetric matrix. No jitter is added: the noise variance (whose
// lower bound is the fit's noise floor) is the only regulariser, so the likelihood stays a
// continuous function of it. Throws NumericalError when the factorisation fails.
Matrix cholesky_lower(const Matrix& k);

// K^-1 from the Cholesky factor L of K: the triangular inverse L^-1 by recursive halving (as
// LAPACK's dtrtri), then L^-T L^-1 as one symmetric rank update. Both run as matrix products
// (n^3 / 3 + n^3 flops at GEMM speed) rather than two triangular solves with the identity.
Matrix inverse_from_cholesky(const Matrix& lower);

class MixedGP {
 public:
  // h: n x k categorical codes, x: n x d numeric part, y: n targets; noise: noise variance;
  // extra_noise: empty, or n extra noise variances (>= 0) added to the diagonal.
  MixedGP(IntMatrix h, Matrix x, Vector y, MixedKernel kernel, double noise, Vector extra_noise = Vector());

  // The GP on these training points followed by (h_new, x_new), with targets y for all of them
  // (this GP's points first), same kernel and noise; extra_new: empty (none) or the new points'
  // extra noise variances. The Cholesky factor grows by the new rows, L' = [L 0; B^T C] with
  // B = L^-1 K(X, X_new) and C C^T = K(X_new, X_new) + noise I + diag(extra_new) - B^T B
  // (Golub & Van Loan 2013, sec. 4.2): O(n^2 m) instead of a new O(n^3) factorisation.
  MixedGP extended(const IntMatrix& h_new, const Matrix& x_new, Vector y, const Vector& extra_new = Vector()) const;

  // Posterior mean and latent variance (noise excluded) at m query points.
  void predict(const IntMatrix& h_q, const Matrix& x_q, Vector& mean, Vector& variance) const;

  // Mean and variance at one point, with their gradients w.r.t. the numeric part x.
  void predict_with_gradient(const IntMatrix& h_q, const Vector& x_q, double& mean, double& variance,
                             Vector& mean_gradient, Vector& variance_gradient) const;

  // Latent variances below this are round-off, not information.
  double variance_floor() const;

  const Matrix& cholesky_factor() const { return lower_; }
  const Vector& alpha() const { return alpha_; }
  const IntMatrix& h() const { return h_; }
  const Matrix& x() const { return x_; }
  const MixedKernel& kernel() const { return kernel_; }
  double noise() const { return noise_; }
  // Empty when no observation has extra noise.
  const Vector& extra_noise() const { return extra_noise_; }
  Eigen::Index size() const { return x_.rows(); }

 private:
  // Checks y against the training points and solves alpha = K^-1 y with the factor.
  void set_targets(Vector y);

  IntMatrix h_;
  Matrix x_;
  Vector y_;
  MixedKernel kernel_;
  double noise_;
  Vector extra_noise_;
  Matrix lower_;
  Vector alpha_;
};

}  // namespace vpbo
