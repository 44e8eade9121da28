#include "engine/nn/optimizer.h"

#include <stdexcept>
#include <string>

namespace asyncscope::nn {

SGD::SGD(std::vector<Parameter*> params, float learning_rate)
    : params_(std::move(params)), learning_rate_(learning_rate) {
  for (const Parameter* p : params_) {
    if (p == nullptr) throw std::invalid_argument("SGD: null parameter");
  }
}

void SGD::step(int64_t batch_size) {
  if (batch_size <= 0) throw std::invalid_argument("SGD::step: batch_size must be > 0, got " + std::to_string(batch_size));
  const float alpha = -learning_rate_ / static_cast<float>(batch_size);
  for (Parameter* p : params_) {
    if (p->grad_req() == autograd::GradReq::null) continue;
    // A copy of the handle shares the storage: the update is in place, so the
    // parameter stays the same leaf for the next recording.
    NDArray w = p->data();
    w.add_scaled(p->grad(), alpha);
  }
}

}  // namespace asyncscope::nn
