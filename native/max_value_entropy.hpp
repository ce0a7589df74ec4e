// Max-value Entropy Search of Wang & Jegelka (2017), with Gumbel-approximated samples of the
// maximum value: the acquisition of the search initialisation (VPBO paper, sec. 5).
#pragma once

#include "types.hpp"

namespace vpbo {

// Samples of the maximum value y* from the Gumbel approximation of its CDF
// F(y) = prod_i Phi((y - mean_i) / sd_i) over a candidate set (Wang & Jegelka 2017, sec. 3.1):
// the quartiles of F give the Gumbel location and scale; y*_k = a - b log(-log u_k).
// Samples are kept at or above max_observed + 1e-5 (the reference code's clamp).
Vector sample_max_values_gumbel(const Vector& mean, const Vector& sd, const Vector& uniforms, double max_observed);

// MES acquisition (Wang & Jegelka 2017, eq. 6) at each point:
// mean over samples of gamma psi(gamma) / (2 Psi(gamma)) - log Psi(gamma), gamma = (y* - mean) / sd.
Vector max_value_entropy_search(const Vector& mean, const Vector& sd, const Vector& max_values);

}  // namespace vpbo
