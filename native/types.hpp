// Shared array types of the native core. The border with Python is plain arrays of these
// types (see bindings.cpp); nothing here knows about Optuna.
#pragma once

#include <Eigen/Core>

namespace vpbo {

using Matrix = Eigen::MatrixXd;
using Vector = Eigen::VectorXd;
// Categorical codes, one row a point, one column a categorical variable.
using IntMatrix = Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using IntVector = Eigen::VectorXi;

}  // namespace vpbo
