#include "gp.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>
#include <string>

namespace vpbo {
namespace {
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

void validate_extra_noise(const Vector& extra, Eigen::Index n, const char* what) {
  if (extra.size() == 0) return;
  if (extra.size() != n) {
    throw std::invalid_argument(std::string(what) + ": extra_noise must be empty or have one value per observation (" +
                                std::to_string(extra.size()) + " vs " + std::to_string(n) + ")");
  }
  if (!extra.allFinite() || extra.minCoeff() < 0.0) {
    throw std::invalid_argument(std::string(what) + ": extra_noise must be finite and >= 0");
  }
}

Matrix cholesky_lower(const Matrix& k) {
  if (!k.allFinite()) throw NumericalError("Cholesky: the kernel matrix has NaN or inf entries");
  Eigen::LLT<Matrix> llt(k);
  if (llt.info() != Eigen::Success) throw NumericalError("Cholesky: the kernel matrix is not positive definite");
  return llt.matrixL();
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

MixedGP::MixedGP(IntMatrix h, Matrix x, Vector y, MixedKernel kernel, double noise, Vector extra_noise)
    : h_(std::move(h)), x_(std::move(x)), y_(std::move(y)), kernel_(std::move(kernel)), noise_(noise),
      extra_noise_(std::move(extra_noise)) {
  validate_points(h_, x_, "MixedGP");
  validate_extra_noise(extra_noise_, x_.rows(), "MixedGP");
  if (kernel_.n_numeric() != x_.cols()) {
    throw std::invalid_argument("MixedGP: expected " + std::to_string(x_.cols()) + " lengthscales, got " +
                                std::to_string(kernel_.n_numeric()));
  }
  if (!std::isfinite(noise_) || noise_ < 0.0) throw std::invalid_argument("MixedGP: noise must be finite and >= 0");
  Matrix k = kernel_(h_, x_, h_, x_);
  k.diagonal().array() += noise_;
  if (extra_noise_.size() > 0) k.diagonal() += extra_noise_;
  lower_ = cholesky_lower(k);
  set_targets(std::move(y_));
}

void MixedGP::set_targets(Vector y) {
  if (y.size() != x_.rows()) throw std::invalid_argument("MixedGP: y must have one value per training point");
  if (!y.allFinite()) throw std::invalid_argument("MixedGP: y contains NaN or inf");
  y_ = std::move(y);
  alpha_ = lower_.triangularView<Eigen::Lower>().solve(y_);
  lower_.transpose().triangularView<Eigen::Upper>().solveInPlace(alpha_);
}

MixedGP MixedGP::extended(const IntMatrix& h_new, const Matrix& x_new, Vector y, const Vector& extra_new) const {
  validate_points(h_new, x_new, "extended");
  if (h_new.cols() != h_.cols() || x_new.cols() != x_.cols()) throw std::invalid_argument("extended: new points have the wrong number of columns");
  const Eigen::Index n = size(), m = x_new.rows();
  validate_extra_noise(extra_new, m, "extended");
  MixedGP grown = *this;
  if (extra_noise_.size() > 0 || extra_new.size() > 0) {  // zeros stand for the side that has none
    grown.extra_noise_ = Vector::Zero(n + m);
    if (extra_noise_.size() > 0) grown.extra_noise_.head(n) = extra_noise_;
    if (extra_new.size() > 0) grown.extra_noise_.tail(m) = extra_new;
  }
  grown.h_.conservativeResize(n + m, Eigen::NoChange);
  grown.h_.bottomRows(m) = h_new;
  grown.x_.conservativeResize(n + m, Eigen::NoChange);
  grown.x_.bottomRows(m) = x_new;
  Matrix cross = kernel_(h_, x_, h_new, x_new);  // n x m, becomes B = L^-1 K(X, X_new)
  if (n > 0) lower_.triangularView<Eigen::Lower>().solveInPlace(cross);
  Matrix schur = kernel_(h_new, x_new, h_new, x_new);
  schur.diagonal().array() += noise_;
  if (extra_new.size() > 0) schur.diagonal() += extra_new;
  schur.noalias() -= cross.transpose() * cross;
  grown.lower_ = Matrix::Zero(n + m, n + m);
  grown.lower_.topLeftCorner(n, n) = lower_;
  grown.lower_.bottomLeftCorner(m, n) = cross.transpose();
  grown.lower_.bottomRightCorner(m, m) = cholesky_lower(schur);
  grown.set_targets(std::move(y));
  return grown;
}

double MixedGP::variance_floor() const { return kMinRelativeVariance * kernel_.variance(); }

void MixedGP::predict(const IntMatrix& h_q, const Matrix& x_q, Vector& mean, Vector& variance) const {
  validate_points(h_q, x_q, "predict");
  if (h_q.cols() != h_.cols() || x_q.cols() != x_.cols()) throw std::invalid_argument("predict: query points have the wrong number of columns");
  const Matrix cross = kernel_(h_, x_, h_q, x_q);
  mean = cross.transpose() * alpha_;
  const Matrix v = lower_.triangularView<Eigen::Lower>().solve(cross);
  variance = (kernel_.variance() - v.colwise().squaredNorm().transpose().array()).max(variance_floor()).matrix();
}

void MixedGP::predict_with_gradient(const IntMatrix& h_q, const Vector& x_q, double& mean, double& variance,
                                    Vector& mean_gradient, Vector& variance_gradient) const {
  if (h_q.rows() != 1 || h_q.cols() != h_.cols() || x_q.size() != x_.cols()) throw std::invalid_argument("predict_with_gradient: wrong query shape");
  if (!x_q.allFinite()) throw std::invalid_argument("predict_with_gradient: x contains NaN or inf");
  Vector cross;
  Matrix cross_gradient;  // d cross_i / d x_m
  kernel_.cross_with_gradient(h_, x_, h_q, x_q, cross, cross_gradient);
  mean = cross.dot(alpha_);
  mean_gradient = cross_gradient.transpose() * alpha_;
  Vector v = lower_.triangularView<Eigen::Lower>().solve(cross);
  variance = kernel_.variance() - v.squaredNorm();
  lower_.transpose().triangularView<Eigen::Upper>().solveInPlace(v);  // v = K^-1 cross
  variance_gradient = -2.0 * cross_gradient.transpose() * v;
  if (variance < variance_floor()) {
    variance = variance_floor();
    variance_gradient.setZero();
  }
}

}  // namespace vpbo
