// Shared array types and the error type of the native core. The border with Python is plain
// arrays of these types (see bindings.cpp); nothing here knows about Optuna.
#pragma once

#include <Eigen/Core>
#include <stdexcept>
#include <string>

namespace vpbo {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
// Categorical codes, one row a point, one column a categorical variable.
using IntMatrix = Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using IntVector = Eigen::VectorXi;

// What the model honestly cannot do with valid input (a kernel matrix that is not positive
// definite in floating point): the sampler falls back to its independent sampler on it. Bad
// input is std::invalid_argument instead, and anything else is a bug.
class NumericalError : public std::runtime_error {
 public:
  explicit NumericalError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace vpbo
