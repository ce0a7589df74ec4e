#include "max_value_entropy.hpp"

#include <cmath>
#include <stdexcept>

#include "normal.hpp"

namespace vpbo {
namespace {
const double kMaxValueFloor = 1e-5;

// log F(y) = sum_i log Phi((y - mean_i) / sd_i).
double log_max_cdf(const Vector& mean, const Vector& sd, double y) {
  double total = 0.0;
  for (Eigen::Index i = 0; i < mean.size(); ++i) total += log_ndtr((y - mean(i)) / sd(i));
  return total;
}

// The p-quantile of F by bisection.
double max_quantile(const Vector& mean, const Vector& sd, double p) {
  const double target = std::log(p);
  const double width = sd.maxCoeff();
  double lo = mean.maxCoeff() - width, hi = (mean + 5.0 * sd).maxCoeff();
  while (log_max_cdf(mean, sd, lo) > target) lo -= 2.0 * width;
  for (int it = 0; it < 100 && hi - lo > 1e-10 * (1.0 + std::fabs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    (log_max_cdf(mean, sd, mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}
}  // namespace

Vector sample_max_values_gumbel(const Vector& mean, const Vector& sd, const Vector& uniforms, double max_observed) {
  if (mean.size() == 0 || mean.size() != sd.size()) throw std::invalid_argument("MES: mean and sd must be non-empty and of equal size");
  if (!mean.allFinite() || !sd.allFinite() || (sd.array() <= 0.0).any()) throw std::invalid_argument("MES: mean and sd must be finite, sd > 0");
  const double floor = max_observed + kMaxValueFloor;
  Vector samples(uniforms.size());
  if (log_max_cdf(mean, sd, floor) >= std::log(0.25)) {
    samples.setConstant(floor);  // the maximum is almost surely observed already
    return samples;
  }
  const double q25 = max_quantile(mean, sd, 0.25), q50 = max_quantile(mean, sd, 0.5), q75 = max_quantile(mean, sd, 0.75);
  const double scale = (q75 - q25) / (std::log(std::log(4.0)) - std::log(std::log(4.0 / 3.0)));
  const double location = q50 + scale * std::log(std::log(2.0));
  for (Eigen::Index k = 0; k < uniforms.size(); ++k) {
    const double u = std::min(std::max(uniforms(k), 1e-12), 1.0 - 1e-12);
    samples(k) = std::max(location - scale * std::log(-std::log(u)), floor);
  }
  return samples;
}

Vector max_value_entropy_search(const Vector& mean, const Vector& sd, const Vector& max_values) {
  if (mean.size() != sd.size()) throw std::invalid_argument("MES: mean and sd must have equal size");
  if (max_values.size() == 0) throw std::invalid_argument("MES: needs at least one max-value sample");
  Vector out = Vector::Zero(mean.size());
  for (Eigen::Index i = 0; i < mean.size(); ++i) {
    for (Eigen::Index k = 0; k < max_values.size(); ++k) {
      const double gamma = (max_values(k) - mean(i)) / sd(i);
      const double log_cdf = log_ndtr(gamma);
      out(i) += 0.5 * gamma * std::exp(log_phi(gamma) - log_cdf) - log_cdf;
    }
  }
  return out / static_cast<double>(max_values.size());
}

}  // namespace vpbo
