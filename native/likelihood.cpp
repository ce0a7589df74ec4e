#include "likelihood.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "gp.hpp"

namespace vpbo {
namespace {
const double kLog2Pi = std::log(2.0 * M_PI);
}  // namespace

MixedKernel kernel_of_theta(const Vector& theta, const HyperparameterLayout& layout, double& noise) {
  layout.check_size(theta.size());
  if (!theta.allFinite()) throw std::invalid_argument("theta contains NaN or inf");
  noise = std::exp(theta(layout.log_noise()));
  const double lambda = std::min(1.0, std::max(0.0, theta(layout.lambda())));
  return MixedKernel(theta.segment(layout.log_lengthscales(), layout.n_numeric()).array().exp(),
                     std::exp(theta(layout.log_variance())), lambda);
}

LikelihoodEvaluator::LikelihoodEvaluator(const IntMatrix& h, const Matrix& x, const Vector& y, const Vector& extra_noise)
    : x_(x), y_(y), extra_noise_(extra_noise), layout_(x.cols()) {
  validate_points(h, x, "likelihood");
  validate_extra_noise(extra_noise_, x.rows(), "likelihood");
  k_h_ = overlap(h, h);
  if (y.size() != x.rows()) throw std::invalid_argument("likelihood: y must have one value per point");
  if (!y.allFinite()) throw std::invalid_argument("likelihood: y contains NaN or inf");
  if (x.rows() == 0) throw std::invalid_argument("likelihood: needs at least one observation");
}

double LikelihoodEvaluator::negative_log_likelihood(const Vector& theta, Vector& gradient) const {
  const Eigen::Index n = x_.rows();
  double noise = 0.0;
  const MixedKernel kernel = kernel_of_theta(theta, layout_, noise);
  const TrainingBlocks blocks = kernel.training_blocks(k_h_, x_);
  Matrix k = blocks.signal;
  k.diagonal().array() += noise;
  if (extra_noise_.size() > 0) k.diagonal() += extra_noise_;
  const Matrix lower = cholesky_lower(k);
  Vector alpha = lower.triangularView<Eigen::Lower>().solve(y_);
  const double data_fit = alpha.squaredNorm();
  lower.transpose().triangularView<Eigen::Upper>().solveInPlace(alpha);
  const double nll = 0.5 * data_fit + lower.diagonal().array().log().sum() + 0.5 * n * kLog2Pi;

  // d nll / d theta_p = 1/2 tr(W dK/dtheta_p), W = K^-1 - alpha alpha^T; d K / d log noise =
  // noise I (the extra noise is fixed).
  Matrix w = inverse_from_cholesky(lower);
  w.noalias() -= alpha * alpha.transpose();
  gradient = kernel.trace_gradient(w, k_h_, blocks);  // theta's layout, the log noise entry 0
  gradient(layout_.log_noise()) = 0.5 * noise * w.trace();
  return nll;
}

}  // namespace vpbo
