// Trainer: updates parameters in place from their gradients, with the
// in-place NDArray ops, so a step is a handful of pushes and never waits.
// As Gluon's Trainer: made from a parameter dict, an optimizer name and its
// options; step(batch_size) rescales the gradients by 1 / batch_size (the
// loss is per sample, so its gradient is a sum over the batch).
//
//   nn::Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.005}});
//   trainer.step(batch_size);
//
// Optimizers: "sgd" with learning_rate (default 0.01), momentum (0) and wd
// (weight decay, 0): with momentum m, m = momentum m - lr (g / batch + wd w)
// and w += m; without, w -= lr (g / batch + wd w). "adam" with
// learning_rate (0.001), beta1 (0.9), beta2 (0.999), epsilon (1e-8) and wd,
// as MXNet's: g = grad / batch + wd w, m = beta1 m + (1 - beta1) g,
// v = beta2 v + (1 - beta2) g^2, and at step t
// w -= lr sqrt(1 - beta2^t) / (1 - beta1^t) m / (sqrt(v) + epsilon).
//
// Threading: frontend only.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/nn/parameter.h"

namespace asyncscope::nn {

class Trainer {
 public:
  using Options = std::map<std::string, double, std::less<>>;

  // std::invalid_argument for an unknown optimizer or option, or a bad value.
  // The parameters must outlive the trainer (see ParameterDict).
  Trainer(const ParameterDict& params, std::string_view optimizer, const Options& options = {});

  // Throws std::invalid_argument if batch_size <= 0 and std::logic_error if a
  // parameter has no data yet (run a forward pass first). Its ops are pushed
  // in the trace scope "Trainer.step (sgd)" (or adam).
  void step(int64_t batch_size);

  float learning_rate() const noexcept { return learning_rate_; }
  void set_learning_rate(float lr);
  const std::string& optimizer() const noexcept { return optimizer_; }

 private:
  std::vector<Parameter*> params_;
  std::string optimizer_;
  float learning_rate_ = 0.01f;
  float momentum_ = 0.0f;
  float wd_ = 0.0f;
  float beta1_ = 0.9f, beta2_ = 0.999f, epsilon_ = 1e-8f;  // adam
  int64_t steps_ = 0;
  std::vector<NDArray> momenta_;  // per parameter, made at the first step (sgd with momentum; adam's m)
  std::vector<NDArray> variances_;  // adam's v, per parameter

  void adam_step(float scale);
};

}  // namespace asyncscope::nn
