// The hyperparameter vector theta of the mixed-kernel GP, the one definition of its layout: named
// blocks one after another,
//
//   [log lengthscales (d) | log variance | log noise | lambda]
//
// Lengthscales, the output variance and the noise variance in log space, the kernel mix lambda as
// it is (in [0, 1]). The kernel's hyperparameter gradient and the likelihood
// (C++) and, through the bindings, the fit, its priors and the fit store (Python) read the offsets
// of this class by name.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace vpbo {

// Bumped with any change of the layout: a fit stored by another version is refitted, not read.
// Version 1 also had optional categorical relevances after lambda; without them (the only layout
// left) it is unchanged, so fits stored without relevances are still read.
constexpr int kHyperparameterLayoutVersion = 1;

// One named block of theta: entries [offset, offset + size). A scalar block is one number by
// nature (the variance), not a vector that happens to have one entry.
struct HyperparameterBlock {
  std::string name;
  Eigen::Index offset;
  Eigen::Index size;
  bool scalar;
};

class HyperparameterLayout {
 public:
  // The layout of a model with n_numeric lengthscales. Throws std::invalid_argument on a
  // negative count.
  explicit HyperparameterLayout(Eigen::Index n_numeric);

  Eigen::Index n_numeric() const { return n_numeric_; }
  // Offsets of the blocks.
  Eigen::Index log_lengthscales() const { return 0; }
  Eigen::Index log_variance() const { return n_numeric_; }
  Eigen::Index log_noise() const { return n_numeric_ + 1; }
  Eigen::Index lambda() const { return n_numeric_ + 2; }
  Eigen::Index size() const { return n_numeric_ + 3; }

  // Every block in the order of theta.
  std::vector<HyperparameterBlock> blocks() const;
  // Throws std::invalid_argument unless a vector of this size is a theta of this layout.
  void check_size(Eigen::Index size) const;

 private:
  Eigen::Index n_numeric_;
};

}  // namespace vpbo
