// MixedGP: exact GP regression with the mixed kernel (kernels.hpp) for fixed hyperparameters.
// Rasmussen & Williams (2006), Algorithm 2.1: Cholesky of K + noise I, alpha = K^-1 y, and the
// batched posterior mean and variance of the latent function.
#pragma once

#include "kernels.hpp"

namespace vpbo {

// Checks shapes and finiteness of training or query data; throws std::invalid_argument.
void validate_points(const IntMatrix& h, const Matrix& x, const char* what);

// Cholesky factor of a symmetric matrix, adding jitter (1e-10, 1e-9, ... up to 1e-2 times
// `scale`) to the diagonal when the plain factorisation fails. Returns the jitter used; throws
// std::runtime_error when even the largest jitter fails (for example on non-finite entries).
double robust_cholesky(const Matrix& k, double scale, Matrix& lower);

// K^-1 from the Cholesky factor L of K: the triangular inverse L^-1 by recursive halving (as
// LAPACK's dtrtri), then L^-T L^-1 as one symmetric rank update. Both run as matrix products
// (n^3 / 3 + n^3 flops at GEMM speed) rather than two triangular solves with the identity.
Matrix inverse_from_cholesky(const Matrix& lower);

class MixedGP {
 public:
  // h: n x k categorical codes, x: n x d numeric part, y: n targets; noise: noise variance.
  MixedGP(IntMatrix h, Matrix x, Vector y, KernelParams params, double noise);

  // Posterior mean and latent variance (noise excluded) at m query points.
  void predict(const IntMatrix& hq, const Matrix& xq, Vector& mean, Vector& variance) const;

  // Mean and variance at one point, with their gradients w.r.t. the numeric part x.
  void predict_with_gradient(const IntMatrix& hq, const Vector& xq, double& mean, double& variance,
                             Vector& mean_grad, Vector& variance_grad) const;

  // Cross-covariance block k(training, queries) and solves with the Cholesky factor, for the
  // value proposals, which assemble them from shared pieces.
  const Matrix& cholesky_lower() const { return lower_; }
  const Vector& alpha() const { return alpha_; }
  const IntMatrix& h() const { return h_; }
  const Matrix& x() const { return x_; }
  const KernelParams& params() const { return params_; }
  double noise() const { return noise_; }
  double jitter() const { return jitter_; }
  Eigen::Index size() const { return x_.rows(); }

 private:
  IntMatrix h_;
  Matrix x_;
  Vector y_;
  KernelParams params_;
  double noise_;
  double jitter_ = 0.0;
  Matrix lower_;
  Vector alpha_;
};

}  // namespace vpbo
