#include "hyperparameter_layout.hpp"

#include <stdexcept>

namespace vpbo {

HyperparameterLayout::HyperparameterLayout(Eigen::Index n_numeric) : n_numeric_(n_numeric) {
  if (n_numeric < 0) throw std::invalid_argument("hyperparameter layout: the number of lengthscales must be non-negative");
}

std::vector<HyperparameterBlock> HyperparameterLayout::blocks() const {
  return {
      {"log_lengthscales", log_lengthscales(), n_numeric_, false},
      {"log_variance", log_variance(), 1, true},
      {"log_noise", log_noise(), 1, true},
      {"lambda", lambda(), 1, true},
  };
}

void HyperparameterLayout::check_size(Eigen::Index size) const {
  if (size != this->size()) {
    throw std::invalid_argument("theta must have " + std::to_string(this->size()) + " entries (" + std::to_string(n_numeric_) +
                                " log lengthscales, log variance, log noise, lambda), got " + std::to_string(size));
  }
}

}  // namespace vpbo
