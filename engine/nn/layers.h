// Layers in the Gluon style: a Block maps an input batch to an output with
// the ops of engine/tensor/ops.h (so a forward inside autograd::Record is
// recorded) and owns its Parameters. Dense infers its input size at the first
// forward (deferred initialisation); Sequential chains blocks.
//
//   nn::Sequential net;
//   { auto scope = net.name_scope();           // names: sequential0_dense0_weight, ...
//     net.add(nn::Dense(2048, nn::Activation::relu), nn::Dense(1)); }
//   net.initialize();                          // U(-0.07, 0.07) weights, zero biases, current context
//   NDArray y = net(x);                        // x: {batch, features}; creates the weights
//   nn::Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.005}});
//
// Names: every block gets a prefix "<kind><n>_" (dense0_, dense1_, ...), n
// counting the blocks of that kind made in the innermost name scope; a
// block's name_scope() makes the blocks created inside it its children by
// name ("sequential0_dense0_"). Counting is per thread.
//
// Threading: frontend only.
#pragma once

#include <concepts>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/nn/parameter.h"
#include "engine/trace_record/names.h"

namespace asyncscope::nn {

class Block {
 public:
  virtual ~Block() = default;
  Block(Block&&) = default;
  Block& operator=(Block&&) = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  virtual NDArray forward(const NDArray& x) = 0;
  // forward(x) inside the block's scope on the trace ("dense0"): the ops
  // it pushes are attributed to the block (trace::ScopeEvent), so the
  // memory they hold is named after it. Containers call their children so.
  NDArray operator()(const NDArray& x);

  // "dense0_": what this block's parameter and child names start with.
  const std::string& prefix() const noexcept { return prefix_; }

  // Appends this block's own parameters, then its children's, in order
  // (what collect_params() is made of; containers call it on their children).
  virtual void collect(std::vector<Parameter*>& out) { (void)out; }
  // Replaces a leading `from` by `to` in this block's prefix and in the
  // names below it (its parameters, its children's).
  virtual void rename_prefix(const std::string& from, const std::string& to);

  // Every parameter of this block and its children, by full name, in a
  // fixed order. The pointers stay valid while the block stays where it is
  // (a block added to a Sequential never moves again).
  ParameterDict collect_params();

  // initialize on every parameter (see Parameter::initialize); parameters of
  // unknown shape are created at the first forward. A null ctx means the
  // current context.
  void initialize(const Initializer& init = init::uniform(), ContextPtr ctx = nullptr, bool force_reinit = false);
  void zero_grad();

  // While the returned scope lives, blocks created on this thread are named
  // as this block's children.
  class NameScope {
   public:
    explicit NameScope(std::string prefix);
    ~NameScope();
    NameScope(NameScope&&) = delete;
    NameScope& operator=(NameScope&&) = delete;
  };
  [[nodiscard]] std::unique_ptr<NameScope> name_scope() const;

 protected:
  // `kind` names the block ("dense"); its prefix is taken from the innermost name scope.
  explicit Block(std::string_view kind);
  // Gives blocks made in one expression the numbers of their order in it:
  // C++ may construct the arguments of add(Dense(8), Dense(1)) in any order.
  static void number_in_order(std::span<Block* const> blocks);

 private:
  std::string scope_;  // the name scope's prefix when the block was made
  trace::NameId trace_name_ = 0;  // its name on the trace, interned at its first call (0: not yet)
  std::string kind_;
  int number_ = 0;
  std::string prefix_;
};

// The prefix a block of `kind` made now on this thread would get
// ("mlp0_"), counted as the blocks' own: for blocks defined outside C++ (a
// Python subclass of gluon's Block), so their children are named as Gluon's.
std::string next_prefix(std::string_view kind);

enum class Activation { none, relu };
// "relu" -> relu, "" or "none" -> none; std::invalid_argument listing the known names otherwise.
Activation activation_from_name(std::string_view name);

// y = activation(x W^T + b), W of shape {units, in_units}, b of shape {units}.
// An input of more than two dimensions is flattened to {batch, rest} first.
class Dense final : public Block {
 public:
  // in_units 0: inferred from the first input (deferred initialisation).
  explicit Dense(int64_t units, Activation activation = Activation::none, bool use_bias = true, int64_t in_units = 0);

  NDArray forward(const NDArray& x) override;

  int64_t units() const noexcept { return units_; }
  Activation activation() const noexcept { return activation_; }
  Parameter& weight() noexcept { return weight_; }
  Parameter& bias() noexcept { return bias_; }  // absent if use_bias was false (never initialized)
  void collect(std::vector<Parameter*>& out) override;
  void rename_prefix(const std::string& from, const std::string& to) override;

 private:

  int64_t units_;
  Activation activation_;
  bool use_bias_;
  Parameter weight_;
  Parameter bias_;
};

class ReLU final : public Block {
 public:
  ReLU();
  NDArray forward(const NDArray& x) override;
};

class Sequential final : public Block {
 public:
  Sequential();

  // Appends blocks, in order; once added, a block never moves again.
  // Blocks are moved in (std::move a named one).
  template <class... B>
    requires(std::derived_from<B, Block> && ...)
  void add(B&&... blocks) {
    Block* const in_order[] = {&blocks...};
    number_in_order(in_order);
    (add_shared(std::make_shared<B>(std::move(blocks))), ...);
  }
  // Appends a block that others may share (a Python object holds it too).
  void add_shared(std::shared_ptr<Block> block);

  NDArray forward(const NDArray& x) override;
  size_t size() const noexcept { return blocks_.size(); }
  Block& operator[](size_t i) { return *blocks_.at(i); }
  const std::shared_ptr<Block>& child(size_t i) const { return blocks_.at(i); }
  void collect(std::vector<Parameter*>& out) override;
  void rename_prefix(const std::string& from, const std::string& to) override;

 private:
  std::vector<std::shared_ptr<Block>> blocks_;
};

}  // namespace asyncscope::nn
