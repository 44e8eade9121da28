#include "engine/nn/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/core/engine.h"
#include "engine/tensor/context.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

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
  const bool adam = optimizer == "adam";
  if (optimizer != "sgd" && !adam) {
    throw std::invalid_argument("Trainer: unknown optimizer '" + std::string(optimizer) + "' (supported: sgd, adam)");
  }
  if (adam) learning_rate_ = 0.001f;
  for (const auto& [name, value] : options) {
    if (name == "learning_rate") {
      learning_rate_ = finite(name, value, 0.0);
    } else if (name == "wd") {
      wd_ = finite(name, value, 0.0);
    } else if (!adam && name == "momentum") {
      momentum_ = finite(name, value, 0.0);
    } else if (adam && name == "beta1") {
      beta1_ = finite(name, value, 0.0);
    } else if (adam && name == "beta2") {
      beta2_ = finite(name, value, 0.0);
    } else if (adam && name == "epsilon") {
      epsilon_ = finite(name, value, 0.0);
    } else {
      throw std::invalid_argument("Trainer: unknown option '" + name + "' for " + std::string(optimizer) +
                                  (adam ? " (known: learning_rate, beta1, beta2, epsilon, wd)"
                                        : " (known: learning_rate, momentum, wd)"));
    }
  }
  if (adam && (beta1_ >= 1.0f || beta2_ >= 1.0f)) {
    throw std::invalid_argument("Trainer: adam's beta1 and beta2 must be below 1");
  }
}

void Trainer::set_learning_rate(float lr) { learning_rate_ = finite("learning_rate", lr, 0.0); }

void Trainer::step(int64_t batch_size) {
  if (batch_size <= 0) {
    throw std::invalid_argument("Trainer.step: batch_size must be > 0, got " + std::to_string(batch_size));
  }
  const float scale = 1.0f / static_cast<float>(batch_size);
  // The update's ops (and the optimizer's state they allocate) are pushed in
  // a scope of their own on the trace, so the memory holders name them.
  static const trace::NameId kSgd = trace::intern("Trainer.step (sgd)");
  static const trace::NameId kAdam = trace::intern("Trainer.step (adam)");
  trace::Recorder* recorder = nullptr;
  for (const Parameter* p : params_) {
    if (p->is_initialized()) {
      recorder = p->data().context().engine().recorder().get();
      break;
    }
  }
  const trace::TraceScope scope(recorder, optimizer_ == "adam" ? kAdam : kSgd);
  if (optimizer_ == "adam") {
    adam_step(scale);
    return;
  }
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

void Trainer::adam_step(float scale) {
  if (momenta_.empty()) {
    momenta_.resize(params_.size());
    variances_.resize(params_.size());
  }
  ++steps_;
  const double t = static_cast<double>(steps_);
  const auto lr_t = static_cast<float>(learning_rate_ * std::sqrt(1.0 - std::pow(beta2_, t)) /
                                       (1.0 - std::pow(beta1_, t)));
  for (size_t i = 0; i < params_.size(); ++i) {
    Parameter* p = params_[i];
    if (p->grad_req() == autograd::GradReq::null) continue;
    NDArray w = p->data();
    NDArray g = p->grad() * scale;
    if (wd_ != 0.0f) g.add_scaled(w, wd_);
    NDArray& m = momenta_[i];
    NDArray& v = variances_[i];
    if (m.is_null()) {
      m = zeros(w.context_ptr(), w.shape(), w.device());
      v = zeros(w.context_ptr(), w.shape(), w.device());
    }
    m *= beta1_;
    m.add_scaled(g, 1.0f - beta1_);
    v *= beta2_;
    v.add_scaled(square(g), 1.0f - beta2_);
    w.add_scaled(m / (sqrt(v) + epsilon_), -lr_t);
  }
}

}  // namespace asyncscope::nn
