#include "engine/nn/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace asyncscope::nn {
namespace {

float finite(std::string_view name, double value, double low) {
  if (!std::isfinite(value) || value < low) {
    throw std::invalid_argument("Trainer: " + std::string(name) + " must be a number >= " + std::to_string(low) +
                                ", got " + std::to_string(value));
  }
  return static_cast<float>(value);
}

}  // namespace

Trainer::Trainer(const ParameterDict& params, std::string_view optimizer, const Options& options)
    : params_(params.begin(), params.end()), optimizer_(optimizer) {
  if (optimizer != "sgd") {
    throw std::invalid_argument("Trainer: unknown optimizer '" + std::string(optimizer) + "' (supported: sgd)");
  }
  for (const auto& [name, value] : options) {
    if (name == "learning_rate") {
      learning_rate_ = finite(name, value, 0.0);
    } else if (name == "momentum") {
      momentum_ = finite(name, value, 0.0);
    } else if (name == "wd") {
      wd_ = finite(name, value, 0.0);
    } else {
      throw std::invalid_argument("Trainer: unknown option '" + name +
                                  "' for sgd (known: learning_rate, momentum, wd)");
    }
  }
}

void Trainer::set_learning_rate(float lr) { learning_rate_ = finite("learning_rate", lr, 0.0); }

void Trainer::step(int64_t batch_size) {
  if (batch_size <= 0) {
    throw std::invalid_argument("Trainer.step: batch_size must be > 0, got " + std::to_string(batch_size));
  }
  const float scale = 1.0f / static_cast<float>(batch_size);
  if (momentum_ != 0.0f && momenta_.empty()) momenta_.resize(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    Parameter* p = params_[i];
    if (p->grad_req() == autograd::GradReq::null) continue;
    // A copy of the handle shares the storage: the update is in place, so the
    // parameter stays the same leaf for the next recording.
    NDArray w = p->data();
    const NDArray& g = p->grad();
    if (momentum_ == 0.0f) {
      if (wd_ != 0.0f) w *= 1.0f - learning_rate_ * wd_;
      w.add_scaled(g, -learning_rate_ * scale);
      continue;
    }
    NDArray& m = momenta_[i];
    if (m.is_null()) m = zeros(w.context_ptr(), w.shape(), w.device());
    m *= momentum_;
    m.add_scaled(g, -learning_rate_ * scale);
    if (wd_ != 0.0f) m.add_scaled(w, -learning_rate_ * wd_);
    w += m;
  }
}

}  // namespace asyncscope::nn
