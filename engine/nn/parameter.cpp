#include "engine/nn/parameter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace asyncscope::nn {

namespace init {

Initializer xavier_uniform(float magnitude) {
  return [magnitude](const ContextPtr& ctx, const Shape& shape) {
    // 1-D (and 0-d) shapes have no in/out split: both fans are the size.
    const int64_t fan_out = shape.ndim() >= 2 ? shape[0] : shape.size();
    const int64_t fan_in = shape.ndim() >= 2 ? shape.size() / shape[0] : shape.size();
    const double factor = std::max(1.0, static_cast<double>(fan_in + fan_out) / 2.0);
    const auto scale = static_cast<float>(std::sqrt(static_cast<double>(magnitude) / factor));
    return asyncscope::uniform(ctx, shape, -scale, scale);
  };
}

Initializer uniform(float scale) {
  return [scale](const ContextPtr& ctx, const Shape& shape) { return asyncscope::uniform(ctx, shape, -scale, scale); };
}

Initializer normal(float sigma) {
  return [sigma](const ContextPtr& ctx, const Shape& shape) { return asyncscope::normal(ctx, shape, 0.0f, sigma); };
}

Initializer zeros() {
  return [](const ContextPtr& ctx, const Shape& shape) { return asyncscope::zeros(ctx, shape); };
}

Initializer constant(float value) {
  return [value](const ContextPtr& ctx, const Shape& shape) { return asyncscope::full(ctx, shape, value); };
}

}  // namespace init

Parameter::Parameter(std::string name, Shape shape, autograd::GradReq req, Initializer own_init)
    : name_(std::move(name)), shape_(shape), req_(req), own_init_(std::move(own_init)) {}

bool Parameter::shape_known() const noexcept {
  for (int64_t d : shape_) {
    if (d == 0) return false;
  }
  return true;
}

void Parameter::initialize(const ContextPtr& ctx, const Initializer& init, bool force_reinit) {
  if (!ctx) throw std::invalid_argument("parameter " + name_ + ": initialize needs a context");
  if (is_initialized() && !force_reinit) return;
  const Initializer& chosen = own_init_ ? own_init_ : init;
  if (!chosen) throw std::invalid_argument("parameter " + name_ + ": no initializer given");
  if (!shape_known()) {
    // Deferred: the first forward pass supplies the shape (set_shape).
    pending_ctx_ = ctx;
    pending_init_ = chosen;
    return;
  }
  var_ = autograd::Variable(chosen(ctx, shape_), req_);
  pending_ctx_.reset();
  pending_init_ = nullptr;
}

void Parameter::set_shape(const Shape& shape) {
  bool compatible = shape.ndim() == shape_.ndim();
  for (int i = 0; compatible && i < shape.ndim(); ++i) compatible = shape_[i] == 0 || shape_[i] == shape[i];
  if (!compatible) {
    throw std::invalid_argument("parameter " + name_ + ": shape " + shape.to_string() + " does not match " +
                                shape_.to_string() + " (0 = not yet known)");
  }
  shape_ = shape;
  if (!is_initialized() && pending_ctx_ && shape_known()) {
    ContextPtr ctx = std::move(pending_ctx_);
    Initializer init = std::move(pending_init_);
    pending_ctx_.reset();
    pending_init_ = nullptr;
    var_ = autograd::Variable(init(ctx, shape_), req_);
  }
}

const autograd::Variable& Parameter::checked() const {
  if (var_.is_null()) {
    throw std::logic_error("parameter " + name_ + " " + shape_.to_string() +
                           " has no data yet: call initialize(ctx) on its block, and for a deferred shape "
                           "(0 = unknown) run one forward pass so the input size is known");
  }
  return var_;
}

const NDArray& Parameter::data() const { return checked().data(); }
const NDArray& Parameter::grad() const { return checked().grad(); }

void Parameter::set_grad_req(autograd::GradReq req) {
  req_ = req;
  if (!var_.is_null()) var_.set_grad_req(req);
}

void Parameter::zero_grad() {
  if (!var_.is_null()) var_.zero_grad();
}

}  // namespace asyncscope::nn
