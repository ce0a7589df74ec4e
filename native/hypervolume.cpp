#include "hypervolume.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "normal.hpp"

namespace vpbo {
namespace {
const double kInfinity = std::numeric_limits<double>::infinity();
// Below this width (in posterior standard deviations) a factor psi(l) - psi(u) loses digits to
// cancellation; there it is the integral of Phi((m - t) / s) over [l, u] by the midpoint rule,
// whose relative error (of order (width / s)^2 / 24) is far smaller.
const double kNarrowWidth = 1e-4;

void validate_boxes(const BoxDecomposition& boxes, std::size_t n_objectives) {
  if (boxes.edges.size() != n_objectives || boxes.cells.size() != n_objectives ||
      static_cast<std::size_t>(boxes.box_cells.cols()) != n_objectives) {
    throw std::invalid_argument("log EHVI: the boxes must have one set of edges and cells per objective");
  }
  for (std::size_t j = 0; j < n_objectives; ++j) {
    const Vector& edges = boxes.edges[j];
    const IntMatrix& cells = boxes.cells[j];
    if (edges.size() < 2 || cells.cols() != 2) throw std::invalid_argument("log EHVI: each objective needs >= 2 edges and cells of 2 indices");
    if (cells.size() > 0 && (cells.minCoeff() < 0 || cells.maxCoeff() >= edges.size())) throw std::invalid_argument("log EHVI: a cell indexes outside the edges");
    for (Eigen::Index c = 0; c < cells.rows(); ++c) {
      if (!(edges(cells(c, 0)) < edges(cells(c, 1))) || !std::isfinite(edges(cells(c, 0)))) throw std::invalid_argument("log EHVI: each cell needs a finite lower edge below its upper edge");
    }
    const auto column = boxes.box_cells.col(j);
    if (column.size() > 0 && (column.minCoeff() < 0 || column.maxCoeff() >= cells.rows())) throw std::invalid_argument("log EHVI: a box indexes outside the cells");
  }
}

// log psi(a) = log s + log h((m - a) / s) and its derivatives d psi / dm = Phi(z),
// d psi / ds = phi(z), in log form; -inf at a = +inf.
struct LogPsi {
  double value, log_d_mean, log_d_sd;
};

LogPsi log_psi(double edge, double mean, double sd) {
  if (edge == kInfinity) return {-kInfinity, -kInfinity, -kInfinity};
  const double z = (mean - edge) / sd;
  return {std::log(sd) + log_h(z), log_ndtr(z), log_phi(z)};
}
}  // namespace

LogExpectedHypervolumeImprovement::LogExpectedHypervolumeImprovement(std::vector<ModelPtr> objectives, BoxDecomposition boxes)
    : Acquisition(std::move(objectives)), boxes_(std::move(boxes)) {
  validate_boxes(boxes_, models().size());
  if (boxes_.box_cells.rows() == 0) throw std::invalid_argument("log EHVI: needs at least one box");
}

void LogExpectedHypervolumeImprovement::cell_factors(Eigen::Index j, double mean, double sd, Vector& factor, Vector* d_mean,
                                                     Vector* d_sd) const {
  const Vector& edges = boxes_.edges[j];
  const IntMatrix& cells = boxes_.cells[j];
  std::vector<LogPsi> psi(edges.size());
  for (Eigen::Index e = 0; e < edges.size(); ++e) psi[e] = log_psi(edges(e), mean, sd);
  factor.resize(cells.rows());
  if (d_mean != nullptr) d_mean->resize(cells.rows()), d_sd->resize(cells.rows());
  for (Eigen::Index c = 0; c < cells.rows(); ++c) {
    const double lower = edges(cells(c, 0)), upper = edges(cells(c, 1));
    const LogPsi& l = psi[cells(c, 0)];
    const LogPsi& u = psi[cells(c, 1)];
    if (upper - lower < kNarrowWidth * sd) {
      const double z = (mean - 0.5 * (lower + upper)) / sd;
      const double log_cdf = log_ndtr(z);
      factor(c) = std::log(upper - lower) + log_cdf;
      if (d_mean == nullptr) continue;
      const double mills = std::exp(log_phi(z) - log_cdf) / sd;  // d factor / dm
      (*d_mean)(c) = mills;
      (*d_sd)(c) = -z * mills;
      continue;
    }
    factor(c) = l.value + log1mexp(u.value - l.value);
    if (d_mean == nullptr) continue;
    // d/dm log(psi_l - psi_u) = (Phi(z_l) - Phi(z_u)) / (psi_l - psi_u), z_u < z_l.
    const double log_cdf_difference = l.log_d_mean + log1mexp(u.log_d_mean - l.log_d_mean);
    (*d_mean)(c) = std::exp(log_cdf_difference - factor(c));
    (*d_sd)(c) = std::exp(l.log_d_sd - factor(c)) - std::exp(u.log_d_sd - factor(c));
  }
}

double LogExpectedHypervolumeImprovement::evaluate(const double* mean, const double* sd, double* d_mean, double* d_sd) const {
  const Eigen::Index n_objectives = boxes_.box_cells.cols(), n_boxes = boxes_.box_cells.rows();
  const bool with_derivatives = d_mean != nullptr;
  std::vector<Vector> factor(n_objectives), factor_d_mean(n_objectives), factor_d_sd(n_objectives);
  for (Eigen::Index j = 0; j < n_objectives; ++j) {
    cell_factors(j, mean[j], sd[j], factor[j], with_derivatives ? &factor_d_mean[j] : nullptr,
                 with_derivatives ? &factor_d_sd[j] : nullptr);
  }
  Vector total = Vector::Zero(n_boxes);
  for (Eigen::Index b = 0; b < n_boxes; ++b) {
    for (Eigen::Index j = 0; j < n_objectives; ++j) total(b) += factor[j](boxes_.box_cells(b, j));
  }
  const double peak = total.maxCoeff();
  if (!std::isfinite(peak)) return peak;
  const Vector weight = (total.array() - peak).exp();  // softmax numerators of the logsumexp
  const double log_sum = peak + std::log(weight.sum());
  if (!with_derivatives) return log_sum;
  for (Eigen::Index j = 0; j < n_objectives; ++j) {
    d_mean[j] = d_sd[j] = 0.0;
    for (Eigen::Index b = 0; b < n_boxes; ++b) {
      const double share = weight(b) * std::exp(peak - log_sum);
      d_mean[j] += share * factor_d_mean[j](boxes_.box_cells(b, j));
      d_sd[j] += share * factor_d_sd[j](boxes_.box_cells(b, j));
    }
  }
  return log_sum;
}

double LogExpectedHypervolumeImprovement::value(const double* mean, const double* variance) const {
  std::vector<double> sd(models().size());
  for (std::size_t j = 0; j < sd.size(); ++j) sd[j] = std::sqrt(variance[j]);
  return evaluate(mean, sd.data(), nullptr, nullptr);
}

double LogExpectedHypervolumeImprovement::value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const {
  const std::size_t n_objectives = models().size();
  std::vector<double> mean(n_objectives), sd(n_objectives), d_mean(n_objectives), d_sd(n_objectives);
  for (std::size_t j = 0; j < n_objectives; ++j) {
    mean[j] = posteriors[j].mean;
    sd[j] = std::sqrt(posteriors[j].variance);
  }
  const double value = evaluate(mean.data(), sd.data(), d_mean.data(), d_sd.data());
  gradient = Vector::Zero(posteriors[0].mean_gradient.size());
  if (!std::isfinite(value)) return value;
  for (std::size_t j = 0; j < n_objectives; ++j) {
    // d sd / dx = (d variance / dx) / (2 sd)
    gradient += d_mean[j] * posteriors[j].mean_gradient + (d_sd[j] / (2.0 * sd[j])) * posteriors[j].variance_gradient;
  }
  return value;
}

}  // namespace vpbo
