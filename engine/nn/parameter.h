// Parameter: a named, trainable array of a layer (data + gradient, an
// autograd leaf), with deferred initialisation: a shape may have unknown (0)
// dimensions until the layer's first forward pass tells it the input size.
// Initializers fill new parameters using the Context's seeded random ops, so
// the same seed and the same program give the same values on every engine.
//
// Threading: frontend only.
#pragma once

#include <functional>
#include <string>

#include "engine/nn/autograd.h"
#include "engine/tensor/ops.h"

namespace asyncscope::nn {

// Makes a parameter's initial values (pushes ops; returns at once).
using Initializer = std::function<NDArray(const ContextPtr& ctx, const Shape& shape)>;

namespace init {
// Glorot/Xavier uniform as MXNet's Xavier() default: U(-s, s) with
// s = sqrt(magnitude / ((fan_in + fan_out) / 2)); for a {out, in} weight
// fan_in = in and fan_out = out. magnitude 3 gives Glorot's sqrt(6 / (in + out)).
Initializer xavier_uniform(float magnitude = 3.0f);
Initializer uniform(float scale = 0.07f);  // U(-scale, scale)
Initializer normal(float sigma = 0.01f);   // N(0, sigma)
Initializer zeros();
Initializer constant(float value);
}  // namespace init

class Parameter {
 public:
  // `shape` may contain 0 for sizes known only at the first forward. An own
  // initializer (e.g. zeros for a bias) takes precedence over the one given
  // to initialize(), as in Gluon.
  Parameter(std::string name, Shape shape, autograd::GradReq req = autograd::GradReq::write,
            Initializer own_init = {});

  const std::string& name() const noexcept { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const noexcept { return shape_; }
  bool shape_known() const noexcept;
  // Whether data() exists (initialize() was called and the shape is known).
  bool is_initialized() const noexcept { return !var_.is_null(); }

  // Creates the data now if the shape is known, otherwise remembers ctx and
  // init and creates it in set_shape(). An initialized parameter is left
  // alone unless force_reinit.
  void initialize(const ContextPtr& ctx, const Initializer& init, bool force_reinit = false);
  // Fills in the unknown dimensions (the known ones must match) and, if
  // initialize() was called, creates the data. Called by layers in forward.
  void set_shape(const Shape& shape);

  // Throw std::logic_error naming the parameter if it has no data yet.
  const NDArray& data() const;
  const NDArray& grad() const;
  autograd::GradReq grad_req() const noexcept { return req_; }
  void set_grad_req(autograd::GradReq req);
  void zero_grad();

 private:
  const autograd::Variable& checked() const;

  std::string name_;
  Shape shape_;
  autograd::GradReq req_;
  Initializer own_init_;
  ContextPtr pending_ctx_;  // set by initialize() while the shape is unknown
  Initializer pending_init_;
  autograd::Variable var_;
};

}  // namespace asyncscope::nn
