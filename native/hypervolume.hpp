// Exact log expected hypervolume improvement (EHVI) of independent Gaussian posteriors, all
// objectives maximised (Emmerich et al. 2006; Yang et al. 2019, "Efficient computation of expected
// hypervolume improvement using box decomposition algorithms").
//
// The region where a new point improves the hypervolume is cut into axis-aligned boxes [l, u]
// (u may be +inf; the decomposition comes from the Python side). For a point Y the improvement is
// sum_b prod_j (min(Y_j, u_bj) - l_bj)^+, so
//
//   EHVI = sum_b prod_j (psi_j(l_bj) - psi_j(u_bj)),   psi(a) = E[(Y - a)^+] = s h((m - a) / s),
//
// with h(z) = phi(z) + z Phi(z). It is evaluated in log space as LogEI (Ament et al. 2023): log psi
// from log h, a log-difference per factor and a logsumexp over boxes. The boxes are factorised per
// objective: box b spans cell box_cells(b, j) of objective j, a pair of indices into that
// objective's sorted edges, so each factor is computed once per cell rather than once per box.
#pragma once

#include "acquisition.hpp"

namespace vpbo {

struct BoxDecomposition {
  std::vector<Vector> edges;     // per objective: sorted edges, the last may be +inf
  std::vector<IntMatrix> cells;  // per objective: n_cells x 2 edge indices (lower, upper), lower < upper
  IntMatrix box_cells;           // B x M: each box's cell on each objective
};

class LogExpectedHypervolumeImprovement final : public Acquisition {
 public:
  // One model per objective, in the order of the decomposition's objectives.
  LogExpectedHypervolumeImprovement(std::vector<ModelPtr> objectives, BoxDecomposition boxes);
  double value(const double* mean, const double* variance) const override;
  double value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const override;

 private:
  // The value; with non-null d_mean and d_sd, its derivatives in each objective's mean and sd.
  double evaluate(const double* mean, const double* sd, double* d_mean, double* d_sd) const;
  // log(psi(l) - psi(u)) for each cell of objective j, with its derivatives in m and s if asked.
  void cell_factors(Eigen::Index j, double mean, double sd, Vector& factor, Vector* d_mean, Vector* d_sd) const;

  BoxDecomposition boxes_;
};

}  // namespace vpbo
