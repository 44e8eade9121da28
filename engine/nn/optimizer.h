// Optimizers: update parameters in place from their gradients, with the
// in-place NDArray ops, so a step is a handful of pushes and never waits.
//
// Threading: frontend only.
#pragma once

#include <vector>

#include "engine/nn/parameter.h"

namespace asyncscope::nn {

// Plain SGD as Gluon's Trainer with 'sgd': step(batch_size) pushes, for every
// parameter with a gradient, w -= learning_rate / batch_size * grad (the loss
// is per sample, so its gradient is a sum over the batch; dividing by the
// batch size makes it a mean).
class SGD {
 public:
  // The parameters must outlive the optimizer (e.g. net.parameters()).
  SGD(std::vector<Parameter*> params, float learning_rate);

  // Throws std::invalid_argument if batch_size <= 0 and std::logic_error if a
  // parameter has no data yet (run a forward pass first).
  void step(int64_t batch_size);

  float learning_rate() const noexcept { return learning_rate_; }
  void set_learning_rate(float lr) noexcept { learning_rate_ = lr; }

 private:
  std::vector<Parameter*> params_;
  float learning_rate_;
};

}  // namespace asyncscope::nn
