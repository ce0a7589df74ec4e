#include "proposals.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "acquisition.hpp"

namespace vpbo {
namespace {

// Minimum latent variance, as a fraction of the prior variance (matches MixedGP::predict).
const double kMinRelativeVariance = 1e-12;

// Indices of the (variable, level) pairs that the combinations use; -1 where unused.
std::vector<std::vector<int>> index_level_pairs(const IntMatrix& combinations, const IntMatrix& h, int& n_pairs) {
  const Eigen::Index k = combinations.cols();
  std::vector<std::vector<int>> index(k);
  n_pairs = 0;
  for (Eigen::Index v = 0; v < k; ++v) {
    int n_levels = combinations.col(v).maxCoeff() + 1;
    if (h.rows() > 0) n_levels = std::max(n_levels, h.col(v).maxCoeff() + 1);
    index[v].assign(n_levels, -1);
    for (Eigen::Index c = 0; c < combinations.rows(); ++c) {
      int& slot = index[v][combinations(c, v)];
      if (slot < 0) slot = n_pairs++;
    }
  }
  return index;
}

}  // namespace

ProposalResult value_proposals(const MixedGP& gp, const IntMatrix& combinations_in, const Matrix& candidates,
                               double best, double max_block_bytes) {
  if (combinations_in.rows() == 0) throw std::invalid_argument("value_proposals: no combinations");
  if (candidates.rows() == 0) throw std::invalid_argument("value_proposals: no candidates");
  if (combinations_in.cols() != gp.h().cols()) throw std::invalid_argument("value_proposals: combinations have the wrong number of categorical variables");
  if (candidates.cols() != gp.x().cols()) throw std::invalid_argument("value_proposals: candidates have the wrong number of numeric dimensions");
  if (!candidates.allFinite()) throw std::invalid_argument("value_proposals: candidates contain NaN or inf");
  if (combinations_in.size() > 0 && combinations_in.minCoeff() < 0) throw std::invalid_argument("value_proposals: categorical codes must be >= 0");
  if (!std::isfinite(best)) throw std::invalid_argument("value_proposals: the incumbent must be finite");

  // No categorical variable: one virtual variable with one level that every point shares,
  // so that k_h = 1 exactly as the kernel defines it.
  const bool virtual_variable = combinations_in.cols() == 0;
  const Eigen::Index n = gp.size(), d = candidates.cols(), n_combos = combinations_in.rows();
  const IntMatrix combinations = virtual_variable ? IntMatrix::Zero(n_combos, 1) : combinations_in;
  const IntMatrix h = virtual_variable ? IntMatrix::Zero(n, 1) : gp.h();
  const Eigen::Index k = combinations.cols();

  const KernelParams& p = gp.params();
  const double w_sum = p.variance * (1.0 - p.lambda) / 2.0;
  const double w_prod = p.variance * p.lambda / static_cast<double>(k);
  const double var_floor = kMinRelativeVariance * p.variance;
  const auto lower = gp.cholesky_lower().triangularView<Eigen::Lower>();
  const Vector& alpha = gp.alpha();

  int n_pairs = 0;
  const std::vector<std::vector<int>> pair_index = index_level_pairs(combinations, h, n_pairs);
  // Per (variable, level) pair: alpha . e_{v,a} and L^-1 e_{v,a}.
  Vector alpha_on_level = Vector::Zero(n_pairs);
  Matrix solved_level = Matrix::Zero(n, n_pairs);
  for (Eigen::Index v = 0; v < k; ++v) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const int pair = h(i, v) < static_cast<int>(pair_index[v].size()) ? pair_index[v][h(i, v)] : -1;
      if (pair < 0) continue;
      alpha_on_level(pair) += alpha(i);
      solved_level(i, pair) = 1.0;
    }
  }
  if (n > 0) lower.solveInPlace(solved_level);

  ProposalResult result;
  result.best_candidate = IntVector::Zero(n_combos);
  result.best_value = Vector::Constant(n_combos, -std::numeric_limits<double>::infinity());

  const double bytes_per_column = 8.0 * std::max<Eigen::Index>(n, 1) * (n_pairs + 2);
  const Eigen::Index block = std::max<Eigen::Index>(
      1, std::min<Eigen::Index>(candidates.rows(), static_cast<Eigen::Index>(max_block_bytes / bytes_per_column)));

  Matrix masked, w;
  Vector mean, variance;
  for (Eigen::Index start = 0; start < candidates.rows(); start += block) {
    const Eigen::Index s = std::min(block, candidates.rows() - start);
    const Matrix k_x = matern52(gp.x(), candidates.middleRows(start, s), p.lengthscales);  // n x s
    const Vector mean_x = k_x.transpose() * alpha;
    Matrix solved_x = k_x;
    if (n > 0) lower.solveInPlace(solved_x);
    // Masked blocks per (variable, level) pair: alpha^T D K_x and L^-1 D K_x.
    Matrix mean_masked(s, n_pairs);
    std::vector<Matrix> solved_masked(n_pairs);
    for (Eigen::Index v = 0; v < k; ++v) {
      for (std::size_t a = 0; a < pair_index[v].size(); ++a) {
        const int pair = pair_index[v][a];
        if (pair < 0) continue;
        masked = k_x;
        for (Eigen::Index i = 0; i < n; ++i) {
          if (h(i, v) != static_cast<int>(a)) masked.row(i).setZero();
        }
        mean_masked.col(pair) = masked.transpose() * alpha;
        if (n > 0) lower.solveInPlace(masked);
        solved_masked[pair] = masked;
      }
    }
    for (Eigen::Index c = 0; c < n_combos; ++c) {
      double alpha_h = 0.0;
      Vector solved_h = Vector::Zero(n);
      mean = w_sum * mean_x;
      w = w_sum * solved_x;
      for (Eigen::Index v = 0; v < k; ++v) {
        const int pair = pair_index[v][combinations(c, v)];
        alpha_h += alpha_on_level(pair);
        solved_h += solved_level.col(pair);
        mean += w_prod * mean_masked.col(pair);
        w += w_prod * solved_masked[pair];
      }
      mean.array() += w_sum * alpha_h / static_cast<double>(k);
      w.colwise() += (w_sum / static_cast<double>(k)) * solved_h;
      variance = (p.variance - w.colwise().squaredNorm().transpose().array()).max(var_floor).matrix();
      for (Eigen::Index j = 0; j < s; ++j) {
        const double value = log_expected_improvement(mean(j), std::sqrt(variance(j)), best);
        if (value > result.best_value(c)) {
          result.best_value(c) = value;
          result.best_candidate(c) = static_cast<int>(start + j);
        }
      }
    }
  }
  return result;
}

}  // namespace vpbo
