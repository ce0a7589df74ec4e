// The standard normal distribution in log space, for acquisitions that must stay finite and
// informative far from the data: erfcx, log Phi, and log h(u) = log(phi(u) + u Phi(u)), the log
// expected improvement of a unit-variance posterior (Ament et al. 2023, "Unexpected Improvements
// to Expected Improvement for Bayesian Optimization", as BoTorch's log_ei).
#pragma once

namespace vpbo {

// exp(x^2) erfc(x), accurate for every finite x (Boost.Math erfc where it does not underflow,
// a continued fraction beyond).
double erfcx(double x);

// log of the standard normal density.
double log_phi(double z);

// log of the standard normal CDF, finite for every finite z.
double log_ndtr(double z);

// log(1 - exp(x)) for x < 0 (Maechler 2012: the branch at -log 2 keeps full precision).
double log1mexp(double x);

// log h(u) with h(u) = phi(u) + u Phi(u). Finite and increasing for every finite u.
double log_h(double u);

// d log h / d u = Phi(u) / h(u), computed in log space.
double log_h_derivative(double u);

}  // namespace vpbo
