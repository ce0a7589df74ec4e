#include "combination_posterior.hpp"

#include <algorithm>

namespace vpbo {
namespace {

// The Gram matrices pay from this many combinations on, and when a Gram's flops (run as a matrix
// product, about this many times faster than the passes over pieces) cost less than the passes.
const Eigen::Index kMinGramCombinations = 64;
const double kGramProductSpeedup = 8.0;
// Candidates whose Gram matrices are copied into place together.
const Eigen::Index kGramGroup = 8;
// The Gram entries of a block are stored for a multiple of this many candidates (the padding
// zero), so that a combination's sums run over whole vectors of candidates.
const Eigen::Index kGramLanes = 8;

// Where a block's sums for the combinations read (CombinationPosterior::gram_posterior): the
// piece means and the Gram entries from the first candidate on, the piece means' slots apart
// (block_size), the Gram entries' rows and columns apart (stride, column), and k.
struct GramSumsInput {
  const double* means;
  const double* grams;
  Eigen::Index block_size, stride, column, k;
};

// For P combinations (their slots by variable and sorted) at Lanes candidates from q on: the mean
// (K_x's piece mean, then the variables' in their order) and the sums of the Gram entries on the
// diagonal and below it (from zero, slot pairs in order), written to out[3 p], out[3 p + 1] and
// out[3 p + 2] from q on. Each candidate's sums stay in registers and their terms are added in the
// order of one pass per term over the candidates; two combinations at a time keep twice as many
// additions in flight.
template <int Lanes, int P>
void gram_sums(const GramSumsInput& in, const int* const* by_variable, const int* const* sorted, Eigen::Index q, double* const* out) {
  using Lane = Eigen::Array<double, Lanes, 1>;
  using Terms = Eigen::Map<const Lane>;
  Lane mean[P], diagonal[P], off_diagonal[P];
  for (int p = 0; p < P; ++p) mean[p] = Terms(in.means + q);
  for (Eigen::Index v = 0; v < in.k; ++v) {
    for (int p = 0; p < P; ++p) mean[p] += Terms(in.means + q + by_variable[p][v] * in.block_size);
  }
  for (int p = 0; p < P; ++p) {
    diagonal[p].setZero();
    off_diagonal[p].setZero();
  }
  for (Eigen::Index b = 0; b <= in.k; ++b) {
    const double* row[P];
    for (int p = 0; p < P; ++p) {
      row[p] = in.grams + q + sorted[p][b] * in.stride;
      diagonal[p] += Terms(row[p] + sorted[p][b] * in.column);
    }
    for (Eigen::Index a = 0; a < b; ++a) {
      for (int p = 0; p < P; ++p) off_diagonal[p] += Terms(row[p] + sorted[p][a] * in.column);
    }
  }
  for (int p = 0; p < P; ++p) {
    Eigen::Map<Lane>(out[3 * p] + q) = mean[p];
    Eigen::Map<Lane>(out[3 * p + 1] + q) = diagonal[p];
    Eigen::Map<Lane>(out[3 * p + 2] + q) = off_diagonal[p];
  }
}

// gram_sums over `lanes` candidates (a multiple of kGramLanes), up to three vectors of them at a
// time, then one candidate at a time to `count`.
template <int P>
void gram_sums(const GramSumsInput& in, const int* const* by_variable, const int* const* sorted, Eigen::Index lanes, Eigen::Index count,
               double* const* out) {
  Eigen::Index q = 0;
  for (; q + 3 * kGramLanes <= lanes; q += 3 * kGramLanes) gram_sums<3 * kGramLanes, P>(in, by_variable, sorted, q, out);
  if (lanes - q == 2 * kGramLanes) gram_sums<2 * kGramLanes, P>(in, by_variable, sorted, q, out);
  if (lanes - q == kGramLanes) gram_sums<kGramLanes, P>(in, by_variable, sorted, q, out);
  for (Eigen::Index j = lanes; j < count; ++j) gram_sums<1, P>(in, by_variable, sorted, j, out);
}

}  // namespace

CombinationPosterior::CombinationPosterior(const MixedGP& gp, const IntMatrix& combinations) : gp_(gp) {
  // No categorical variable: one virtual variable with one level shared by every point, so that
  // k_h = 1 exactly as the kernel defines it.
  h_ = gp.h().cols() == 0 ? IntMatrix::Zero(gp.size(), 1) : gp.h();
  k_ = h_.cols();
  index_pairs(combinations);
  w_sum_ = gp.kernel().sum_weight();
  w_product_ = overlap_weight(k_, gp.kernel().product_weight());
  w_level_ = overlap_weight(k_, w_sum_);
  assign_slots(level_terms());
  prepare_column_products();
  gram_ = gram_pays(combinations.rows());
  if (gram_) tabulate_slots(combinations);
}

// A solved pair's piece as a product where that costs fewer flops than the solve: the trailing
// solve (n - r)^2 s, the product 2 (n - r) |I_a| s.
void CombinationPosterior::prepare_column_products() {
  const Eigen::Index n = gp_.size();
  product_rows_.assign(solved_masks_.size(), {});
  inverse_columns_.assign(solved_masks_.size(), Matrix());
  Matrix inverse;
  for (std::size_t m = 0; m < solved_masks_.size(); ++m) {
    const Eigen::Index r = solved_first_row_[m], rest = n - r;
    std::vector<Eigen::Index> rows;
    for (Eigen::Index i = r; i < n; ++i) {
      if (solved_masks_[m](i) != 0.0) rows.push_back(i);
    }
    if (2 * static_cast<Eigen::Index>(rows.size()) >= rest) continue;
    if (inverse.size() == 0) {
      inverse = Matrix::Identity(n, n);
      gp_.cholesky_factor().triangularView<Eigen::Lower>().solveInPlace(inverse);
    }
    Matrix columns(rest, static_cast<Eigen::Index>(rows.size()));
    for (std::size_t q = 0; q < rows.size(); ++q) columns.col(static_cast<Eigen::Index>(q)) = inverse.col(rows[q]).tail(rest);
    product_rows_[m] = std::move(rows);
    inverse_columns_[m] = std::move(columns);
  }
}

// Per candidate, the passes cost n (k + 2) flops per combination and the Gram n slots^2 / 2.
bool CombinationPosterior::gram_pays(Eigen::Index n_combinations) const {
  if (gp_.size() == 0 || n_combinations < kMinGramCombinations) return false;
  const double slots = static_cast<double>(n_slots());
  return kGramProductSpeedup * static_cast<double>(n_combinations) * static_cast<double>(k_ + 2) >= slots * slots / 2.0;
}

int CombinationPosterior::pair_of(const IntMatrix& combinations, Eigen::Index c, Eigen::Index v) const {
  return pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
}

// Numbers the (variable, level) pairs that the combinations use.
void CombinationPosterior::index_pairs(const IntMatrix& combinations) {
  pair_index_.resize(k_);
  for (Eigen::Index v = 0; v < k_; ++v) {
    int n_levels = combinations.cols() == 0 ? 1 : combinations.col(v).maxCoeff() + 1;
    if (gp_.size() > 0) n_levels = std::max(n_levels, h_.col(v).maxCoeff() + 1);
    pair_index_[v].assign(n_levels, -1);
    for (Eigen::Index c = 0; c < combinations.rows(); ++c) {
      int& slot = pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
      if (slot < 0) {
        slot = n_pairs_++;
        pair_variable_.push_back(v);
      }
    }
  }
}

// Per pair: the indicator e_{v,a} (the mask D_{v,a}, returned), and the weighted alpha . e_{v,a}
// and L^-1 e_{v,a}.
Matrix CombinationPosterior::level_terms() {
  const Eigen::Index n = gp_.size();
  Matrix level_mask = Matrix::Zero(n, n_pairs_);
  level_mean_ = Vector::Zero(n_pairs_);
  for (Eigen::Index v = 0; v < k_; ++v) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int pair = pair_index_[v][h_(i, v)];
      if (pair < 0) continue;
      level_mean_(pair) += w_level_ * gp_.alpha()(i);
      level_mask(i, pair) = 1.0;
    }
  }
  solved_level_ = level_mask;
  if (n > 0) gp_.cholesky_factor().triangularView<Eigen::Lower>().solveInPlace(solved_level_);
  for (int pair = 0; pair < n_pairs_; ++pair) solved_level_.col(pair) *= w_level_;
  return level_mask;
}

