#include "proposals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "acquisition.hpp"

namespace vpbo {
namespace {

// Minimum latent variance, as a fraction of the prior variance (matches MixedGP::predict).
const double kMinRelativeVariance = 1e-12;
// Candidate blocks are sized for the last-level cache, where the pieces that every combination
// rereads then stay, but hold at least kMinBlockCandidates candidates, below which the
// triangular solves lose their speed; max_block_bytes caps the memory in any case.
const double kCacheBlockBytes = 8e6;
const Eigen::Index kMinBlockCandidates = 64;
// The combinations' posteriors are assembled tile by tile: a tile is a few candidate columns of
// every solved piece, sized so that all pieces of the tile stay in a core's L2 cache while every
// combination reads them (half of a common 1 MiB L2, the rest is for the work space).
const double kTileBytes = 512.0 * 1024.0;

// The posterior of one GP at every (combination, candidate) of a candidate block, assembled from
// per-(variable, level) pieces (see proposals.hpp).
//
// With the kernel weights w_sum = variance (1 - lambda) / 2 and w_prod = variance lambda / k, the
// solved cross-covariance of combination c is
//   L^-1 k_c = w_sum L^-1 K_x + sum_v [w_prod L^-1 D_{v,c_v} K_x + (w_sum / k) L^-1 e_{v,c_v} 1^T],
// so the pieces are stored with their weights and level terms folded in, and a combination
// costs k + 1 passes over them.
// The masks of one variable sum to the identity over the levels present in the data, so one
// level per variable (when all its data levels have a piece) is L^-1 K_x minus the others
// rather than a triangular solve of its own. A masked block is zero above the first training
// point of its level, and so is its solve: each is solved with the trailing part of L only, which
// pays when the training points are grouped by level (GPHyperparameters.make_gp orders them so).
class CombinationPosterior {
 public:
  CombinationPosterior(const MixedGP& gp, const IntMatrix& combinations) : gp_(gp) {
    const Eigen::Index n = gp.size();
    // No categorical variable: one virtual variable with one level shared by every point, so
    // that k_h = 1 exactly as the kernel defines it.
    h_ = gp.h().cols() == 0 ? IntMatrix::Zero(n, 1) : gp.h();
    k_ = h_.cols();
    pair_index_.resize(k_);
    int n_pairs = 0;
    for (Eigen::Index v = 0; v < k_; ++v) {
      int n_levels = combinations.cols() == 0 ? 1 : combinations.col(v).maxCoeff() + 1;
      if (n > 0) n_levels = std::max(n_levels, h_.col(v).maxCoeff() + 1);
      pair_index_[v].assign(n_levels, -1);
      for (Eigen::Index c = 0; c < combinations.rows(); ++c) {
        int& slot = pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
        if (slot < 0) slot = n_pairs++;
      }
    }
    const KernelParams& p = gp.params();
    w_sum_ = p.variance * (1.0 - p.lambda) / 2.0;
    w_prod_ = p.variance * p.lambda / static_cast<double>(k_);
    const double w_level = w_sum_ / static_cast<double>(k_);
    variance_floor_ = kMinRelativeVariance * p.variance;
    // Per (variable, level) pair: the indicator e_{v,a} (the mask D_{v,a}), and the weighted
    // alpha . e_{v,a} and L^-1 e_{v,a}.
    Matrix level_mask = Matrix::Zero(n, n_pairs);
    level_mean_ = Vector::Zero(n_pairs);
    for (Eigen::Index v = 0; v < k_; ++v) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const int pair = pair_index_[v][h_(i, v)];
        if (pair < 0) continue;
        level_mean_(pair) += w_level * gp.alpha()(i);
        level_mask(i, pair) = 1.0;
      }
    }
    solved_level_ = level_mask;
    if (n > 0) gp.cholesky_lower().triangularView<Eigen::Lower>().solveInPlace(solved_level_);
    solved_level_ *= w_level;
    // The first training point of each pair's level (n: none).
    std::vector<Eigen::Index> first_row(n_pairs, n);
    for (Eigen::Index v = 0; v < k_; ++v) {
      for (Eigen::Index i = n - 1; i >= 0; --i) {
        const int pair = pair_index_[v][h_(i, v)];
        if (pair >= 0) first_row[pair] = i;
      }
    }
    // Slots of the pieces: 0 is K_x, then the solved pairs, then one derived pair per variable
    // whose data levels all have a pair: the one whose solve would cost most (earliest first row).
    std::vector<int> derived(k_, -1);
    for (Eigen::Index v = 0; v < k_ && n > 0; ++v) {
      bool complete = true;
      for (Eigen::Index i = 0; i < n; ++i) complete = complete && pair_index_[v][h_(i, v)] >= 0;
      for (std::size_t a = 0; a < pair_index_[v].size() && complete; ++a) {
        const int pair = pair_index_[v][a];
        if (pair >= 0 && (derived[v] < 0 || first_row[pair] < first_row[derived[v]])) derived[v] = pair;
      }
    }
    slot_.assign(n_pairs, -1);
    n_solved_ = 1;
    for (Eigen::Index v = 0; v < k_; ++v) {
      for (int pair : pair_index_[v]) {
        if (pair >= 0 && pair != derived[v]) {
          solved_masks_.push_back(level_mask.col(pair));
          solved_first_row_.push_back(first_row[pair]);
          slot_[pair] = n_solved_++;
        }
      }
    }
    int next = n_solved_;
    for (Eigen::Index v = 0; v < k_; ++v) {
      if (derived[v] < 0) continue;
      slot_[derived[v]] = next++;
      derivations_.push_back({slot_[derived[v]], {}});
      for (int pair : pair_index_[v]) {
        if (pair >= 0 && pair != derived[v]) derivations_.back().subtract.push_back(slot_[pair]);
      }
    }
  }

