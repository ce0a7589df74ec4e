#include "kernel.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace vpbo {
namespace {
const double kSqrt5 = std::sqrt(5.0);

// Scaled distances between the rows of two point sets already divided by the lengthscales,
// through the Gram matrix (one GEMM), clamped at 0 against round-off.
Matrix scaled_distances(const Matrix& as, const Matrix& bs) {
  Matrix sq = (-2.0 * as * bs.transpose()).eval();
  sq.colwise() += as.rowwise().squaredNorm();
  sq.rowwise() += bs.rowwise().squaredNorm().transpose();
  return sq.cwiseMax(0.0).cwiseSqrt();
}
}  // namespace

double matern52(double r) {
  const double s = kSqrt5 * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

double matern52_radial(double r) { return (5.0 / 3.0) * (1.0 + kSqrt5 * r) * std::exp(-kSqrt5 * r); }

double overlap_weight(Eigen::Index k, double scale) { return k == 0 ? 0.0 : scale / static_cast<double>(k); }

Matrix overlap(const IntMatrix& a, const IntMatrix& b) {
  const Eigen::Index k = a.cols();
  if (b.cols() != k) throw std::invalid_argument("overlap: the two sets have different numbers of categorical variables");
  if (k == 0) return Matrix::Ones(a.rows(), b.rows());
  const double weight = overlap_weight(k);
  Matrix out(a.rows(), b.rows());
  for (Eigen::Index j = 0; j < b.rows(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      int agree = 0;  // the count times 1/k
      for (Eigen::Index v = 0; v < k; ++v) agree += (a(i, v) == b(j, v));
      out(i, j) = weight * agree;
    }
  }
  return out;
}

MixedKernel::MixedKernel(Vector lengthscales, double variance, double lambda)
    : lengthscales_(std::move(lengthscales)), variance_(variance), lambda_(lambda) {
  if (!lengthscales_.allFinite() || (lengthscales_.array() <= 0.0).any()) {
    throw std::invalid_argument("kernel: lengthscales must be finite and positive");
  }
  if (!std::isfinite(variance_) || variance_ <= 0.0) throw std::invalid_argument("kernel: variance must be finite and positive");
  if (!(lambda_ >= 0.0 && lambda_ <= 1.0)) throw std::invalid_argument("kernel: lambda must lie in [0, 1]");
}

Matrix MixedKernel::matern(const Matrix& a, const Matrix& b) const {
  if (a.cols() != n_numeric() || b.cols() != n_numeric()) {
    throw std::invalid_argument("kernel: expected points with " + std::to_string(n_numeric()) + " numeric dimensions");
  }
  const Vector inverse = lengthscales_.cwiseInverse();
  return scaled_distances(a * inverse.asDiagonal(), b * inverse.asDiagonal()).unaryExpr([](double r) { return matern52(r); });
}

Matrix MixedKernel::mix(const Matrix& k_h, const Matrix& k_x) const {
  return (sum_weight() * (k_h + k_x).array() + product_weight() * k_h.array() * k_x.array()).matrix();
}

Matrix MixedKernel::operator()(const IntMatrix& h_a, const Matrix& x_a, const IntMatrix& h_b, const Matrix& x_b) const {
  return mix(overlap(h_a, h_b), matern(x_a, x_b));
}

void MixedKernel::cross_with_gradient(const IntMatrix& h, const Matrix& x, const IntMatrix& h_q, const Vector& x_q,
                                      Vector& cross, Matrix& cross_gradient) const {
  const Eigen::Index n = x.rows(), d = x.cols();
  const Vector k_h = overlap(h, h_q).col(0);
  const Vector inverse_squared = lengthscales_.array().square().inverse();
  const double w_sum = sum_weight(), w_product = product_weight();
  cross.resize(n);
  cross_gradient.resize(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vector difference = x_q - x.row(i).transpose();
    const double r = std::sqrt(difference.cwiseProduct(difference).dot(inverse_squared));
    const double k_x = matern52(r);
    cross(i) = w_sum * (k_h(i) + k_x) + w_product * k_h(i) * k_x;
    const double weight = w_sum + w_product * k_h(i);  // d k / d k_x
    cross_gradient.row(i) = (weight * -matern52_radial(r)) * difference.cwiseProduct(inverse_squared).transpose();
  }
}

TrainingBlocks MixedKernel::training_blocks(const Matrix& k_h, const Matrix& x) const {
  TrainingBlocks blocks;
  blocks.scaled_x = x * lengthscales_.cwiseInverse().asDiagonal();
  blocks.distance = scaled_distances(blocks.scaled_x, blocks.scaled_x);
  blocks.k_x = blocks.distance.unaryExpr([](double r) { return matern52(r); });
  blocks.signal = mix(k_h, blocks.k_x);
  return blocks;
}

Vector MixedKernel::trace_gradient(const Matrix& w, const Matrix& k_h, const TrainingBlocks& blocks) const {
  const HyperparameterLayout theta = layout();
  const Eigen::Index d = theta.n_numeric();
  Vector gradient = Vector::Zero(theta.size());
  gradient(theta.log_variance()) = 0.5 * w.cwiseProduct(blocks.signal).sum();
  const Matrix d_lambda = variance_ * ((-0.5) * (k_h + blocks.k_x).array() + k_h.array() * blocks.k_x.array());
  gradient(theta.lambda()) = 0.5 * w.cwiseProduct(d_lambda).sum();
  if (d == 0) return gradient;
  // dK/dlog l_m = variance [(1 - lambda)/2 + lambda k_h] matern52_radial(r) (xs_im - xs_jm)^2,
  // and sum_ij M_ij (a_i - a_j)^2 = 2 sum_i a_i^2 (M 1)_i - 2 a^T M a for symmetric M.
  const Matrix radial = blocks.distance.unaryExpr([](double r) { return matern52_radial(r); });
  const Matrix m = 0.5 * (w.array() * radial.array() * (variance_ * ((1.0 - lambda_) / 2.0 + lambda_ * k_h.array())));
  const Vector row_sums = m.rowwise().sum();
  const Matrix m_xs = m * blocks.scaled_x;
  for (Eigen::Index j = 0; j < d; ++j) {
    gradient(theta.log_lengthscales() + j) = 2.0 * blocks.scaled_x.col(j).array().square().matrix().dot(row_sums) - 2.0 * blocks.scaled_x.col(j).dot(m_xs.col(j));
  }
  return gradient;
}

}  // namespace vpbo