// The first training point of each pair's level (n: none).
std::vector<Eigen::Index> CombinationPosterior::first_rows() const {
  const Eigen::Index n = gp_.size();
  std::vector<Eigen::Index> first_row(n_pairs_, n);
  for (Eigen::Index v = 0; v < k_; ++v) {
    for (Eigen::Index i = n - 1; i >= 0; --i) {
      const int pair = pair_index_[v][h_(i, v)];
      if (pair >= 0) first_row[pair] = i;
    }
  }
  return first_row;
}

// Per variable whose data levels all have a pair: the pair derived instead of solved, the one
// whose solve would cost most (earliest first row); -1 elsewhere.
std::vector<int> CombinationPosterior::derived_pairs(const std::vector<Eigen::Index>& first_row) const {
  const Eigen::Index n = gp_.size();
  std::vector<int> derived(k_, -1);
  for (Eigen::Index v = 0; v < k_ && n > 0; ++v) {
    bool complete = true;
    for (Eigen::Index i = 0; i < n; ++i) complete = complete && pair_index_[v][h_(i, v)] >= 0;
    for (std::size_t a = 0; a < pair_index_[v].size() && complete; ++a) {
      const int pair = pair_index_[v][a];
      if (pair >= 0 && (derived[v] < 0 || first_row[pair] < first_row[derived[v]])) derived[v] = pair;
    }
  }
  return derived;
}

