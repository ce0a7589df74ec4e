#include "proposals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "combination_posterior.hpp"

namespace vpbo {
namespace {

// Candidate blocks are sized for the last-level cache, where the pieces that every combination
// rereads then stay, but hold at least kMinBlockCandidates candidates, below which the
// triangular solves lose their speed; max_block_bytes caps the memory in any case.
const double kCacheBlockBytes = 8e6;
const Eigen::Index kMinBlockCandidates = 64;
// The combinations' posteriors are assembled tile by tile: a tile is a few candidate columns of
// every solved piece, sized so that all pieces of the tile stay in a core's L2 cache while every
// combination reads them (half of a common 1 MiB L2, the rest is for the work space).
const double kTileBytes = 512.0 * 1024.0;
// With Gram matrices (CombinationPosterior::uses_gram) a block's pieces are read once, by the Gram
// products, and every combination then rereads the block's Gram entries in one tile: a block of a
// few megabytes (in the last-level cache) gives each combination's pass more candidates to share
// its setup than one that stays in L2 (docs/performance.md, "Tiles of Gram entries").
const double kGramBlockBytes = 4.0 * 1024.0 * 1024.0;
const Eigen::Index kMinGramBlockCandidates = 8;
// A bound of the acquisition rules a candidate out only below the combination's best by this
// fraction of its size: the value and its bound round differently.
const double kBoundMargin = 1e-12;

void validate(const Acquisition& acquisition, const IntMatrix& combinations, const Matrix& candidates) {
  if (combinations.rows() == 0) throw std::invalid_argument("value_proposals: no combinations");
  if (candidates.rows() == 0) throw std::invalid_argument("value_proposals: no candidates");
  if (!candidates.allFinite()) throw std::invalid_argument("value_proposals: candidates contain NaN or inf");
  if (combinations.size() > 0 && combinations.minCoeff() < 0) throw std::invalid_argument("value_proposals: categorical codes must be >= 0");
  const MixedGP& model = *acquisition.models()[0];
  if (combinations.cols() != model.h().cols()) throw std::invalid_argument("value_proposals: combinations have the wrong number of categorical variables");
  if (candidates.cols() != model.x().cols()) throw std::invalid_argument("value_proposals: candidates have the wrong number of numeric dimensions");
}

// The value proposals of a sweep over candidate blocks and tiles, one CombinationPosterior per
// model of the acquisition.
class ProposalSweep {
 public:
  ProposalSweep(const Acquisition& acquisition, const IntMatrix& combinations, const Matrix& candidates, double max_block_bytes)
      : acquisition_(acquisition), combinations_(combinations), candidates_(candidates) {
    double largest_bytes = 0.0, tile_bytes = 0.0;
    for (const ModelPtr& model : acquisition.models()) {
      posteriors_.push_back(std::make_unique<CombinationPosterior>(*model, combinations));
      largest_bytes = std::max(largest_bytes, posteriors_.back()->bytes_per_candidate());
      tile_bytes += posteriors_.back()->tile_bytes_per_candidate();
    }
    const double block_bytes = largest_bytes * static_cast<double>(posteriors_.size());
    const bool gram = std::all_of(posteriors_.begin(), posteriors_.end(), [](const auto& p) { return p->uses_gram(); });
    const Eigen::Index cache_block = std::max<Eigen::Index>(gram ? kMinGramBlockCandidates : kMinBlockCandidates,
                                                            static_cast<Eigen::Index>((gram ? kGramBlockBytes : kCacheBlockBytes) / block_bytes));
    block_ = std::max<Eigen::Index>(1, std::min({candidates.rows(), cache_block, static_cast<Eigen::Index>(max_block_bytes / block_bytes)}));
    tile_ = gram ? block_ : std::max<Eigen::Index>(1, static_cast<Eigen::Index>(kTileBytes / tile_bytes));
    result_.best_candidate = IntVector::Zero(combinations.rows());
    result_.best_value = Vector::Constant(combinations.rows(), -std::numeric_limits<double>::infinity());
    best_mean_ = best_variance_ = result_.best_value;
    means_.resize(posteriors_.size());
    variances_.resize(posteriors_.size());
  }

