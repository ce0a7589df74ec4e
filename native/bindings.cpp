// pybind11 bindings: type conversion and GIL release only; all logic lives in the other files.
// Native objects are held by shared pointers, so an acquisition keeps its GPs alive while it is
// used without the GIL.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "acquisition.hpp"
#include "hypervolume.hpp"
#include "likelihood.hpp"
#include "max_value_entropy.hpp"
#include "normal.hpp"
#include "proposals.hpp"

namespace py = pybind11;
using namespace vpbo;

namespace {
template <typename Call>
auto without_gil(Call call) -> decltype(call()) {
  py::gil_scoped_release release;
  return call();
}

void bind_hyperparameters(py::module_& m) {
  m.attr("HYPERPARAMETER_LAYOUT_VERSION") = kHyperparameterLayoutVersion;
  py::class_<HyperparameterBlock>(m, "HyperparameterBlock", "One named block of theta: entries [offset, offset + size).")
      .def_readonly("name", &HyperparameterBlock::name)
      .def_readonly("offset", &HyperparameterBlock::offset)
      .def_readonly("size", &HyperparameterBlock::size)
      .def_readonly("scalar", &HyperparameterBlock::scalar);
  py::class_<HyperparameterLayout>(m, "HyperparameterLayout",
                                   "The layout of theta: [log lengthscales (d), log variance, log noise, lambda].")
      .def(py::init<Eigen::Index>(), py::arg("n_numeric"))
      .def_property_readonly("n_numeric", &HyperparameterLayout::n_numeric)
      .def_property_readonly("size", &HyperparameterLayout::size)
      .def("blocks", &HyperparameterLayout::blocks, "Every named block in the order of theta.");
}

// None (Python) is an empty vector (C++): no extra noise.
Vector or_empty(std::optional<Vector> extra_noise) { return extra_noise ? std::move(*extra_noise) : Vector(); }

void bind_models(py::module_& m) {
  py::class_<MixedGP, std::shared_ptr<MixedGP>>(m, "MixedGP")
      .def(py::init([](IntMatrix h, Matrix x, Vector y, Vector lengthscales, double variance, double lambda, double noise,
                       std::optional<Vector> extra_noise) {
             return without_gil([&] {
               return std::make_shared<MixedGP>(std::move(h), std::move(x), std::move(y),
                                                MixedKernel(std::move(lengthscales), variance, lambda), noise,
                                                or_empty(std::move(extra_noise)));
             });
           }),
           py::arg("h"), py::arg("x"), py::arg("y"), py::arg("lengthscales"), py::arg("variance"), py::arg("lam"),
           py::arg("noise"), py::arg("extra_noise") = py::none(),
           "The GP of K + noise I + diag(extra_noise) (extra_noise: None, or one variance >= 0 per point).")
      .def(
          "extended",
          [](const MixedGP& gp, const IntMatrix& h, const Matrix& x, Vector y, std::optional<Vector> extra_noise) {
            const Vector extra = or_empty(std::move(extra_noise));
            return without_gil([&] { return std::make_shared<MixedGP>(gp.extended(h, x, std::move(y), extra)); });
          },
          py::arg("h"), py::arg("x"), py::arg("y"), py::arg("extra_noise") = py::none(),
          "The GP with the points (h, x) appended (extra_noise: None, or theirs), targets y for all points (these first): "
          "the Cholesky factor grows by the new rows in O(n^2 m).")
      .def(
          "predict",
          [](const MixedGP& gp, const IntMatrix& h, const Matrix& x) {
            Vector mean, variance;
            without_gil([&] { gp.predict(h, x, mean, variance); });
            return py::make_tuple(mean, variance);
          },
          py::arg("h"), py::arg("x"), "Posterior mean and latent variance at query points.")
      .def(
          "predict_with_gradient",
          [](const MixedGP& gp, const IntMatrix& h, const Vector& x) {
            PointPosterior p;
            without_gil([&] { gp.predict_with_gradient(h, x, p.mean, p.variance, p.mean_gradient, p.variance_gradient); });
            return py::make_tuple(p.mean, p.variance, p.mean_gradient, p.variance_gradient);
          },
          py::arg("h"), py::arg("x"), "Mean, latent variance and their gradients w.r.t. x at one point (h: 1 x k).")
      .def_property_readonly("noise", &MixedGP::noise, "The noise variance of the factorised K + noise I.")
      .def_property_readonly(
          "extra_noise", [](const MixedGP& gp) -> std::optional<Vector> {
            if (gp.extra_noise().size() == 0) return std::nullopt;
            return gp.extra_noise();
          },
          "The per-point extra noise variances, or None.")
      .def_property_readonly("n_train", &MixedGP::size);

  py::class_<LikelihoodEvaluator>(m, "LikelihoodEvaluator")
      .def(py::init([](const IntMatrix& h, const Matrix& x, const Vector& y, std::optional<Vector> extra_noise) {
             const Vector extra = or_empty(std::move(extra_noise));
             return without_gil([&] { return LikelihoodEvaluator(h, x, y, extra); });
           }),
           py::arg("h"), py::arg("x"), py::arg("y"), py::arg("extra_noise") = py::none(),
           "The likelihood of the GP of K + noise I + diag(extra_noise) (None: no extra noise).")
      .def(
          "__call__",
          [](const LikelihoodEvaluator& evaluator, const Vector& theta) {
            Vector gradient;
            const double value = without_gil([&] { return evaluator.negative_log_likelihood(theta, gradient); });
            return py::make_tuple(value, gradient);
          },
          py::arg("theta"), "Negative log marginal likelihood and its gradient in theta (of the evaluator's layout).")
      .def_property_readonly("layout", &LikelihoodEvaluator::layout)
      .def_property_readonly("n_params", &LikelihoodEvaluator::n_params);
}

BoxDecomposition make_boxes(std::vector<Vector> edges, std::vector<IntMatrix> cells, IntMatrix box_cells) {
  return BoxDecomposition{std::move(edges), std::move(cells), std::move(box_cells)};
}

void bind_acquisitions(py::module_& m) {
  py::class_<Acquisition, std::shared_ptr<Acquisition>>(m, "Acquisition", "A value to maximise from the posterior of one or more GPs.")
      .def(
          "evaluate",
          [](const Acquisition& a, const IntMatrix& h, const Matrix& x) {
            return without_gil([&] { return evaluate(a, h, x); });
          },
          py::arg("h"), py::arg("x"), "The acquisition at points (h: N x k codes, x: N x d).")
      .def(
          "evaluate_posterior",
          [](const Acquisition& a, const Matrix& mean, const Matrix& variance) {
            return without_gil([&] { return evaluate_posterior(a, mean, variance); });
          },
          py::arg("mean"), py::arg("variance"), "The acquisition from given posteriors (N x number of models each).")
      .def(
          "value_with_gradient",
          [](const Acquisition& a, const IntMatrix& h, const Vector& x) {
            Vector gradient;
            const double value = without_gil([&] { return value_with_gradient(a, h, x, gradient); });
            return py::make_tuple(value, gradient);
          },
          py::arg("h"), py::arg("x"), "The acquisition at one point (h: 1 x k) and its gradient w.r.t. x.")
      .def_property_readonly("n_models", [](const Acquisition& a) { return a.models().size(); });
  py::class_<LogExpectedImprovement, Acquisition, std::shared_ptr<LogExpectedImprovement>>(m, "LogExpectedImprovement")
      .def(py::init<ModelPtr, double>(), py::arg("model"), py::arg("best"));
  py::class_<LogProbabilityOfFeasibility, Acquisition, std::shared_ptr<LogProbabilityOfFeasibility>>(m, "LogProbabilityOfFeasibility")
      .def(py::init<ModelPtr, double>(), py::arg("model"), py::arg("threshold"));
  py::class_<SumOfAcquisitions, Acquisition, std::shared_ptr<SumOfAcquisitions>>(m, "SumOfAcquisitions")
      .def(py::init<std::vector<AcquisitionPtr>>(), py::arg("terms"));
  py::class_<LogExpectedHypervolumeImprovement, Acquisition, std::shared_ptr<LogExpectedHypervolumeImprovement>>(
      m, "LogExpectedHypervolumeImprovement")
      .def(py::init([](std::vector<ModelPtr> objectives, std::vector<Vector> edges, std::vector<IntMatrix> cells, IntMatrix box_cells) {
             return std::make_shared<LogExpectedHypervolumeImprovement>(std::move(objectives),
                                                                        make_boxes(std::move(edges), std::move(cells), std::move(box_cells)));
           }),
           py::arg("objectives"), py::arg("edges"), py::arg("cells"), py::arg("box_cells"));
  m.def(
      "value_proposals",
      [](const Acquisition& a, const IntMatrix& combinations, const Matrix& candidates, double max_block_bytes) {
        const ProposalResult result = without_gil([&] { return value_proposals(a, combinations, candidates, max_block_bytes); });
        return py::make_tuple(result.best_candidate, result.best_value);
      },
      py::arg("acquisition"), py::arg("combinations"), py::arg("candidates"), py::arg("max_block_bytes") = 64e6,
      "Per combination: index of the best candidate and its acquisition value (the value proposal).");
}

void bind_functions(py::module_& m) {
  m.def("erfcx", py::vectorize(erfcx), py::arg("x"));
  m.def("log_ndtr", py::vectorize(log_ndtr), py::arg("z"));
  m.def("log_h", py::vectorize(log_h), py::arg("u"));
  m.def("log_expected_improvement", py::vectorize(log_expected_improvement), py::arg("mean"), py::arg("sd"), py::arg("best"));
  m.def("sample_max_values_gumbel", &sample_max_values_gumbel, py::arg("mean"), py::arg("sd"), py::arg("uniforms"),
        py::arg("max_observed"), py::call_guard<py::gil_scoped_release>());
  m.def("max_value_entropy_search", &max_value_entropy_search, py::arg("mean"), py::arg("sd"), py::arg("max_values"),
        py::call_guard<py::gil_scoped_release>());
}
}  // namespace

PYBIND11_MODULE(VPBO_MODULE_NAME, m) {
  m.doc() = "Native core of optuna-vpbo: mixed-kernel GP, acquisitions (log EI, log P(feasible), log EHVI), MES and value proposals.";
  py::register_exception<NumericalError>(m, "NumericalError", PyExc_ArithmeticError);
  bind_hyperparameters(m);
  bind_models(m);
  bind_acquisitions(m);
  bind_functions(m);
}