// Slots of the pieces: 0 is K_x, then the solved pairs, then the derived ones.
void CombinationPosterior::assign_slots(const Matrix& level_mask) {
  const std::vector<Eigen::Index> first_row = first_rows();
  const std::vector<int> derived = derived_pairs(first_row);
  slot_.assign(n_pairs_, -1);
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

double CombinationPosterior::bytes_per_candidate() const {
  const double slots = static_cast<double>(n_slots());
  return 8.0 * static_cast<double>(std::max<Eigen::Index>(gp_.size(), 1)) * (slots + 1) + (gram_ ? 8.0 * slots * slots : 0.0);
}

// What every combination's pass rereads per candidate without Gram matrices: the pieces (with them,
// the proposals take a whole block as one tile).
double CombinationPosterior::tile_bytes_per_candidate() const {
  return 8.0 * static_cast<double>(std::max<Eigen::Index>(gp_.size(), 1)) * static_cast<double>(n_slots());
}

// The pieces side by side in one matrix, n x (s slots): L^-1 K_x(., block), L^-1 D_{v,a} K_x(., block),
// then the derived ones.
void CombinationPosterior::set_block(const Matrix& block) {
  const Eigen::Index s = block.rows();
  block_size_ = s;
  next_combination_ = -1;
  const Matrix k_x = gp_.kernel().matern(gp_.x(), block);  // n x s
  pieces_.resize(gp_.size(), s * n_slots());
  pieces_.leftCols(s) = k_x;
  // Every solved piece starts as its masked K_x, also those then computed as products: their means
  // are summed from it, as before the products, so that the means keep their bits.
  for (std::size_t m = 0; m < solved_masks_.size(); ++m) {
    // Column-wise product with the 0/1 mask: the rows of other levels become exact zeros.
    pieces_.middleCols((m + 1) * s, s) = (k_x.array().colwise() * solved_masks_[m].array()).matrix();
  }
  // A vector's padding after the last slot: the Gram mode's sums read whole vectors of candidates.
  piece_means_.resize(s * n_slots() + kGramLanes);
  piece_means_.tail(kGramLanes).setZero();
  piece_means_.head(s * n_solved_).noalias() = pieces_.leftCols(s * n_solved_).transpose() * gp_.alpha();
  solve_pieces(k_x, s);
  fold_weights(s);
  if (gram_) compute_grams(s);
}

void CombinationPosterior::solve_pieces(const Matrix& k_x, Eigen::Index s) {
  const Eigen::Index n = gp_.size();
  const Matrix& lower = gp_.cholesky_factor();
  if (n > 0) lower.triangularView<Eigen::Lower>().solveInPlace(pieces_.leftCols(s));
  for (std::size_t m = 0; m < solved_masks_.size(); ++m) {
    const Eigen::Index r = solved_first_row_[m], rest = n - r;
    if (rest == 0) continue;  // a level without data: the piece is zero
    const std::vector<Eigen::Index>& rows = product_rows_[m];
    if (!rows.empty()) {
      Matrix level_k_x(static_cast<Eigen::Index>(rows.size()), s);
      for (std::size_t q = 0; q < rows.size(); ++q) level_k_x.row(static_cast<Eigen::Index>(q)) = k_x.row(rows[q]);
      pieces_.block(r, (m + 1) * s, rest, s).noalias() = inverse_columns_[m] * level_k_x;
      continue;
    }
    lower.bottomRightCorner(rest, rest).triangularView<Eigen::Lower>().solveInPlace(pieces_.block(r, (m + 1) * s, rest, s));
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
}

void CombinationPosterior::fold_weights(Eigen::Index s) {
  pieces_.leftCols(s) *= w_sum_;
  piece_means_.head(s) *= w_sum_;
  // Every slot after K_x's is one pair's.
  for (std::size_t pair = 0; pair < slot_.size(); ++pair) {
    pieces_.middleCols(slot_[pair] * s, s) *= w_product_;
    piece_means_.segment(slot_[pair] * s, s) *= w_product_;
    pieces_.middleCols(slot_[pair] * s, s).colwise() += solved_level_.col(pair);
    piece_means_.segment(slot_[pair] * s, s).array() += level_mean_(pair);
  }
}

// G_j = P_j^T P_j, P_j the slots' columns of candidate j (s columns apart), stored as row j of
// grams_ so that one entry (u, t) of all the block's candidates is one contiguous column. The
// lower triangles of kGramGroup candidates are made first and then copied entry by entry: one
// strided write per candidate and entry was a tenth of the shortlist's time.
void CombinationPosterior::compute_grams(Eigen::Index s) {
  const Eigen::Index n = gp_.size(), m = n_slots();
  gram_stride_ = (s + kGramLanes - 1) / kGramLanes * kGramLanes;
  grams_.resize(gram_stride_, m * m);
  if (gram_stride_ > s) grams_.bottomRows(gram_stride_ - s).setZero();
  gram_work_.resize(m, m * kGramGroup);
  for (Eigen::Index j0 = 0; j0 < s; j0 += kGramGroup) {
    const Eigen::Index group = std::min(kGramGroup, s - j0);
    for (Eigen::Index g = 0; g < group; ++g) {
      const Eigen::Map<const Matrix, 0, Eigen::OuterStride<>> candidate_pieces(pieces_.data() + (j0 + g) * n, n, m, Eigen::OuterStride<>(s * n));
      auto work = gram_work_.middleCols(g * m, m);
      work.triangularView<Eigen::Lower>().setZero();
      work.selfadjointView<Eigen::Lower>().rankUpdate(candidate_pieces.transpose());
    }
    // Only the lower triangle is read; a group's candidates are adjacent in each entry's column.
    for (Eigen::Index t = 0; t < m; ++t) {
      for (Eigen::Index u = t; u < m; ++u) {
        double* entry = grams_.data() + (u + t * m) * gram_stride_ + j0;
        const double* source = gram_work_.data() + u + t * m;
        for (Eigen::Index g = 0; g < group; ++g) entry[g] = source[g * m * m];
      }
    }
  }
}

// Each combination's slots, once for every block: by variable (a row of variable_slots_) and in
// increasing order (a row of sorted_slots_, so that slot pairs (a < b) sit in the lower triangle
// at (b, a)).
void CombinationPosterior::tabulate_slots(const IntMatrix& combinations) {
  variable_slots_.resize(combinations.rows(), k_);
  sorted_slots_.resize(combinations.rows(), k_ + 1);
  for (Eigen::Index c = 0; c < combinations.rows(); ++c) {
    int* slots = sorted_slots_.row(c).data();
    slots[0] = 0;
    for (Eigen::Index v = 0; v < k_; ++v) slots[v + 1] = variable_slots_(c, v) = slot_[pair_of(combinations, c, v)];
    std::sort(slots, slots + k_ + 1);
  }
}

void CombinationPosterior::posterior(const IntMatrix& combinations, Eigen::Index c, Eigen::Index first, Eigen::Index count,
                                     Vector& mean, Vector& variance) {
  if (gram_) {
    gram_posterior(c, first, count, mean, variance);
    return;
  }
  mean = piece_means_.segment(first, count);
  for (Eigen::Index v = 0; v < k_; ++v) mean += piece_means_.segment(slot_[pair_of(combinations, c, v)] * block_size_ + first, count);
  const double prior = gp_.kernel().variance();
  work_ = pieces_.middleCols(first, count);
  for (Eigen::Index v = 0; v < k_; ++v) work_ += pieces_.middleCols(slot_[pair_of(combinations, c, v)] * block_size_ + first, count);
  variance = (prior - work_.colwise().squaredNorm().transpose().array()).max(gp_.variance_floor()).matrix();
}

// The same sums as the passes would make, term by term in the same order: the mean from K_x's
// slot over the variables' slots, and ||sum_S p_s||^2 = sum_S G[s,s] + 2 sum_{a<b} G[s_b, s_a]
// (lower triangle, slots sorted); entry (u, t) of a candidate's Gram matrix is element u + t m of
// its column in grams_. Combinations c and c + 1 are summed together and c + 1's posterior kept
// for the next call (the sweep visits the combinations in order).
void CombinationPosterior::gram_posterior(Eigen::Index c, Eigen::Index first, Eigen::Index count, Vector& mean, Vector& variance) {
  if (next_combination_ == c && next_first_ == first && next_count_ == count) {
    mean = next_mean_;
    variance = next_variance_;
    return;
  }
  const bool pair = c + 1 < sorted_slots_.rows();
  // Whole vectors of candidates from `first` on while they lie in the block's stored entries
  // (padded; piece_means_ has a vector's padding too), the rest one candidate at a time.
  const Eigen::Index stride = gram_stride_;
  const Eigen::Index lanes = std::min((count + kGramLanes - 1) / kGramLanes * kGramLanes, (stride - first) / kGramLanes * kGramLanes);
  const Eigen::Index width = std::max(lanes, count);
  if (sums_.rows() < width) sums_.resize(width, 6);
  double* const out[6] = {sums_.col(0).data(), sums_.col(1).data(), sums_.col(2).data(),
                          sums_.col(3).data(), sums_.col(4).data(), sums_.col(5).data()};
  const GramSumsInput in{piece_means_.data() + first, grams_.data() + first, block_size_, stride, n_slots() * stride, k_};
  const int* const by_variable[2] = {variable_slots_.row(c).data(), variable_slots_.row(pair ? c + 1 : c).data()};
  const int* const sorted[2] = {sorted_slots_.row(c).data(), sorted_slots_.row(pair ? c + 1 : c).data()};
  if (pair) {
    gram_sums<2>(in, by_variable, sorted, lanes, count, out);
  } else {
    gram_sums<1>(in, by_variable, sorted, lanes, count, out);
  }
  const double prior = gp_.kernel().variance(), floor = gp_.variance_floor();
  mean = sums_.col(0).head(count);
  variance = (prior - (sums_.col(1).head(count) + 2.0 * sums_.col(2).head(count)).array()).max(floor).matrix();
  next_combination_ = -1;
  if (pair) {
    next_mean_ = sums_.col(3).head(count);
    next_variance_ = (prior - (sums_.col(4).head(count) + 2.0 * sums_.col(5).head(count)).array()).max(floor).matrix();
    next_combination_ = c + 1;
    next_first_ = first;
    next_count_ = count;
  }
}

}  // namespace vpbo
