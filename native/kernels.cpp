#include "kernels.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace vpbo {
namespace {
const double kSqrt5 = std::sqrt(5.0);
}

Matrix overlap_kernel(const IntMatrix& a, const IntMatrix& b) {
  const Eigen::Index k = a.cols();
  if (b.cols() != k) throw std::invalid_argument("overlap_kernel: the two sets have different numbers of categorical variables");
  if (k == 0) return Matrix::Ones(a.rows(), b.rows());
  Matrix out(a.rows(), b.rows());
  const double scale = 1.0 / static_cast<double>(k);
  for (Eigen::Index j = 0; j < b.rows(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      int agree = 0;
      for (Eigen::Index v = 0; v < k; ++v) agree += (a(i, v) == b(j, v));
      out(i, j) = scale * agree;
    }
  }
  return out;
}

double matern52_of_distance(double r) {
  const double s = kSqrt5 * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

Matrix matern52(const Matrix& a, const Matrix& b, const Vector& lengthscales) {
  const Eigen::Index d = a.cols();
  if (b.cols() != d || lengthscales.size() != d) throw std::invalid_argument("matern52: dimension mismatch");
  const Matrix as = a * lengthscales.cwiseInverse().asDiagonal();
  const Matrix bs = b * lengthscales.cwiseInverse().asDiagonal();
  // Squared distances through the Gram matrix (one GEMM), clamped at 0 against round-off.
  Matrix sq = (-2.0 * as * bs.transpose()).eval();
  sq.colwise() += as.rowwise().squaredNorm();
  sq.rowwise() += bs.rowwise().squaredNorm().transpose();
  return sq.unaryExpr([](double s2) { return matern52_of_distance(std::sqrt(std::max(s2, 0.0))); });
}

Matrix mix_kernels(const Matrix& k_h, const Matrix& k_x, const KernelParams& params) {
  const double w_sum = params.variance * (1.0 - params.lambda) / 2.0;
  const double w_prod = params.variance * params.lambda;
  return (w_sum * (k_h + k_x).array() + w_prod * k_h.array() * k_x.array()).matrix();
}

void validate_kernel_params(const KernelParams& params, Eigen::Index n_numeric) {
  if (params.lengthscales.size() != n_numeric) {
    throw std::invalid_argument("kernel: expected " + std::to_string(n_numeric) + " lengthscales, got " +
                                std::to_string(params.lengthscales.size()));
  }
  if (!params.lengthscales.allFinite() || (params.lengthscales.array() <= 0.0).any()) {
    throw std::invalid_argument("kernel: lengthscales must be finite and positive");
  }
  if (!std::isfinite(params.variance) || params.variance <= 0.0) {
    throw std::invalid_argument("kernel: variance must be finite and positive");
  }
  if (!(params.lambda >= 0.0 && params.lambda <= 1.0)) {
    throw std::invalid_argument("kernel: lambda must lie in [0, 1]");
  }
}

}  // namespace vpbo