  double bytes_per_candidate() const { return 8.0 * std::max<Eigen::Index>(gp_.size(), 1) * (n_slots() + 1); }

  // Bytes of the pieces per candidate column, for the tile size.
  double tile_bytes_per_candidate() const { return 8.0 * std::max<Eigen::Index>(gp_.size(), 1) * n_slots(); }

  // The pieces of a candidate block side by side in one matrix, n x (s slots):
  // L^-1 K_x(., block), L^-1 D_{v,a} K_x(., block), then the derived ones.
  void set_block(const Matrix& block) {
    const Eigen::Index n = gp_.size(), s = block.rows();
    block_size_ = s;
    const Matrix k_x = matern52(gp_.x(), block, gp_.params().lengthscales);  // n x s
    pieces_.resize(n, s * n_slots());
    pieces_.leftCols(s) = k_x;
    for (std::size_t m = 0; m < solved_masks_.size(); ++m) {
      // Column-wise product with the 0/1 mask: the rows of other levels become exact zeros.
      pieces_.middleCols((m + 1) * s, s) = (k_x.array().colwise() * solved_masks_[m].array()).matrix();
    }
    piece_means_.resize(s * n_slots());
    piece_means_.head(s * n_solved_).noalias() = pieces_.leftCols(s * n_solved_).transpose() * gp_.alpha();
    const Matrix& lower = gp_.cholesky_lower();
    if (n > 0) lower.triangularView<Eigen::Lower>().solveInPlace(pieces_.leftCols(s));
    for (std::size_t m = 0; m < solved_masks_.size(); ++m) {
      const Eigen::Index r = solved_first_row_[m], rest = n - r;
      if (rest == 0) continue;  // a level without data: the piece is zero
      lower.bottomRightCorner(rest, rest).triangularView<Eigen::Lower>().solveInPlace(
          pieces_.block(r, (m + 1) * s, rest, s));
    }
    for (const Derivation& derivation : derivations_) {
      auto piece = pieces_.middleCols(derivation.slot * s, s);
      auto piece_mean = piece_means_.segment(derivation.slot * s, s);
      piece = pieces_.leftCols(s);
      piece_mean = piece_means_.head(s);
      for (int other : derivation.subtract) {
        piece -= pieces_.middleCols(other * s, s);
        piece_mean -= piece_means_.segment(other * s, s);
      }
    }
    pieces_.leftCols(s) *= w_sum_;
    piece_means_.head(s) *= w_sum_;
    pieces_.rightCols(s * (n_slots() - 1)) *= w_prod_;
    piece_means_.tail(s * (n_slots() - 1)) *= w_prod_;
    for (std::size_t pair = 0; pair < slot_.size(); ++pair) {
      pieces_.middleCols(slot_[pair] * s, s).colwise() += solved_level_.col(pair);
      piece_means_.segment(slot_[pair] * s, s).array() += level_mean_(pair);
    }
  }

