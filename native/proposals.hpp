// Value proposals (VPBO paper, sec. 4.1, Algorithm 1): for every categorical combination c,
// the maximum of the acquisition over a candidate set of numeric points x; that maximum is c's
// value proposal.
//
// All combinations share one candidate set, so the posterior is assembled from pieces computed
// once: with k_h(c, H_i) = (1/k) sum_v 1[c_v = H_iv], the cross-covariance of (c, x_j) with the
// training data is a combination of e_{v,a} = 1[H_.v = a], the Matern block K_x(., x_j) and the
// masked blocks D_{v,a} K_x(., x_j), so the triangular solves are needed only once per
// (variable, level) pair rather than once per combination.
//
// The acquisition is log EI of the objective GP plus, for constrained problems, the log
// probability of feasibility of each constraint GP (Gardner et al. 2014, "Bayesian optimization
// with inequality constraints"; in log form as BoTorch's LogCEI). Without a feasible incumbent
// the acquisition is the log probability of feasibility alone.
#pragma once

#include <vector>

#include "gp.hpp"

namespace vpbo {

// A constraint: its GP (of standardised constraint values) and the threshold below which a
// point is feasible (the standardised image of 0).
struct ConstraintModel {
  const MixedGP* gp;
  double threshold;
};

struct ProposalResult {
  IntVector best_candidate;  // per combination: row of the candidate set with the best value
  Vector best_value;         // per combination: the value proposal
};

// combinations: C x k codes; candidates: S x d points in [0, 1]^d; best: the incumbent of the
// standardised targets, NaN when no observation is feasible. Candidates are processed in
// blocks so memory stays bounded by `max_block_bytes` per GP. Ties go to the lowest candidate
// index.
ProposalResult value_proposals(const MixedGP& objective, const std::vector<ConstraintModel>& constraints,
                               const IntMatrix& combinations, const Matrix& candidates, double best,
                               double max_block_bytes);

// The same acquisition at one point (h: 1 x k) with its gradient w.r.t. x.
double acquisition_with_gradient(const MixedGP& objective, const std::vector<ConstraintModel>& constraints,
                                 const IntMatrix& h, const Vector& x, double best, Vector& gradient);

}  // namespace vpbo
