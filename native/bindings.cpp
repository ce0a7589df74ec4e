// pybind11 bindings: type conversion and GIL release only; all logic lives in the other files.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "acquisition.hpp"
#include "gp.hpp"
#include "likelihood.hpp"
#include "proposals.hpp"

namespace py = pybind11;
using namespace vpbo;

namespace {
using ConstraintList = std::vector<std::pair<const MixedGP*, double>>;

std::vector<ConstraintModel> make_constraints(const ConstraintList& constraints) {
  std::vector<ConstraintModel> models;
  for (const auto& [gp, threshold] : constraints) models.push_back({gp, threshold});
  return models;
}

KernelParams make_params(const Vector& lengthscales, double variance, double lambda) {
  KernelParams params;
  params.lengthscales = lengthscales;
  params.variance = variance;
  params.lambda = lambda;
  return params;
}
}  // namespace

PYBIND11_MODULE(VPBO_MODULE_NAME, m) {
  m.doc() = "Native core of optuna-vpbo: mixed-kernel GP, log-EI, MES and value proposals.";
  py::options options;

  py::class_<MixedGP>(m, "MixedGP")
      .def(py::init([](IntMatrix h, Matrix x, Vector y, Vector lengthscales, double variance, double lambda,
                       double noise) {
             py::gil_scoped_release release;
             return new MixedGP(std::move(h), std::move(x), std::move(y), make_params(lengthscales, variance, lambda),
                                noise);
           }),
           py::arg("h"), py::arg("x"), py::arg("y"), py::arg("lengthscales"), py::arg("variance"), py::arg("lam"),
           py::arg("noise"))
      .def(
          "predict",
          [](const MixedGP& gp, const IntMatrix& h, const Matrix& x) {
            Vector mean, variance;
            {
              py::gil_scoped_release release;
              gp.predict(h, x, mean, variance);
            }
            return py::make_tuple(mean, variance);
          },
          py::arg("h"), py::arg("x"), "Posterior mean and latent variance at query points.")
      .def(
          "predict_with_gradient",
          [](const MixedGP& gp, const IntMatrix& h, const Vector& x) {
            double mean = 0.0, variance = 0.0;
            Vector mean_grad, variance_grad;
            {
              py::gil_scoped_release release;
              gp.predict_with_gradient(h, x, mean, variance, mean_grad, variance_grad);
            }
            return py::make_tuple(mean, variance, mean_grad, variance_grad);
          },
          py::arg("h"), py::arg("x"), "Mean, latent variance and their gradients w.r.t. x at one point (h: 1 x k).")
      .def_property_readonly("jitter", &MixedGP::jitter)
      .def_property_readonly("n_train", &MixedGP::size);

  py::class_<LikelihoodEvaluator>(m, "LikelihoodEvaluator")
      .def(py::init<const IntMatrix&, const Matrix&, const Vector&>(), py::arg("h"), py::arg("x"), py::arg("y"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "__call__",
          [](const LikelihoodEvaluator& evaluator, const Vector& theta) {
            Vector gradient;
            double value = 0.0;
            {
              py::gil_scoped_release release;
              value = evaluator.negative_log_likelihood(theta, gradient);
            }
            return py::make_tuple(value, gradient);
          },
          py::arg("theta"),
          "Negative log marginal likelihood and its gradient; theta = [log l, log variance, log noise, lambda].")
      .def_property_readonly("n_params", &LikelihoodEvaluator::n_params);

  m.def(
      "value_proposals",
      [](const MixedGP& objective, const IntMatrix& combinations, const Matrix& candidates, double best,
         const ConstraintList& constraints, double max_block_bytes) {
        ProposalResult result;
        {
          py::gil_scoped_release release;
          result = value_proposals(objective, make_constraints(constraints), combinations, candidates, best,
                                   max_block_bytes);
        }
        return py::make_tuple(result.best_candidate, result.best_value);
      },
      py::arg("objective"), py::arg("combinations"), py::arg("candidates"), py::arg("best"),
      py::arg("constraints") = ConstraintList{}, py::arg("max_block_bytes") = 64e6,
      "Per combination: index of the best candidate and its acquisition (the value proposal). "
      "constraints: (GP, threshold) pairs; best = NaN when no observation is feasible.");
  m.def(
      "acquisition_with_gradient",
      [](const MixedGP& objective, const IntMatrix& h, const Vector& x, double best,
         const ConstraintList& constraints) {
        Vector gradient;
        double value = 0.0;
        {
          py::gil_scoped_release release;
          value = acquisition_with_gradient(objective, make_constraints(constraints), h, x, best, gradient);
        }
        return py::make_tuple(value, gradient);
      },
      py::arg("objective"), py::arg("h"), py::arg("x"), py::arg("best"), py::arg("constraints") = ConstraintList{},
      "The value-proposal acquisition at one point (h: 1 x k) and its gradient w.r.t. x.");
  m.def("erfcx", py::vectorize(erfcx), py::arg("x"));
  m.def("log_ndtr", py::vectorize(log_ndtr), py::arg("z"));
  m.def("log_h", py::vectorize(log_h), py::arg("u"));
  m.def("log_expected_improvement", py::vectorize(log_expected_improvement), py::arg("mean"), py::arg("sd"),
        py::arg("best"));
  m.def("sample_max_values_gumbel", &sample_max_values_gumbel, py::arg("mean"), py::arg("sd"), py::arg("uniforms"),
        py::arg("max_observed"), py::call_guard<py::gil_scoped_release>());
  m.def("max_value_entropy_search", &max_value_entropy_search, py::arg("mean"), py::arg("sd"), py::arg("max_values"),
        py::call_guard<py::gil_scoped_release>());
}
