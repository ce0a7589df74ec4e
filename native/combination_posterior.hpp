// The posterior of one GP at every (combination, candidate) pair of a candidate block, assembled
// from per-(variable, level) pieces (VPBO paper, sec. 4.1; the structural saving of
// shared/reference-notes.md).
//
// All combinations share one candidate set. With k_h(c, H_i) = sum_v w_v 1[c_v = H_iv] (the
// overlap kernel's equal weights w_v = 1/k, overlap_weight) the cross-covariance of (c, x_j)
// with the training data is a combination of e_{v,a} = 1[H_.v = a], the Matern block K_x(., x_j)
// and the masked blocks D_{v,a} K_x(., x_j), so the triangular solves are needed once per
// (variable, level) pair rather than once per combination. With the kernel weights w_sum and
// w_prod, the solved cross-covariance of combination c is
//   L^-1 k_c = w_sum L^-1 K_x + sum_v [w_prod w_v L^-1 D_{v,c_v} K_x + w_sum w_v L^-1 e_{v,c_v} 1^T],
// so the pieces are stored with their weights and level terms folded in, and a combination costs
// k + 1 passes over them. The masks of one variable sum to the identity over the levels present
// in the data, so one level per variable (when all its data levels have a piece) is L^-1 K_x minus
// the others rather than a solve of its own. A masked block is zero above the first training
// point of its level, and so is its solve: each is solved with the trailing part of L only, which
// pays when the training points are grouped by level (GPHyperparameters.make_gp orders them so).
// A level with few training points far apart is cheaper as a product than as a solve:
// L^-1 D_{v,a} K_x = (L^-1)_{., I_a} K_x(I_a, .), I_a the level's training points, with the
// columns of L^-1 computed once.
//
// With many combinations, each candidate's pieces P_j (n x slots) are reduced once to their Gram
// matrix G_j = P_j^T P_j (a matrix product), and a combination's variance costs (k+1)(k+2)/2
// lookups of G_j instead of k + 1 passes over n rows: ||sum_{s in S_c} p_s||^2 = sum_{s,t} G_j[s,t].
#pragma once

#include <vector>

#include "gp.hpp"

namespace vpbo {

class CombinationPosterior {
 public:
  CombinationPosterior(const MixedGP& gp, const IntMatrix& combinations);

  // Whether the variances come from the pieces' Gram matrices (many combinations).
  bool uses_gram() const { return gram_; }

  // Bytes of a candidate block per candidate (pieces and work space), and of the pieces alone.
  double bytes_per_candidate() const;
  double tile_bytes_per_candidate() const;

  // Solve the pieces of a candidate block (s x d points).
  void set_block(const Matrix& block);

  // Posterior mean and latent variance of combination c (a row of codes; `combinations` are the
  // constructor's) at `count` candidates of the current block from `first` on.
  void posterior(const IntMatrix& combinations, Eigen::Index c, Eigen::Index first, Eigen::Index count, Vector& mean,
                 Vector& variance);

 private:
  // A derived piece: slot = (slot 0) - sum of the `subtract` slots.
  struct Derivation {
    int slot;
    std::vector<int> subtract;
  };

  void index_pairs(const IntMatrix& combinations);
  Matrix level_terms();
  std::vector<Eigen::Index> first_rows() const;
  std::vector<int> derived_pairs(const std::vector<Eigen::Index>& first_row) const;
  void assign_slots(const Matrix& level_mask);
  void solve_pieces(const Matrix& k_x, Eigen::Index s);
  void prepare_column_products();
  void fold_weights(Eigen::Index s);
  bool gram_pays(Eigen::Index n_combinations) const;
  void compute_grams(Eigen::Index s);
  void tabulate_slots(const IntMatrix& combinations);
  void gram_posterior(Eigen::Index c, Eigen::Index first, Eigen::Index count, Vector& mean, Vector& variance);
  int pair_of(const IntMatrix& combinations, Eigen::Index c, Eigen::Index v) const;
  Eigen::Index n_slots() const { return n_solved_ + static_cast<Eigen::Index>(derivations_.size()); }

  const MixedGP& gp_;
  IntMatrix h_;
  Eigen::Index k_ = 0;
  int n_pairs_ = 0;
  std::vector<std::vector<int>> pair_index_;
  std::vector<Eigen::Index> pair_variable_;
  // w_sum, and w_prod w_v and w_sum w_v (the same for every variable v).
  double w_sum_ = 0.0;
  double w_product_ = 0.0, w_level_ = 0.0;
  // Per pair: weighted alpha . e_{v,a}, weighted L^-1 e_{v,a} (columns) and its piece's slot.
  Vector level_mean_;
  Matrix solved_level_;
  std::vector<int> slot_;
  // Masks of the solved pairs (slots 1 .. n_solved_ - 1) with their first nonzero rows, and the
  // derived pieces.
  std::vector<Vector> solved_masks_;
  std::vector<Eigen::Index> solved_first_row_;
  // Per solved pair, empty or (a product) its level's training points and the rows from its first
  // row on of those columns of L^-1.
  std::vector<std::vector<Eigen::Index>> product_rows_;
  std::vector<Matrix> inverse_columns_;
  Eigen::Index n_solved_ = 1;
  std::vector<Derivation> derivations_;
  // Pieces of the current candidate block, weights folded in, and their products with alpha.
  Eigen::Index block_size_ = 0;
  Matrix pieces_;
  Vector piece_means_;
  Matrix work_;
  // Gram mode: per candidate of the block a slots x slots lower triangle, side by side (the upper
  // triangle is never written; gram_stride_ rows, the block's candidates padded with zeros), a
  // group of candidates' Gram matrices in the making, each combination's slots by variable and
  // sorted (a row each), the sums of the combinations at hand (mean, diagonal and off-diagonal
  // of two combinations, a column each), and the next combination's posterior (-1: none) at the
  // candidates from next_first_ on.
  bool gram_ = false;
  Matrix grams_, gram_work_;
  Eigen::Index gram_stride_ = 0;
  IntMatrix variable_slots_, sorted_slots_;
  Matrix sums_;
  Eigen::Index next_combination_ = -1, next_first_ = 0, next_count_ = 0;
  Vector next_mean_, next_variance_;
};

}  // namespace vpbo
