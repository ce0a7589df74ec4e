#include "likelihood.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>

#include "gp.hpp"

namespace vpbo {
namespace {
const double kSqrt5 = std::sqrt(5.0);
const double kLog2Pi = std::log(2.0 * M_PI);
}  // namespace

void unpack_theta(const Vector& theta, Eigen::Index n_numeric, KernelParams& params, double& noise) {
  if (theta.size() != n_numeric + 3) throw std::invalid_argument("theta must have n_numeric + 3 entries");
  if (!theta.allFinite()) throw std::invalid_argument("theta contains NaN or inf");
  params.lengthscales = theta.head(n_numeric).array().exp();
  params.variance = std::exp(theta(n_numeric));
  noise = std::exp(theta(n_numeric + 1));
  params.lambda = std::min(1.0, std::max(0.0, theta(n_numeric + 2)));
}

LikelihoodEvaluator::LikelihoodEvaluator(const IntMatrix& h, const Matrix& x, const Vector& y)
    : x_(x), y_(y), k_h_(overlap_kernel(h, h)) {
  validate_points(h, x, "likelihood");
  if (y.size() != x.rows()) throw std::invalid_argument("likelihood: y must have one value per point");
  if (!y.allFinite()) throw std::invalid_argument("likelihood: y contains NaN or inf");
  if (x.rows() == 0) throw std::invalid_argument("likelihood: needs at least one observation");
}

double LikelihoodEvaluator::negative_log_likelihood(const Vector& theta, Vector& gradient) const {
  const Eigen::Index n = x_.rows(), d = x_.cols();
  KernelParams params;
  double noise = 0.0;
  unpack_theta(theta, d, params, noise);

  // Scaled inputs give r directly; the Matern block and its radial derivative share it.
  const Matrix xs = x_ * params.lengthscales.cwiseInverse().asDiagonal();
  Matrix r = (-2.0 * xs * xs.transpose()).eval();
  r.colwise() += xs.rowwise().squaredNorm();
  r.rowwise() += xs.rowwise().squaredNorm().transpose();
  r = r.cwiseMax(0.0).cwiseSqrt();
  const Matrix k_x = r.unaryExpr([](double v) { return matern52_of_distance(v); });

  Matrix k = mix_kernels(k_h_, k_x, params);
  const Matrix k_signal = k;
  k.diagonal().array() += noise;
  Matrix lower;
  robust_cholesky(k, params.variance, lower);  // jitter, if any, counts as noise here
  const auto tri = lower.triangularView<Eigen::Lower>();
  Vector alpha = tri.solve(y_);
  const double data_fit = alpha.squaredNorm();
  lower.transpose().triangularView<Eigen::Upper>().solveInPlace(alpha);
  const double nll = 0.5 * data_fit + lower.diagonal().array().log().sum() + 0.5 * n * kLog2Pi;

  // d nll / d theta_p = 1/2 tr(W dK/dtheta_p), W = K^-1 - alpha alpha^T.
  Matrix w = inverse_from_cholesky(lower);
  w.noalias() -= alpha * alpha.transpose();

  gradient.resize(d + 3);
  gradient(d) = 0.5 * w.cwiseProduct(k_signal).sum();
  gradient(d + 1) = 0.5 * noise * w.trace();
  const Matrix dk_dlambda = params.variance * ((-0.5) * (k_h_ + k_x).array() + k_h_.array() * k_x.array());
  gradient(d + 2) = 0.5 * w.cwiseProduct(dk_dlambda).sum();
  if (d > 0) {
    // dK/dlog l_m = variance [(1 - lambda)/2 + lambda k_h] (5/3)(1 + sqrt5 r) e^{-sqrt5 r} (xs_im - xs_jm)^2,
    // and sum_ij M_ij (a_i - a_j)^2 = 2 sum_i a_i^2 (M 1)_i - 2 a^T M a for symmetric M.
    const Matrix radial = r.unaryExpr([](double v) { return (5.0 / 3.0) * (1.0 + kSqrt5 * v) * std::exp(-kSqrt5 * v); });
    const Matrix m = 0.5 * (w.array() * radial.array() *
                            (params.variance * ((1.0 - params.lambda) / 2.0 + params.lambda * k_h_.array())));
    const Vector row_sums = m.rowwise().sum();
    const Matrix mxs = m * xs;
    for (Eigen::Index j = 0; j < d; ++j) {
      gradient(j) = 2.0 * xs.col(j).array().square().matrix().dot(row_sums) - 2.0 * xs.col(j).dot(mxs.col(j));
    }
  }
  return nll;
}

}  // namespace vpbo