  // Posterior mean and latent variance of combination c (a row of codes) at `count` candidates
  // of the current block from `first` on.
  void posterior(const IntMatrix& combinations, Eigen::Index c, Eigen::Index first, Eigen::Index count, Vector& mean,
                 Vector& variance) {
    mean = piece_means_.segment(first, count);
    w_ = pieces_.middleCols(first, count);
    for (Eigen::Index v = 0; v < k_; ++v) {
      const int pair = pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
      const Eigen::Index column = slot_[pair] * block_size_ + first;
      mean += piece_means_.segment(column, count);
      w_ += pieces_.middleCols(column, count);
    }
    variance = (gp_.params().variance - w_.colwise().squaredNorm().transpose().array()).max(variance_floor_).matrix();
  }

 private:
  // A derived piece: slot = (slot 0) - sum of the `subtract` slots.
  struct Derivation {
    int slot;
    std::vector<int> subtract;
  };

  Eigen::Index n_slots() const { return n_solved_ + static_cast<Eigen::Index>(derivations_.size()); }

  const MixedGP& gp_;
  IntMatrix h_;
  Eigen::Index k_ = 0;
  std::vector<std::vector<int>> pair_index_;
  double w_sum_ = 0.0, w_prod_ = 0.0, variance_floor_ = 0.0;
  // Per pair: weighted alpha . e_{v,a}, weighted L^-1 e_{v,a} (columns) and its piece's slot.
  Vector level_mean_;
  Matrix solved_level_;
  std::vector<int> slot_;
  // Masks of the solved pairs (slots 1 .. n_solved_ - 1) with their first nonzero rows, and the
  // derived pieces.
  std::vector<Vector> solved_masks_;
  std::vector<Eigen::Index> solved_first_row_;
  Eigen::Index n_solved_ = 1;
  std::vector<Derivation> derivations_;
  // Pieces of the current candidate block, weights folded in, and their products with alpha.
  Eigen::Index block_size_ = 0;
  Matrix pieces_;
  Vector piece_means_;
  Matrix w_;  // work space
};

void validate_model(const MixedGP& gp, const IntMatrix& combinations, const Matrix& candidates) {
  if (combinations.cols() != gp.h().cols()) throw std::invalid_argument("value_proposals: combinations have the wrong number of categorical variables");
  if (candidates.cols() != gp.x().cols()) throw std::invalid_argument("value_proposals: candidates have the wrong number of numeric dimensions");
}

}  // namespace

