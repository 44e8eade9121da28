// Parameter: a named, trainable array of a layer: an array with a gradient
// (attach_grad), with deferred initialisation: a shape may have unknown (0)
// dimensions until the layer's first forward pass tells it the input size.
// ParameterDict: the parameters of a block by full name, in a fixed order,
// as collect_params() returns them and a Trainer takes them.
// Initializers fill new parameters using the Context's seeded random ops, so
// the same seed and the same program give the same values on every engine.
//
// Threading: frontend only.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tensor/ops.h"

namespace asyncscope::nn {

// Makes a parameter's initial values (pushes ops; returns at once).
using Initializer = std::function<NDArray(const ContextPtr& ctx, const Shape& shape)>;

namespace init {
// U(-scale, scale): Gluon's classic default, initialize()'s when none is given.
Initializer uniform(float scale = 0.07f);
Initializer normal(float sigma = 0.01f);  // N(0, sigma)
// Glorot/Xavier uniform as MXNet's Xavier(): U(-s, s) with
// s = sqrt(magnitude / ((fan_in + fan_out) / 2)); for a {out, in} weight
// fan_in = in and fan_out = out, for a convolution's {out, in, kh, kw} both
// times kh * kw. magnitude 3 gives Glorot's sqrt(6 / (in + out)).
Initializer xavier_uniform(float magnitude = 3.0f);
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
  bool is_initialized() const noexcept { return !data_.is_null(); }

  // Creates the data now if the shape is known, otherwise remembers ctx and
  // init and creates it in set_shape(). An initialized parameter is left
  // alone unless force_reinit. A null ctx means the current context.
  void initialize(const Initializer& init, ContextPtr ctx = nullptr, bool force_reinit = false);
  // Fills in the unknown dimensions (the known ones must match) and, if
  // initialize() was called, creates the data. Called by layers in forward.
  void set_shape(const Shape& shape);

  // Throw std::logic_error naming the parameter if it has no data yet. To
  // update the data in place (a trainer), copy the handle and use its
  // in-place ops: the copy shares the storage, so the leaf keeps its identity.
  const NDArray& data() const;
  const NDArray& grad() const;
  autograd::GradReq grad_req() const noexcept { return req_; }
  void set_grad_req(autograd::GradReq req);
  // grad() becomes fresh zeros (for GradReq::add between accumulations).
  void zero_grad();

 private:
  const NDArray& checked() const;

  std::string name_;
  Shape shape_;
  autograd::GradReq req_;
  Initializer own_init_;
  ContextPtr pending_ctx_;  // set by initialize() while the shape is unknown
  Initializer pending_init_;
  NDArray data_;
};

// Parameters by full name ("sequential0_dense0_weight"), in the order they
// were added. Holds pointers: the blocks that own the parameters must
// outlive it and stay where they are (a block added to a Sequential does).
class ParameterDict {
 public:
  // std::invalid_argument if a parameter of that name is already there.
  void add(Parameter* parameter);
  size_t size() const noexcept { return params_.size(); }
  bool empty() const noexcept { return params_.empty(); }
  // std::out_of_range listing the names if there is none of that name.
  Parameter& operator[](std::string_view name) const;
  bool contains(std::string_view name) const noexcept;
  std::vector<std::string> keys() const;
  auto begin() const noexcept { return params_.begin(); }
  auto end() const noexcept { return params_.end(); }

  // The same for every parameter: see Parameter.
  void initialize(const Initializer& init = init::uniform(), ContextPtr ctx = nullptr, bool force_reinit = false);
  void zero_grad();
  void set_grad_req(autograd::GradReq req);

 private:
  std::vector<Parameter*> params_;
};

}  // namespace asyncscope::nn
