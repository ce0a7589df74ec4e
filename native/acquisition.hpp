// The acquisition interface of the value proposals, the single extension point of the method
// (as _optimize_acqf is in Optuna's GPSampler): an acquisition reads the posterior of one or more
// GPs at a point and returns a value to maximise, with its gradient in x. Acquisitions compose:
// log EI plus the log probability of feasibility of each constraint is a SumOfAcquisitions, as
// BoTorch's LogCEI / Optuna's ConstrainedLogEI.
//
// - log EI in the stable form of Ament et al. (2023), "Unexpected Improvements to Expected
//   Improvement for Bayesian Optimization" (normal.hpp);
// - log P(feasible) of a constraint GP, Gardner et al. (2014), "Bayesian optimization with
//   inequality constraints";
// - log EHVI in hypervolume.hpp.
#pragma once

#include <limits>
#include <memory>
#include <vector>

#include "gp.hpp"

namespace vpbo {

using ModelPtr = std::shared_ptr<const MixedGP>;

// One model's posterior at one point, with the gradients of its mean and variance in x.
struct PointPosterior {
  double mean = 0.0;
  double variance = 0.0;
  Vector mean_gradient;
  Vector variance_gradient;
};

class Acquisition {
 public:
  // Throws std::invalid_argument unless there is at least one model and all take points of the
  // same shape.
  explicit Acquisition(std::vector<ModelPtr> models);
  virtual ~Acquisition() = default;

  // The GPs whose posteriors the acquisition reads, in the order its methods take them.
  const std::vector<ModelPtr>& models() const { return models_; }
  // The value from each model's posterior mean and latent variance (arrays of models().size()).
  virtual double value(const double* mean, const double* variance) const = 0;
  // The value and its gradient in x from each model's posterior at one point.
  virtual double value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const = 0;
  // True when the value cannot decrease as the mean or the variance of its (single) model grows:
  // a candidate at or below another in both cannot beat it (the proposals skip such candidates).
  virtual bool increases_with_mean_and_variance() const { return false; }
  // An upper bound of value() that costs less to compute (+inf: none): the proposals evaluate
  // value() only where the bound could beat a combination's best.
  virtual double value_bound(const double* /*mean*/, const double* /*variance*/) const {
    return std::numeric_limits<double>::infinity();
  }

 private:
  std::vector<ModelPtr> models_;
};

using AcquisitionPtr = std::shared_ptr<const Acquisition>;

// log EI over the incumbent `best` of the model's (maximised) targets.
class LogExpectedImprovement final : public Acquisition {
 public:
  LogExpectedImprovement(ModelPtr model, double best);
  double value(const double* mean, const double* variance) const override;
  double value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const override;
  bool increases_with_mean_and_variance() const override { return true; }
  // Far below the incumbent, log(sd) + log phi(u) - log(1 + u^2), from h(u) <= phi(u) / (1 + u^2)
  // for u < 0 (the Mills-ratio inequality (1 - Phi(t)) / phi(t) >= t / (1 + t^2), t = -u > 0).
  double value_bound(const double* mean, const double* variance) const override;

 private:
  double best_;
};

// log P(f < threshold) of a constraint model: the log probability that the point is feasible.
class LogProbabilityOfFeasibility final : public Acquisition {
 public:
  LogProbabilityOfFeasibility(ModelPtr model, double threshold);
  double value(const double* mean, const double* variance) const override;
  double value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const override;

 private:
  double threshold_;
};

// The sum of several acquisitions; its models are theirs, concatenated in order.
class SumOfAcquisitions final : public Acquisition {
 public:
  explicit SumOfAcquisitions(std::vector<AcquisitionPtr> terms);
  double value(const double* mean, const double* variance) const override;
  double value_with_gradient(const PointPosterior* posteriors, Vector& gradient) const override;
  bool increases_with_mean_and_variance() const override;

 private:
  std::vector<AcquisitionPtr> terms_;
};

// log EI at mean m and standard deviation s > 0 over the incumbent `best`:
// log h((m - best) / s) + log s.
double log_expected_improvement(double mean, double sd, double best);

// The acquisition at points (h: N x k, x: N x d), from each model's batched posterior.
Vector evaluate(const Acquisition& acquisition, const IntMatrix& h, const Matrix& x);

// The acquisition from given posteriors: mean and variance are N x (number of models).
Vector evaluate_posterior(const Acquisition& acquisition, const Matrix& mean, const Matrix& variance);

// The acquisition at one point (h: 1 x k) and its gradient in x.
double value_with_gradient(const Acquisition& acquisition, const IntMatrix& h, const Vector& x, Vector& gradient);

}  // namespace vpbo
