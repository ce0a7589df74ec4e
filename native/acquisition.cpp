#include "acquisition.hpp"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vpbo {
namespace {
const double kSqrt2 = std::sqrt(2.0);
const double kLogSqrt2Pi = 0.5 * std::log(2.0 * M_PI);
const double kLogSqrtPiOver2 = 0.5 * std::log(M_PI / 2.0);
const double kInvSqrtPi = 1.0 / std::sqrt(M_PI);
// Above this, erfc(x) is close to underflow and exp(x^2) to overflow: use the continued fraction.
const double kErfcxDirectLimit = 26.0;
// Depth of the continued fraction; at x >= 26 its truncation error is far below double precision.
const int kErfcxFractionDepth = 40;
// Below this standardised improvement the asymptotic form of log h is exact to double precision.
const double kLogHAsymptotic = -1e6;
const double kMaxValueFloor = 1e-5;
const double kLn2 = std::log(2.0);
// erfc in double precision: Boost's default policy promotes double arguments to long double
// (x87 arithmetic), several times slower for accuracy that no caller keeps.
using DoublePrecision = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

double erfc(double x) { return boost::math::erfc(x, DoublePrecision()); }

double log_phi(double z) { return -0.5 * z * z - kLogSqrt2Pi; }

// log(1 - exp(x)) for x < 0 (Maechler 2012).
double log1mexp(double x) { return x > -kLn2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x)); }

double ndtr(double z) { return 0.5 * erfc(-z / kSqrt2); }
}  // namespace

double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < kErfcxDirectLimit) {
    if (x < -26.0) return std::numeric_limits<double>::infinity();  // 2 exp(x^2) overflows
    return std::exp(x * x) * erfc(x);
  }
  // Laplace's continued fraction: erfc(x) e^{x^2} = (1/sqrt(pi)) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))).
  double tail = x;
  for (int k = kErfcxFractionDepth; k >= 1; --k) tail = x + (0.5 * k) / tail;
  return kInvSqrtPi / tail;
}

double log_ndtr(double z) {
  if (std::isnan(z)) return z;
  if (z > 0.0) return std::log1p(-0.5 * erfc(z / kSqrt2));
  if (z > -20.0) return std::log(ndtr(z));
  // Phi(z) = erfcx(-z / sqrt2) exp(-z^2 / 2) / 2
  return std::log(0.5 * erfcx(-z / kSqrt2)) - 0.5 * z * z;
}

double log_h(double u) {
  if (std::isnan(u)) return u;
  if (u > -1.0) return std::log(std::exp(log_phi(u)) + u * ndtr(u));
  if (u > kLogHAsymptotic) {
    // h(u) = phi(u) (1 - |u| Phi(u)/phi(u)) and Phi(u)/phi(u) = sqrt(pi/2) erfcx(-u/sqrt2).
    const double w = std::log(erfcx(-u / kSqrt2) * std::fabs(u)) + kLogSqrtPiOver2;
    return log_phi(u) + log1mexp(w);
  }
  return log_phi(u) - 2.0 * std::log(std::fabs(u));
}

double log_h_derivative(double u) { return std::exp(log_ndtr(u) - log_h(u)); }

double log_expected_improvement(double mean, double sd, double best) {
  return log_h((mean - best) / sd) + std::log(sd);
}

double log_expected_improvement_with_gradient(double mean, double variance, double best, const Vector& mean_grad,
                                              const Vector& variance_grad, Vector& gradient) {
  const double sd = std::sqrt(variance);
  const double u = (mean - best) / sd;
  const Vector sd_grad = variance_grad / (2.0 * sd);
  // d/dx [log h(u) + log s] = (log h)'(u) (mu' - u s') / s + s' / s
  gradient = (log_h_derivative(u) * (mean_grad - u * sd_grad) + sd_grad) / sd;
  return log_h(u) + std::log(sd);
}

double log_probability_below_with_gradient(double mean, double variance, double threshold, const Vector& mean_grad,
                                           const Vector& variance_grad, Vector& gradient) {
  const double sd = std::sqrt(variance);
  const double u = (threshold - mean) / sd;
  const double log_cdf = log_ndtr(u);
  // d/dx log Phi(u) = (phi(u) / Phi(u)) du/dx,  du/dx = -(mu' + u s') / s
  const double mills = std::exp(log_phi(u) - log_cdf);
  gradient = -mills * (mean_grad + u * variance_grad / (2.0 * sd)) / sd;
  return log_cdf;
}

Vector sample_max_values_gumbel(const Vector& mean, const Vector& sd, const Vector& uniforms, double max_observed) {
  if (mean.size() == 0 || mean.size() != sd.size()) throw std::invalid_argument("MES: mean and sd must be non-empty and of equal size");
  if (!mean.allFinite() || !sd.allFinite() || (sd.array() <= 0.0).any()) throw std::invalid_argument("MES: mean and sd must be finite, sd > 0");
  const double floor = max_observed + kMaxValueFloor;
  auto log_cdf = [&](double y) {
    double total = 0.0;
    for (Eigen::Index i = 0; i < mean.size(); ++i) total += log_ndtr((y - mean(i)) / sd(i));
    return total;
  };
  auto quantile = [&](double p) {
    const double target = std::log(p);
    const double width = sd.maxCoeff();
    double lo = mean.maxCoeff() - width, hi = (mean + 5.0 * sd).maxCoeff();
    while (log_cdf(lo) > target) lo -= 2.0 * width;
    for (int it = 0; it < 100 && hi - lo > 1e-10 * (1.0 + std::fabs(hi)); ++it) {
      const double mid = 0.5 * (lo + hi);
      (log_cdf(mid) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  };
  Vector samples(uniforms.size());
  if (log_cdf(floor) >= std::log(0.25)) {
    samples.setConstant(floor);  // the maximum is almost surely observed already
    return samples;
  }
  const double q25 = quantile(0.25), q50 = quantile(0.5), q75 = quantile(0.75);
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
