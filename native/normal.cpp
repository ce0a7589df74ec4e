#include "normal.hpp"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>

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
const double kLn2 = std::log(2.0);
// erfc in double precision: Boost's default policy promotes double arguments to long double
// (x87 arithmetic), several times slower for accuracy that no caller keeps.
using DoublePrecision = boost::math::policies::policy<boost::math::policies::promote_double<false>>;

double erfc(double x) { return boost::math::erfc(x, DoublePrecision()); }

double ndtr(double z) { return 0.5 * erfc(-z / kSqrt2); }
}  // namespace

double log_phi(double z) { return -0.5 * z * z - kLogSqrt2Pi; }

double log1mexp(double x) { return x > -kLn2 ? std::log(-std::expm1(x)) : std::log1p(-std::exp(x)); }

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

}  // namespace vpbo
