// Layers in the Gluon style: a Block maps an input batch to an output with
// differentiable ops (so a forward inside autograd::Record is taped) and owns
// its Parameters. Dense infers its input size at the first forward (deferred
// initialisation); Sequential chains blocks.
//
//   nn::Sequential net;
//   net.add(nn::Dense(2048, nn::Activation::relu));
//   net.add(nn::Dense(1));
//   net.initialize(ctx);                 // Xavier uniform weights, zero biases
//   NDArray y = net(x);                  // x: {batch, features}; creates the weights
//
// Threading: frontend only.
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <vector>

#include "engine/nn/parameter.h"

namespace asyncscope::nn {

class Block {
 public:
  Block() = default;
  virtual ~Block() = default;
  Block(Block&&) = default;
  Block& operator=(Block&&) = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  virtual NDArray forward(const NDArray& x) = 0;
  NDArray operator()(const NDArray& x) { return forward(x); }

  // Every parameter of this block and its children, in a fixed order. The
  // pointers stay valid while the block stays where it is (a block added to
  // a Sequential never moves again).
  virtual std::vector<Parameter*> parameters() { return {}; }

  // initialize(ctx, init) on every parameter (see Parameter::initialize);
  // parameters of unknown shape are created at the first forward.
  void initialize(const ContextPtr& ctx, const Initializer& init = init::xavier_uniform(), bool force_reinit = false);
  void zero_grad();
};

enum class Activation { none, relu };

// y = activation(x W^T + b), W of shape {units, in_units}, b of shape {units}.
class Dense final : public Block {
 public:
  // in_units 0: inferred from the first input (deferred initialisation).
  explicit Dense(int64_t units, Activation activation = Activation::none, bool use_bias = true, int64_t in_units = 0);

  // x: {batch, in_units}; returns {batch, units}.
  NDArray forward(const NDArray& x) override;
  std::vector<Parameter*> parameters() override;

  int64_t units() const noexcept { return units_; }
  Parameter& weight() noexcept { return weight_; }
  Parameter& bias() noexcept { return bias_; }  // absent if use_bias was false (never initialized)

 private:
  int64_t units_;
  Activation activation_;
  bool use_bias_;
  Parameter weight_;
  Parameter bias_;
};

class ReLU final : public Block {
 public:
  NDArray forward(const NDArray& x) override;
};

class Sequential final : public Block {
 public:
  // Appends a block; its parameters are renamed "<index>.<name>". Returns the
  // block in its final place.
  template <std::derived_from<Block> B>
  B& add(B block) {
    auto owned = std::make_unique<B>(std::move(block));
    B& ref = *owned;
    add(std::unique_ptr<Block>(std::move(owned)));
    return ref;
  }
  void add(std::unique_ptr<Block> block);

  NDArray forward(const NDArray& x) override;
  std::vector<Parameter*> parameters() override;
  size_t size() const noexcept { return blocks_.size(); }
  Block& operator[](size_t i) { return *blocks_.at(i); }

 private:
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace asyncscope::nn
