#include "gp.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vpbo {
namespace {
const double kSqrt5 = std::sqrt(5.0);
const double kFirstJitter = 1e-10;
const double kLastJitter = 1e-2;
// Latent variances below this fraction of the prior variance are round-off, not information.
const double kMinRelativeVariance = 1e-12;
// Triangular blocks up to this size are inverted by substitution; larger ones are halved.
const Eigen::Index kDirectInverseSize = 64;

// In place: a lower-triangular block becomes its inverse. With L = [A 0; B C],
// L^-1 = [A^-1 0; -C^-1 B A^-1  C^-1].
void invert_lower_in_place(Eigen::Ref<Matrix> lower) {
  const Eigen::Index n = lower.rows();
  if (n <= kDirectInverseSize) {
    Matrix inverse = Matrix::Identity(n, n);
    lower.triangularView<Eigen::Lower>().solveInPlace(inverse);
    lower.triangularView<Eigen::Lower>() = inverse;
    return;
  }
  const Eigen::Index half = n / 2, rest = n - half;
  invert_lower_in_place(lower.topLeftCorner(half, half));
  invert_lower_in_place(lower.bottomRightCorner(rest, rest));
  const Matrix b_times_a = lower.bottomLeftCorner(rest, half) * lower.topLeftCorner(half, half).triangularView<Eigen::Lower>();
  lower.bottomLeftCorner(rest, half).noalias() = -(lower.bottomRightCorner(rest, rest).triangularView<Eigen::Lower>() * b_times_a);
}
}  // namespace

void validate_points(const IntMatrix& h, const Matrix& x, const char* what) {
  if (h.rows() != x.rows()) {
    throw std::invalid_argument(std::string(what) + ": categorical and numeric parts have different numbers of rows (" +
                                std::to_string(h.rows()) + " vs " + std::to_string(x.rows()) + ")");
  }
  if (!x.allFinite()) throw std::invalid_argument(std::string(what) + ": numeric part contains NaN or inf");
  if (h.size() > 0 && h.minCoeff() < 0) throw std::invalid_argument(std::string(what) + ": categorical codes must be >= 0");
}

double robust_cholesky(const Matrix& k, double scale, Matrix& lower) {
  if (!k.allFinite()) throw std::runtime_error("Cholesky: the kernel matrix has NaN or inf entries");
  const Eigen::Index n = k.rows();
  Eigen::LLT<Matrix> llt(k);
  if (llt.info() == Eigen::Success) {
    lower = llt.matrixL();
    return 0.0;
  }
  for (double jitter = kFirstJitter; jitter <= kLastJitter * 1.0001; jitter *= 10.0) {
    llt.compute(k + Matrix::Identity(n, n) * (jitter * scale));
    if (llt.info() == Eigen::Success) {
      lower = llt.matrixL();
      return jitter * scale;
    }
  }
  throw std::runtime_error("Cholesky: the kernel matrix is not positive definite even with jitter 1e-2 * variance");
}

Matrix inverse_from_cholesky(const Matrix& lower) {
  Matrix inverse_lower = lower;
  invert_lower_in_place(inverse_lower);
  inverse_lower.triangularView<Eigen::StrictlyUpper>().setZero();
  Matrix inverse = Matrix::Zero(lower.rows(), lower.cols());
  inverse.selfadjointView<Eigen::Lower>().rankUpdate(inverse_lower.transpose());
  inverse.triangularView<Eigen::StrictlyUpper>() = inverse.transpose();
  return inverse;
}

MixedGP::MixedGP(IntMatrix h, Matrix x, Vector y, KernelParams params, double noise)
    : h_(std::move(h)), x_(std::move(x)), y_(std::move(y)), params_(std::move(params)), noise_(noise) {
  validate_points(h_, x_, "MixedGP");
  validate_kernel_params(params_, x_.cols());
  if (y_.size() != x_.rows()) throw std::invalid_argument("MixedGP: y must have one value per training point");
  if (!y_.allFinite()) throw std::invalid_argument("MixedGP: y contains NaN or inf");
  if (!std::isfinite(noise_) || noise_ < 0.0) throw std::invalid_argument("MixedGP: noise must be finite and >= 0");
  Matrix k = mix_kernels(overlap_kernel(h_, h_), matern52(x_, x_, params_.lengthscales), params_);
  k.diagonal().array() += noise_;
  jitter_ = robust_cholesky(k, params_.variance, lower_);
  alpha_ = lower_.triangularView<Eigen::Lower>().solve(y_);
  lower_.transpose().triangularView<Eigen::Upper>().solveInPlace(alpha_);
}

void MixedGP::predict(const IntMatrix& hq, const Matrix& xq, Vector& mean, Vector& variance) const {
  validate_points(hq, xq, "predict");
  if (hq.cols() != h_.cols() || xq.cols() != x_.cols()) throw std::invalid_argument("predict: query points have the wrong number of columns");
  const Matrix cross = mix_kernels(overlap_kernel(h_, hq), matern52(x_, xq, params_.lengthscales), params_);
  mean = cross.transpose() * alpha_;
  const Matrix v = lower_.triangularView<Eigen::Lower>().solve(cross);
  const double floor = kMinRelativeVariance * params_.variance;
  variance = (params_.variance - v.colwise().squaredNorm().transpose().array()).max(floor).matrix();
}

void MixedGP::predict_with_gradient(const IntMatrix& hq, const Vector& xq, double& mean, double& variance,
                                    Vector& mean_grad, Vector& variance_grad) const {
  const Eigen::Index n = x_.rows(), d = x_.cols();
  if (hq.rows() != 1 || hq.cols() != h_.cols() || xq.size() != d) throw std::invalid_argument("predict_with_gradient: wrong query shape");
  if (!xq.allFinite()) throw std::invalid_argument("predict_with_gradient: x contains NaN or inf");
  const Vector kh = overlap_kernel(h_, hq).col(0);
  const Vector inv_ls2 = params_.lengthscales.array().square().inverse();
  Vector cross(n);
  Matrix cross_grad(n, d);  // d cross_i / d x_m
  const double w_sum = params_.variance * (1.0 - params_.lambda) / 2.0;
  const double w_prod = params_.variance * params_.lambda;
  for (Eigen::Index i = 0; i < n; ++i) {
    const Vector diff = xq - x_.row(i).transpose();
    const double r = std::sqrt(diff.cwiseProduct(diff).dot(inv_ls2));
    const double kx = matern52_of_distance(r);
    // d k_x / d x_m = -(5/3) (1 + sqrt5 r) exp(-sqrt5 r) (x_m - x_im) / l_m^2
    const double radial = -(5.0 / 3.0) * (1.0 + kSqrt5 * r) * std::exp(-kSqrt5 * r);
    const double weight = w_sum + w_prod * kh(i);
    cross(i) = w_sum * (kh(i) + kx) + w_prod * kh(i) * kx;
    cross_grad.row(i) = (weight * radial) * diff.cwiseProduct(inv_ls2).transpose();
  }
  mean = cross.dot(alpha_);
  mean_grad = cross_grad.transpose() * alpha_;
  Vector v = lower_.triangularView<Eigen::Lower>().solve(cross);
  variance = params_.variance - v.squaredNorm();
  lower_.transpose().triangularView<Eigen::Upper>().solveInPlace(v);  // v = K^-1 cross
  variance_grad = -2.0 * cross_grad.transpose() * v;
  const double floor = kMinRelativeVariance * params_.variance;
  if (variance < floor) {
    variance = floor;
    variance_grad.setZero();
  }
}

}  // namespace vpbo