ProposalResult value_proposals(const MixedGP& objective, const std::vector<ConstraintModel>& constraints,
                               const IntMatrix& combinations, const Matrix& candidates, double best,
                               double max_block_bytes) {
  if (combinations.rows() == 0) throw std::invalid_argument("value_proposals: no combinations");
  if (candidates.rows() == 0) throw std::invalid_argument("value_proposals: no candidates");
  if (!candidates.allFinite()) throw std::invalid_argument("value_proposals: candidates contain NaN or inf");
  if (combinations.size() > 0 && combinations.minCoeff() < 0) throw std::invalid_argument("value_proposals: categorical codes must be >= 0");
  if (std::isinf(best)) throw std::invalid_argument("value_proposals: the incumbent must be finite (or NaN: no feasible point)");
  validate_model(objective, combinations, candidates);
  for (const ConstraintModel& constraint : constraints) {
    if (constraint.gp == nullptr || !std::isfinite(constraint.threshold)) throw std::invalid_argument("value_proposals: constraints need a GP and a finite threshold");
    validate_model(*constraint.gp, combinations, candidates);
  }
  const bool has_incumbent = !std::isnan(best);
  const Eigen::Index n_combos = combinations.rows();

  std::vector<std::unique_ptr<CombinationPosterior>> constraint_posteriors;
  CombinationPosterior objective_posterior(objective, combinations);
  double bytes_per_candidate = objective_posterior.bytes_per_candidate();
  for (const ConstraintModel& constraint : constraints) {
    constraint_posteriors.push_back(std::make_unique<CombinationPosterior>(*constraint.gp, combinations));
    bytes_per_candidate = std::max(bytes_per_candidate, constraint_posteriors.back()->bytes_per_candidate());
  }
  const double block_bytes_per_candidate = bytes_per_candidate * static_cast<double>(1 + constraints.size());
  const Eigen::Index cache_block = std::max<Eigen::Index>(
      kMinBlockCandidates, static_cast<Eigen::Index>(kCacheBlockBytes / block_bytes_per_candidate));
  const Eigen::Index block = std::max<Eigen::Index>(
      1, std::min({candidates.rows(), cache_block,
                   static_cast<Eigen::Index>(max_block_bytes / block_bytes_per_candidate)}));
  double tile_bytes_per_candidate = objective_posterior.tile_bytes_per_candidate();
  for (const auto& posterior : constraint_posteriors) tile_bytes_per_candidate += posterior->tile_bytes_per_candidate();
  const Eigen::Index tile = std::max<Eigen::Index>(1, static_cast<Eigen::Index>(kTileBytes / tile_bytes_per_candidate));

  ProposalResult result;
  result.best_candidate = IntVector::Zero(n_combos);
  result.best_value = Vector::Constant(n_combos, -std::numeric_limits<double>::infinity());
  // Posterior mean and variance at each combination's best candidate so far (unconstrained case).
  Vector best_mean = result.best_value, best_variance = result.best_value;
  Vector mean, variance, values;
  for (Eigen::Index start = 0; start < candidates.rows(); start += block) {
    const Eigen::Index s = std::min(block, candidates.rows() - start);
    const Matrix block_points = candidates.middleRows(start, s);
    objective_posterior.set_block(block_points);
    for (auto& posterior : constraint_posteriors) posterior->set_block(block_points);
    for (Eigen::Index first = 0; first < s; first += tile) {
      const Eigen::Index count = std::min(tile, s - first);
      for (Eigen::Index c = 0; c < n_combos; ++c) {
        if (has_incumbent && constraints.empty()) {
          // log EI increases with the mean and with the standard deviation, so a candidate at
          // or below the combination's best in both cannot beat it: its log EI is not needed.
          objective_posterior.posterior(combinations, c, first, count, mean, variance);
          for (Eigen::Index j = 0; j < count; ++j) {
            if (mean(j) <= best_mean(c) && variance(j) <= best_variance(c)) continue;
            const double value = log_expected_improvement(mean(j), std::sqrt(variance(j)), best);
            if (value > result.best_value(c)) {
              result.best_value(c) = value;
              result.best_candidate(c) = static_cast<int>(start + first + j);
              best_mean(c) = mean(j);
              best_variance(c) = variance(j);
            }
          }
          continue;
        }
        values = Vector::Zero(count);
        if (has_incumbent) {
          objective_posterior.posterior(combinations, c, first, count, mean, variance);
          for (Eigen::Index j = 0; j < count; ++j) values(j) = log_expected_improvement(mean(j), std::sqrt(variance(j)), best);
        }
        for (std::size_t q = 0; q < constraints.size(); ++q) {
          constraint_posteriors[q]->posterior(combinations, c, first, count, mean, variance);
          for (Eigen::Index j = 0; j < count; ++j) {
            values(j) += log_ndtr((constraints[q].threshold - mean(j)) / std::sqrt(variance(j)));
          }
        }
        for (Eigen::Index j = 0; j < count; ++j) {
          if (values(j) > result.best_value(c)) {
            result.best_value(c) = values(j);
            result.best_candidate(c) = static_cast<int>(start + first + j);
          }
        }
      }
    }
  }
  return result;
}

double acquisition_with_gradient(const MixedGP& objective, const std::vector<ConstraintModel>& constraints,
                                 const IntMatrix& h, const Vector& x, double best, Vector& gradient) {
  double mean = 0.0, variance = 0.0, value = 0.0;
  Vector mean_grad, variance_grad, term_grad;
  gradient = Vector::Zero(x.size());
  if (!std::isnan(best)) {
    objective.predict_with_gradient(h, x, mean, variance, mean_grad, variance_grad);
    value = log_expected_improvement_with_gradient(mean, variance, best, mean_grad, variance_grad, gradient);
  }
  for (const ConstraintModel& constraint : constraints) {
    constraint.gp->predict_with_gradient(h, x, mean, variance, mean_grad, variance_grad);
    value += log_probability_below_with_gradient(mean, variance, constraint.threshold, mean_grad, variance_grad,
                                                 term_grad);
    gradient += term_grad;
  }
  return value;
}

}  // namespace vpbo
