// Kernels of the mixed-variable GP (VPBO paper, sec. 3.4 and appendix B; CoCaBO, Ru et al. 2020).
//
//   k(z, z') = variance * [ (1 - lambda) / 2 * (k_h + k_x) + lambda * k_h * k_x ]
//
// with the overlap kernel k_h on the categorical codes h and the Matern-5/2 ARD kernel k_x on the
// numeric part x in [0, 1]^d. The factor 1/2 (as in CoCaBO's code) makes k(z, z) = variance for
// every lambda; with a free variance it spans the same family as the paper's unnormalised form.
#pragma once

#include "types.hpp"

namespace vpbo {

struct KernelParams {
  Vector lengthscales;  // one per numeric dimension
  double variance = 1.0;
  double lambda = 0.5;  // sum/product trade-off, in [0, 1]
};

// Overlap kernel: the fraction of categorical variables on which two points agree. With no
// categorical variable every pair agrees (k_h = 1), which reduces the mixture to a constant
// plus k_x.
Matrix overlap_kernel(const IntMatrix& a, const IntMatrix& b);

// Matern-5/2 with one lengthscale per dimension: (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r).
// With no numeric dimension r = 0 and k_x = 1.
Matrix matern52(const Matrix& a, const Matrix& b, const Vector& lengthscales);

// Matern-5/2 as a function of the scaled distance r (element-wise).
double matern52_of_distance(double r);

// The mixture of the two kernel blocks, element-wise.
Matrix mix_kernels(const Matrix& k_h, const Matrix& k_x, const KernelParams& params);

// Checks shapes and values; throws std::invalid_argument with a message saying what is wrong.
void validate_kernel_params(const KernelParams& params, Eigen::Index n_numeric);

}  // namespace vpbo
