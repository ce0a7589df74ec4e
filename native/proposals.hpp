// Value proposals (VPBO paper, sec. 4.1, Algorithm 1): for every categorical combination c, the
// maximum of the acquisition over a shared candidate set of numeric points x; that maximum is c's
// value proposal. Every model of the acquisition gets a CombinationPosterior, so the posteriors of
// all (combination, candidate) pairs come from shared per-level solves.
#pragma once

#include "acquisition.hpp"

namespace vpbo {

struct ProposalResult {
  IntVector best_candidate;  // per combination: row of the candidate set with the best value
  Vector best_value;         // per combination: the value proposal
};

// combinations: C x k codes; candidates: S x d points in [0, 1]^d. Candidates are processed in
// blocks so that memory stays bounded by `max_block_bytes`. Ties go to the lowest candidate index.
ProposalResult value_proposals(const Acquisition& acquisition, const IntMatrix& combinations, const Matrix& candidates,
                               double max_block_bytes);

}  // namespace vpbo
