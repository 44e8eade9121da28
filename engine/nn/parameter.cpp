#include "engine/nn/parameter.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace asyncscope::nn {

namespace init {

Initializer uniform(float scale) {
  if (!(scale > 0.0f)) throw std::invalid_argument("init::uniform: scale must be > 0, got " + std::to_string(scale));
  return [scale](const ContextPtr& ctx, const Shape& shape) { return asyncscope::uniform(ctx, shape, -scale, scale); };
}

Initializer normal(float sigma) {
  if (!(sigma >= 0.0f)) throw std::invalid_argument("init::normal: sigma must be >= 0, got " + std::to_string(sigma));
  return [sigma](const ContextPtr& ctx, const Shape& shape) { return asyncscope::normal(ctx, shape, 0.0f, sigma); };
}

Initializer xavier_uniform(float magnitude) {
  return [magnitude](const ContextPtr& ctx, const Shape& shape) {
    // 1-D (and 0-d) shapes have no in/out split: both fans are the size.
    // Beyond 2-D (a convolution's (out, in, kh, kw)) each fan counts the
    // receptive field too, as MXNet's Xavier does.
    int64_t receptive = 1;
    for (int d = 2; d < shape.ndim(); ++d) receptive *= shape[d];
    const int64_t fan_out = shape.ndim() >= 2 ? shape[0] * receptive : shape.size();
    const int64_t fan_in = shape.ndim() >= 2 ? shape[1] * receptive : shape.size();
    const double factor = std::max(1.0, static_cast<double>(fan_in + fan_out) / 2.0);
    const auto scale = static_cast<float>(std::sqrt(static_cast<double>(magnitude) / factor));
    return asyncscope::uniform(ctx, shape, -scale, scale);
  };
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
  return std::none_of(shape_.begin(), shape_.end(), [](int64_t d) { return d == 0; });
}

void Parameter::initialize(const Initializer& init, ContextPtr ctx, bool force_reinit) {
  if (is_initialized() && !force_reinit) return;
  if (!ctx) ctx = current_context();
  const Initializer& chosen = own_init_ ? own_init_ : init;
  if (!chosen) throw std::invalid_argument("parameter " + name_ + ": no initializer given");
  if (!shape_known()) {
    // Deferred: the first forward pass supplies the shape (set_shape).
    pending_ctx_ = std::move(ctx);
    pending_init_ = chosen;
    return;
  }
  NDArray data = chosen(ctx, shape_);
  data.attach_grad(req_);
  data_ = std::move(data);
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
    NDArray data = init(ctx, shape_);
    data.attach_grad(req_);
    data_ = std::move(data);
  }
}

const NDArray& Parameter::checked() const {
  if (data_.is_null()) {
    throw std::logic_error("parameter " + name_ + " " + shape_.to_string() +
                           " has no data yet: call initialize() on its block, and for a deferred shape "
                           "(0 = unknown) run one forward pass so the input size is known");
  }
  return data_;
}

const NDArray& Parameter::data() const { return checked(); }
const NDArray& Parameter::grad() const { return checked().grad(); }

void Parameter::set_grad_req(autograd::GradReq req) {
  req_ = req;
  if (!data_.is_null()) data_.attach_grad(req);
}

void Parameter::zero_grad() {
  // Fresh zeros rather than grad *= 0: NaN * 0 would stay NaN.
  if (!data_.is_null() && req_ != autograd::GradReq::null) data_.attach_grad(req_);
}

void ParameterDict::add(Parameter* parameter) {
  if (parameter == nullptr) throw std::invalid_argument("ParameterDict: null parameter");
  if (contains(parameter->name())) {
    throw std::invalid_argument("ParameterDict: two parameters are named " + parameter->name());
  }
  params_.push_back(parameter);
}

bool ParameterDict::contains(std::string_view name) const noexcept {
  return std::any_of(params_.begin(), params_.end(), [name](const Parameter* p) { return p->name() == name; });
}

Parameter& ParameterDict::operator[](std::string_view name) const {
  for (Parameter* p : params_) {
    if (p->name() == name) return *p;
  }
  std::string names;
  for (const Parameter* p : params_) names += (names.empty() ? "" : ", ") + p->name();
  throw std::out_of_range("no parameter named " + std::string(name) + " (there are: " + names + ")");
}

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> out;
  for (const Parameter* p : params_) out.push_back(p->name());
  return out;
}

void ParameterDict::initialize(const Initializer& init, ContextPtr ctx, bool force_reinit) {
  if (!ctx) ctx = current_context();
  for (Parameter* p : params_) p->initialize(init, ctx, force_reinit);
}

void ParameterDict::zero_grad() {
  for (Parameter* p : params_) p->zero_grad();
}

void ParameterDict::set_grad_req(autograd::GradReq req) {
  for (Parameter* p : params_) p->set_grad_req(req);
}

}  // namespace asyncscope::nn