  ProposalResult run() {
    for (Eigen::Index start = 0; start < candidates_.rows(); start += block_) {
      const Eigen::Index s = std::min(block_, candidates_.rows() - start);
      const Matrix block = candidates_.middleRows(start, s);
      for (auto& posterior : posteriors_) posterior->set_block(block);
      for (Eigen::Index first = 0; first < s; first += tile_) {
        const Eigen::Index count = std::min(tile_, s - first);
        for (Eigen::Index c = 0; c < combinations_.rows(); ++c) {
          if (acquisition_.increases_with_mean_and_variance()) {
            visit_monotone(c, start + first, first, count);
          } else {
            visit(c, start + first, first, count);
          }
        }
      }
    }
    return result_;
  }

 private:
  // Whether the acquisition's bound at (mean, variance) shows that it cannot beat combination c's best.
  bool below_best(Eigen::Index c, const double* mean, const double* variance) const {
    const double bound = acquisition_.value_bound(mean, variance);
    return bound + kBoundMargin * (1.0 + std::fabs(bound)) <= result_.best_value(c);
  }

  void take(Eigen::Index c, Eigen::Index candidate, double value) {
    result_.best_value(c) = value;
    result_.best_candidate(c) = static_cast<int>(candidate);
  }

  // A single model whose acquisition grows with its mean and variance: a candidate at or below
  // the combination's best in both cannot beat it, and its value is not needed.
  void visit_monotone(Eigen::Index c, Eigen::Index offset, Eigen::Index first, Eigen::Index count) {
    Vector& mean = means_[0];
    Vector& variance = variances_[0];
    posteriors_[0]->posterior(combinations_, c, first, count, mean, variance);
    // The value at the tile's largest mean and variance bounds every candidate's: one evaluation
    // rules out a tile that cannot beat the combination's best.
    if (count > 1) {
      const double top_mean = mean.head(count).maxCoeff(), top_variance = variance.head(count).maxCoeff();
      if (top_mean <= best_mean_(c) && top_variance <= best_variance_(c)) return;
      if (below_best(c, &top_mean, &top_variance)) return;
      if (acquisition_.value(&top_mean, &top_variance) <= result_.best_value(c)) return;
    }
    for (Eigen::Index j = 0; j < count; ++j) {
      if (mean(j) <= best_mean_(c) && variance(j) <= best_variance_(c)) continue;
      if (below_best(c, &mean(j), &variance(j))) continue;
      const double value = acquisition_.value(&mean(j), &variance(j));
      if (value > result_.best_value(c)) {
        take(c, offset + j, value);
        best_mean_(c) = mean(j);
        best_variance_(c) = variance(j);
      }
    }
  }

  void visit(Eigen::Index c, Eigen::Index offset, Eigen::Index first, Eigen::Index count) {
    const std::size_t n_models = posteriors_.size();
    for (std::size_t m = 0; m < n_models; ++m) posteriors_[m]->posterior(combinations_, c, first, count, means_[m], variances_[m]);
    std::vector<double> mean(n_models), variance(n_models);
    for (Eigen::Index j = 0; j < count; ++j) {
      for (std::size_t m = 0; m < n_models; ++m) {
        mean[m] = means_[m](j);
        variance[m] = variances_[m](j);
      }
      const double value = acquisition_.value(mean.data(), variance.data());
      if (value > result_.best_value(c)) take(c, offset + j, value);
    }
  }

  const Acquisition& acquisition_;
  const IntMatrix& combinations_;
  const Matrix& candidates_;
  std::vector<std::unique_ptr<CombinationPosterior>> posteriors_;
  Eigen::Index block_ = 1, tile_ = 1;
  ProposalResult result_;
  // Posterior mean and variance at each combination's best candidate so far (monotone case).
  Vector best_mean_, best_variance_;
  std::vector<Vector> means_, variances_;
};

}  // namespace

ProposalResult value_proposals(const Acquisition& acquisition, const IntMatrix& combinations, const Matrix& candidates,
                               double max_block_bytes) {
  validate(acquisition, combinations, candidates);
  return ProposalSweep(acquisition, combinations, candidates, max_block_bytes).run();
}

}  // namespace vpbo
