#include "acquisition.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "normal.hpp"

namespace vpbo {
namespace {
std::vector<ModelPtr> single(ModelPtr model) { return {std::move(model)}; }

std::vector<ModelPtr> models_of(const std::vector<AcquisitionPtr>& terms) {
  std::vector<ModelPtr> models;
  for (const AcquisitionPtr& term : terms) {
    if (term == nullptr) throw std::invalid_argument("SumOfAcquisitions: a term is missing");
    models.insert(models.end(), term->models().begin(), term->models().end());
  }
  return models;
}
}  // namespace

Acquisition::Acquisition(std::vector<ModelPtr> models) : models_(std::move(models)) {
  if (models_.empty()) throw std::invalid_argument("acquisition: needs at least one model");
  for (const ModelPtr& model : models_) {
    if (model == nullptr) throw std::invalid_argument("acquisition: a model is missing");
    if (model->h().cols() != models_[0]->h().cols() || model->x().cols() != models_[0]->x().cols()) {
      throw std::invalid_argument("acquisition: the models take points of different shapes");
    }
  }
}

double log_expected_improvement(double mean, double sd, double best) {
  return log_h((mean - best) / sd) + std::log(sd);
}

LogExpectedImprovement::LogExpectedImprovement(ModelPtr model, double best) : Acquisition(single(std::move(model))), best_(best) {
  if (!std::isfinite(best_)) throw std::invalid_argument("log EI: the incumbent must be finite");
}

double LogExpectedImprovement::value(const double* mean, const double* variance) const {
  return log_expected_improvement(mean[0], std::sqrt(variance[0]), best_);
}

double LogExpectedImprovement::value_bound(const double* mean, const double* variance) const {
  const double sd = std::sqrt(variance[0]);
  const double u = (mean[0] - best_) / sd;
  if (!(u < -1.0)) return std::numeric_limits<double>::infinity();  // near the incumbent, or NaN
  return log_phi(u) - std::log1p(u * u) + std::log(sd);
}

double LogExpectedImprovement::value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const {
  const PointPosterior& p = posteriors[0];
  const double sd = std::sqrt(p.variance);
  const double u = (p.mean - best_) / sd;
  const Vector sd_gradient = p.variance_gradient / (2.0 * sd);
  // d/dx [log h(u) + log s] = (log h)'(u) (mu' - u s') / s + s' / s
  gradient = (log_h_derivative(u) * (p.mean_gradient - u * sd_gradient) + sd_gradient) / sd;
  return log_h(u) + std::log(sd);
}

LogProbabilityOfFeasibility::LogProbabilityOfFeasibility(ModelPtr model, double threshold)
    : Acquisition(single(std::move(model))), threshold_(threshold) {
  if (!std::isfinite(threshold_)) throw std::invalid_argument("log P(feasible): the threshold must be finite");
}

double LogProbabilityOfFeasibility::value(const double* mean, const double* variance) const {
  return log_ndtr((threshold_ - mean[0]) / std::sqrt(variance[0]));
}

double LogProbabilityOfFeasibility::value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const {
  const PointPosterior& p = posteriors[0];
  const double sd = std::sqrt(p.variance);
  const double u = (threshold_ - p.mean) / sd;
  const double log_cdf = log_ndtr(u);
  // d/dx log Phi(u) = (phi(u) / Phi(u)) du/dx,  du/dx = -(mu' + u s') / s
  const double mills = std::exp(log_phi(u) - log_cdf);
  gradient = -mills * (p.mean_gradient + u * p.variance_gradient / (2.0 * sd)) / sd;
  return log_cdf;
}

SumOfAcquisitions::SumOfAcquisitions(std::vector<AcquisitionPtr> terms) : Acquisition(models_of(terms)), terms_(std::move(terms)) {}

double SumOfAcquisitions::value(const double* mean, const double* variance) const {
  double total = 0.0;
  std::size_t offset = 0;
  for (const AcquisitionPtr& term : terms_) {
    total += term->value(mean + offset, variance + offset);
    offset += term->models().size();
  }
  return total;
}

double SumOfAcquisitions::value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const {
  double total = 0.0;
  std::size_t offset = 0;
  Vector term_gradient;
  gradient = Vector::Zero(posteriors[0].mean_gradient.size());
  for (const AcquisitionPtr& term : terms_) {
    total += term->value_with_gradient(posteriors + offset, term_gradient);
    gradient += term_gradient;
    offset += term->models().size();
  }
  return total;
}

bool SumOfAcquisitions::increases_with_mean_and_variance() const {
  return terms_.size() == 1 && terms_[0]->increases_with_mean_and_variance();
}

Vector evaluate(const Acquisition& acquisition, const IntMatrix& h, const Matrix& x) {
  const std::size_t n_models = acquisition.models().size();
  std::vector<Vector> means(n_models), variances(n_models);
  for (std::size_t m = 0; m < n_models; ++m) acquisition.models()[m]->predict(h, x, means[m], variances[m]);
  std::vector<double> mean(n_models), variance(n_models);
  Vector values(h.rows());
  for (Eigen::Index i = 0; i < h.rows(); ++i) {
    for (std::size_t m = 0; m < n_models; ++m) {
      mean[m] = means[m](i);
      variance[m] = variances[m](i);
    }
    values(i) = acquisition.value(mean.data(), variance.data());
  }
  return values;
}

Vector evaluate_posterior(const Acquisition& acquisition, const Matrix& mean, const Matrix& variance) {
  const Eigen::Index n_models = static_cast<Eigen::Index>(acquisition.models().size());
  if (mean.cols() != n_models || variance.cols() != n_models || mean.rows() != variance.rows()) {
    throw std::invalid_argument("evaluate_posterior: mean and variance must be N x " + std::to_string(n_models));
  }
  if (!mean.allFinite() || !(variance.array() > 0.0).all()) throw std::invalid_argument("evaluate_posterior: needs finite means and positive variances");
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m = mean, v = variance;
  Vector values(m.rows());
  for (Eigen::Index i = 0; i < m.rows(); ++i) values(i) = acquisition.value(m.row(i).data(), v.row(i).data());
  return values;
}

double value_with_gradient(const Acquisition& acquisition, const IntMatrix& h, const Vector& x, Vector& gradient) {
  std::vector<PointPosterior> posteriors(acquisition.models().size());
  for (std::size_t m = 0; m < posteriors.size(); ++m) {
    PointPosterior& p = posteriors[m];
    acquisition.models()[m]->predict_with_gradient(h, x, p.mean, p.variance, p.mean_gradient, p.variance_gradient);
  }
  return acquisition.value_with_gradient(posteriors.data(), gradient);
}

}  // namespace vpbo
