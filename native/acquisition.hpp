// Acquisition functions, all for maximisation of standardised targets.
//
// - Expected Improvement in the stable log form of Ament et al. (2023), "Unexpected Improvements
//   to Expected Improvement for Bayesian Optimization" (LogEI; as in BoTorch's log_ei).
// - Max-value Entropy Search of Wang & Jegelka (2017), with Gumbel-approximated samples of the
//   maximum value.
#pragma once

#include "types.hpp"

namespace vpbo {

// exp(x^2) erfc(x), accurate for every finite x (Boost.Math erfc where it does not underflow,
// a continued fraction beyond).
double erfcx(double x);

// log of the standard normal CDF, finite for every finite z.
double log_ndtr(double z);

// log h(u) with h(u) = phi(u) + u Phi(u): the log EI of a unit-variance posterior at standardised
// improvement u. Finite and increasing for every finite u.
double log_h(double u);

// d log h / d u = Phi(u) / h(u), computed in log space.
double log_h_derivative(double u);

// log EI at mean m and standard deviation s > 0 over the incumbent `best`:
// log h((m - best) / s) + log s.
double log_expected_improvement(double mean, double sd, double best);

// Gradient of log EI w.r.t. x given the gradients of the mean and variance.
double log_expected_improvement_with_gradient(double mean, double variance, double best, const Vector& mean_grad,
                                              const Vector& variance_grad, Vector& gradient);

// log P(f < threshold) = log Phi((threshold - mean) / sd) with its gradient w.r.t. x: the log
// probability of feasibility of a constraint.
double log_probability_below_with_gradient(double mean, double variance, double threshold, const Vector& mean_grad,
                                           const Vector& variance_grad, Vector& gradient);

// Samples of the maximum value y* from the Gumbel approximation of its CDF
// F(y) = prod_i Phi((y - mean_i) / sd_i) over a candidate set (Wang & Jegelka 2017, sec. 3.1):
// the quartiles of F give the Gumbel location and scale; y*_k = a - b log(-log u_k).
// Samples are kept at or above max_observed + 1e-5 (the reference code's clamp).
Vector sample_max_values_gumbel(const Vector& mean, const Vector& sd, const Vector& uniforms, double max_observed);

// MES acquisition (Wang & Jegelka 2017, eq. 6) at each point:
// mean over samples of gamma psi(gamma) / (2 Psi(gamma)) - log Psi(gamma), gamma = (y* - mean) / sd.
Vector max_value_entropy_search(const Vector& mean, const Vector& sd, const Vector& max_values);

}  // namespace vpbo
