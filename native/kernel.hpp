// The kernel of the mixed-variable GP (VPBO paper, sec. 3.4 and appendix B; CoCaBO, Ru et al.
// 2020), the one home of its value, its gradient in x and its hyperparameter gradient:
//
//   k(z, z') = variance * [ (1 - lambda) / 2 * (k_h + k_x) + lambda * k_h * k_x ]
//
// with the overlap kernel k_h on the categorical codes h and the Matern-5/2 ARD kernel k_x on the
// numeric part x in [0, 1]^d. The factor 1/2 (as in CoCaBO's code) makes k(z, z) = variance for
// every lambda; with a free variance it spans the same family as the paper's unnormalised form.
//
// The overlap kernel is k_h(h, h') = (1/k) sum_v [h_v == h'_v] over the k categorical variables
// (the paper's kernel): the fraction of them on which two points agree, so k_h(z, z) = 1. It has
// no hyperparameter of its own. (Learnt per-variable weights were measured and not adopted:
// docs/decisions.md, "Per-variable categorical relevance".)
#pragma once

#include "hyperparameter_layout.hpp"
#include "types.hpp"

namespace vpbo {

// Matern-5/2 at scaled distance r: (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r).
double matern52(double r);

// -(1 / r) d matern52 / dr = (5 / 3) (1 + sqrt5 r) exp(-sqrt5 r): the factor of the derivative of
// k_x in a coordinate, d k_x / d x_m = -matern52_radial(r) (x_m - x'_m) / l_m^2.
double matern52_radial(double r);

// The weight of each of k categorical variables in the overlap kernel times a factor: scale / k
// (0 with no categorical variable). Computed as a division, as it always was, so that the kernel and
// the combination posteriors stay bit for bit what they were.
double overlap_weight(Eigen::Index k, double scale = 1.0);

// The overlap block k_h(a, b). With no categorical variable every pair agrees (k_h = 1), which
// reduces the mixture to a constant plus k_x.
Matrix overlap(const IntMatrix& a, const IntMatrix& b);

// The kernel's blocks on one set of training points, for the likelihood and its gradient.
struct TrainingBlocks {
  Matrix scaled_x;  // x with each column divided by its lengthscale
  Matrix distance;  // scaled distances r
  Matrix k_x;       // Matern-5/2 of r
  Matrix signal;    // the mixed kernel (no noise)
};

class MixedKernel {
 public:
  // Throws std::invalid_argument unless lengthscales are finite and positive, variance finite
  // and positive and lambda in [0, 1].
  MixedKernel(Vector lengthscales, double variance, double lambda);

  const Vector& lengthscales() const { return lengthscales_; }
  double variance() const { return variance_; }
  double lambda() const { return lambda_; }
  Eigen::Index n_numeric() const { return lengthscales_.size(); }
  // Where this kernel's hyperparameters sit in theta.
  HyperparameterLayout layout() const { return HyperparameterLayout(n_numeric()); }
  // Weight of k_h + k_x and of k_h k_x in the mixture.
  double sum_weight() const { return variance_ * (1.0 - lambda_) / 2.0; }
  double product_weight() const { return variance_ * lambda_; }

  // Matern-5/2 ARD block k_x(a, b); with no numeric dimension k_x = 1.
  Matrix matern(const Matrix& a, const Matrix& b) const;
  // The mixture of an overlap block and a Matern block, element-wise.
  Matrix mix(const Matrix& k_h, const Matrix& k_x) const;
  // The kernel block k((h_a, x_a), (h_b, x_b)).
  Matrix operator()(const IntMatrix& h_a, const Matrix& x_a, const IntMatrix& h_b, const Matrix& x_b) const;

  // k(training, query) for one query point (h_q: 1 x k) and its gradient in the query's x
  // (row i: d k(z_i, z_q) / d x_q).
  void cross_with_gradient(const IntMatrix& h, const Matrix& x, const IntMatrix& h_q, const Vector& x_q, Vector& cross,
                           Matrix& cross_gradient) const;

  // The training blocks for a fixed overlap block k_h of the training points.
  TrainingBlocks training_blocks(const Matrix& k_h, const Matrix& x) const;
  // 1/2 sum_ij W_ij dK_ij / dp for every entry p of theta (in this kernel's layout()), with W
  // symmetric: the kernel's part of the gradient of the negative log marginal likelihood. The
  // log noise entry is 0 (the noise is no part of the kernel).
  Vector trace_gradient(const Matrix& w, const Matrix& k_h, const TrainingBlocks& blocks) const;

 private:
  Vector lengthscales_;
  double variance_;
  double lambda_;
};

}  // namespace vpbo
