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

// The posterior of one GP at every (combination, candidate) of a candidate block, assembled from
// per-(variable, level) pieces (see proposals.hpp).
class CombinationPosterior {
 public:
  CombinationPosterior(const MixedGP& gp, const IntMatrix& combinations) : gp_(gp) {
    const Eigen::Index n = gp.size();
    // No categorical variable: one virtual variable with one level shared by every point, so
    // that k_h = 1 exactly as the kernel defines it.
    h_ = gp.h().cols() == 0 ? IntMatrix::Zero(n, 1) : gp.h();
    k_ = h_.cols();
    pair_index_.resize(k_);
    n_pairs_ = 0;
    for (Eigen::Index v = 0; v < k_; ++v) {
      int n_levels = combinations.cols() == 0 ? 1 : combinations.col(v).maxCoeff() + 1;
      if (n > 0) n_levels = std::max(n_levels, h_.col(v).maxCoeff() + 1);
      pair_index_[v].assign(n_levels, -1);
      for (Eigen::Index c = 0; c < combinations.rows(); ++c) {
        int& slot = pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
        if (slot < 0) slot = n_pairs_++;
      }
    }
    const KernelParams& p = gp.params();
    w_sum_ = p.variance * (1.0 - p.lambda) / 2.0;
    w_prod_ = p.variance * p.lambda / static_cast<double>(k_);
    variance_floor_ = kMinRelativeVariance * p.variance;
    // Per (variable, level) pair: alpha . e_{v,a} and L^-1 e_{v,a}.
    alpha_on_level_ = Vector::Zero(n_pairs_);
    solved_level_ = Matrix::Zero(n, n_pairs_);
    for (Eigen::Index v = 0; v < k_; ++v) {
      for (Eigen::Index i = 0; i < n; ++i) {
        const int pair = pair_index_[v][h_(i, v)];
        if (pair < 0) continue;
        alpha_on_level_(pair) += gp.alpha()(i);
        solved_level_(i, pair) = 1.0;
      }
    }
    if (n > 0) gp.cholesky_lower().triangularView<Eigen::Lower>().solveInPlace(solved_level_);
  }

  double bytes_per_candidate() const { return 8.0 * std::max<Eigen::Index>(gp_.size(), 1) * (n_pairs_ + 2); }

  void set_block(const Matrix& block) {
    const Eigen::Index n = gp_.size();
    const auto lower = gp_.cholesky_lower().triangularView<Eigen::Lower>();
    const Matrix k_x = matern52(gp_.x(), block, gp_.params().lengthscales);  // n x s
    mean_x_ = k_x.transpose() * gp_.alpha();
    solved_x_ = k_x;
    if (n > 0) lower.solveInPlace(solved_x_);
    mean_masked_.resize(block.rows(), n_pairs_);
    solved_masked_.assign(n_pairs_, Matrix());
    for (Eigen::Index v = 0; v < k_; ++v) {
      for (std::size_t a = 0; a < pair_index_[v].size(); ++a) {
        const int pair = pair_index_[v][a];
        if (pair < 0) continue;
        Matrix masked = k_x;
        for (Eigen::Index i = 0; i < n; ++i) {
          if (h_(i, v) != static_cast<int>(a)) masked.row(i).setZero();
        }
        mean_masked_.col(pair) = masked.transpose() * gp_.alpha();
        if (n > 0) lower.solveInPlace(masked);
        solved_masked_[pair] = std::move(masked);
      }
    }
  }

  // Posterior mean and latent variance of combination c (a row of codes) on the current block.
  void posterior(const IntMatrix& combinations, Eigen::Index c, Vector& mean, Vector& variance) {
    const Eigen::Index n = gp_.size();
    double alpha_h = 0.0;
    solved_h_.setZero(n);
    mean = w_sum_ * mean_x_;
    w_ = w_sum_ * solved_x_;
    for (Eigen::Index v = 0; v < k_; ++v) {
      const int pair = pair_index_[v][combinations.cols() == 0 ? 0 : combinations(c, v)];
      alpha_h += alpha_on_level_(pair);
      solved_h_ += solved_level_.col(pair);
      mean += w_prod_ * mean_masked_.col(pair);
      w_ += w_prod_ * solved_masked_[pair];
    }
    const double inv_k = 1.0 / static_cast<double>(k_);
    mean.array() += w_sum_ * alpha_h * inv_k;
    w_.colwise() += (w_sum_ * inv_k) * solved_h_;
    variance = (gp_.params().variance - w_.colwise().squaredNorm().transpose().array()).max(variance_floor_).matrix();
  }

 private:
  const MixedGP& gp_;
  IntMatrix h_;
  Eigen::Index k_ = 0;
  std::vector<std::vector<int>> pair_index_;
  int n_pairs_ = 0;
  double w_sum_ = 0.0, w_prod_ = 0.0, variance_floor_ = 0.0;
  Vector alpha_on_level_;
  Matrix solved_level_;
  // Pieces of the current candidate block.
  Vector mean_x_;
  Matrix solved_x_, mean_masked_;
  std::vector<Matrix> solved_masked_;
  // Work space.
  Vector solved_h_;
  Matrix w_;
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
  const Eigen::Index block = std::max<Eigen::Index>(
      1, std::min<Eigen::Index>(candidates.rows(),
                                static_cast<Eigen::Index>(max_block_bytes / bytes_per_candidate /
                                                          static_cast<double>(1 + constraints.size()))));

  ProposalResult result;
  result.best_candidate = IntVector::Zero(n_combos);
  result.best_value = Vector::Constant(n_combos, -std::numeric_limits<double>::infinity());
  Vector mean, variance, values;
  for (Eigen::Index start = 0; start < candidates.rows(); start += block) {
    const Eigen::Index s = std::min(block, candidates.rows() - start);
    const Matrix block_points = candidates.middleRows(start, s);
    objective_posterior.set_block(block_points);
    for (auto& posterior : constraint_posteriors) posterior->set_block(block_points);
    for (Eigen::Index c = 0; c < n_combos; ++c) {
      values = Vector::Zero(s);
      if (has_incumbent) {
        objective_posterior.posterior(combinations, c, mean, variance);
        for (Eigen::Index j = 0; j < s; ++j) values(j) = log_expected_improvement(mean(j), std::sqrt(variance(j)), best);
      }
      for (std::size_t q = 0; q < constraints.size(); ++q) {
        constraint_posteriors[q]->posterior(combinations, c, mean, variance);
        for (Eigen::Index j = 0; j < s; ++j) {
          values(j) += log_ndtr((constraints[q].threshold - mean(j)) / std::sqrt(variance(j)));
        }
      }
      for (Eigen::Index j = 0; j < s; ++j) {
        if (values(j) > result.best_value(c)) {
          result.best_value(c) = values(j);
          result.best_candidate(c) = static_cast<int>(start + j);
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
