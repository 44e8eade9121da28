#include "engine/nn/layers.h"

#include <stdexcept>
#include <string>

#include "engine/nn/functional.h"

namespace asyncscope::nn {

void Block::initialize(const ContextPtr& ctx, const Initializer& init, bool force_reinit) {
  for (Parameter* p : parameters()) p->initialize(ctx, init, force_reinit);
}

void Block::zero_grad() {
  for (Parameter* p : parameters()) p->zero_grad();
}

Dense::Dense(int64_t units, Activation activation, bool use_bias, int64_t in_units)
    : units_(units),
      activation_(activation),
      use_bias_(use_bias),
      weight_("weight", Shape{units, in_units}),
      bias_("bias", Shape{units}, autograd::GradReq::write, init::zeros()) {
  if (units <= 0) throw std::invalid_argument("Dense: units must be > 0, got " + std::to_string(units));
  if (in_units < 0) throw std::invalid_argument("Dense: in_units must be >= 0 (0 = inferred)");
}

NDArray Dense::forward(const NDArray& x) {
  if (x.shape().ndim() != 2) {
    throw std::invalid_argument("Dense(" + std::to_string(units_) + "): needs a 2-D input {batch, features}, got " +
                                x.shape().to_string());
  }
  const int64_t in_units = x.shape()[1];
  if (weight_.shape()[1] != 0 && weight_.shape()[1] != in_units) {
    throw std::invalid_argument("Dense(" + std::to_string(units_) + "): input has " + std::to_string(in_units) +
                                " features, the layer was built for " + std::to_string(weight_.shape()[1]));
  }
  weight_.set_shape({units_, in_units});  // deferred initialisation happens here, once
  // x W^T through the GEMM's transpose flag: no transposed copy of W.
  NDArray y = autograd::dot(x, weight_.data(), false, true);
  if (use_bias_) y = autograd::add(y, bias_.data());
  if (activation_ == Activation::relu) y = autograd::relu(y);
  return y;
}

std::vector<Parameter*> Dense::parameters() {
  if (!use_bias_) return {&weight_};
  return {&weight_, &bias_};
}

NDArray ReLU::forward(const NDArray& x) { return autograd::relu(x); }

void Sequential::add(std::unique_ptr<Block> block) {
  if (!block) throw std::invalid_argument("Sequential::add: null block");
  const std::string prefix = std::to_string(blocks_.size()) + ".";
  for (Parameter* p : block->parameters()) p->set_name(prefix + p->name());
  blocks_.push_back(std::move(block));
}

NDArray Sequential::forward(const NDArray& x) {
  NDArray y = x;
  for (const auto& block : blocks_) y = block->forward(y);
  return y;
}

std::vector<Parameter*> Sequential::parameters() {
  std::vector<Parameter*> all;
  for (const auto& block : blocks_) {
    for (Parameter* p : block->parameters()) all.push_back(p);
  }
  return all;
}

}  // namespace asyncscope::nn
