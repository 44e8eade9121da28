#include "engine/nn/layers.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace asyncscope::nn {
namespace {

// The name scopes of this thread, innermost last; the first is the root.
struct ScopeFrame {
  std::string prefix;
  std::map<std::string, int, std::less<>> counts;
};

std::vector<ScopeFrame>& scopes() {
  thread_local std::vector<ScopeFrame> frames(1);
  return frames;
}

std::string replaced_prefix(const std::string& name, const std::string& from, const std::string& to) {
  return name.rfind(from, 0) == 0 ? to + name.substr(from.size()) : name;
}

}  // namespace

Block::Block(std::string_view kind) : scope_(scopes().back().prefix), kind_(kind) {
  ScopeFrame& frame = scopes().back();
  auto it = frame.counts.find(kind);
  if (it == frame.counts.end()) it = frame.counts.emplace(std::string(kind), 0).first;
  number_ = it->second++;
  prefix_ = scope_ + kind_ + std::to_string(number_) + "_";
}

std::string next_prefix(std::string_view kind) {
  ScopeFrame& frame = scopes().back();
  auto it = frame.counts.find(kind);
  if (it == frame.counts.end()) it = frame.counts.emplace(std::string(kind), 0).first;
  return frame.prefix + std::string(kind) + std::to_string(it->second++) + "_";
}

NDArray Block::operator()(const NDArray& x) {
  trace::Recorder* recorder = x.context().engine().recorder().get();
  if (recorder == nullptr || !recorder->enabled()) return forward(x);
  // Its own name ("dense0"): the scopes it runs in name its parents.
  if (trace_name_ == 0) trace_name_ = trace::intern(kind_ + std::to_string(number_));
  const trace::TraceScope scope(recorder, trace_name_);
  return forward(x);
}

void Block::rename_prefix(const std::string& from, const std::string& to) {
  trace_name_ = 0;
  prefix_ = replaced_prefix(prefix_, from, to);
  scope_ = replaced_prefix(scope_, from, to);
}

void Block::number_in_order(std::span<Block* const> blocks) {
  // Blocks of one kind made in one scope took consecutive numbers in the
  // order they were made; hand those numbers out again in argument order.
  for (size_t i = 0; i < blocks.size(); ++i) {
    std::vector<size_t> same;
    for (size_t j = 0; j < blocks.size(); ++j) {
      if (blocks[j]->kind_ == blocks[i]->kind_ && blocks[j]->scope_ == blocks[i]->scope_) same.push_back(j);
    }
    if (same.front() != i) continue;  // each group once, from its first member
    std::vector<int> numbers;
    for (size_t j : same) numbers.push_back(blocks[j]->number_);
    std::sort(numbers.begin(), numbers.end());
    for (size_t k = 0; k < same.size(); ++k) {
      Block& b = *blocks[same[k]];
      if (b.number_ == numbers[k]) continue;
      b.number_ = numbers[k];
      const std::string old = b.prefix_;  // a copy: rename_prefix changes prefix_
      b.rename_prefix(old, b.scope_ + b.kind_ + std::to_string(b.number_) + "_");
    }
  }
}

Block::NameScope::NameScope(std::string prefix) { scopes().push_back(ScopeFrame{std::move(prefix), {}}); }

Block::NameScope::~NameScope() {
  if (scopes().size() > 1) scopes().pop_back();
}

std::unique_ptr<Block::NameScope> Block::name_scope() const { return std::make_unique<NameScope>(prefix_); }

ParameterDict Block::collect_params() {
  std::vector<Parameter*> all;
  collect(all);
  ParameterDict dict;
  for (Parameter* p : all) dict.add(p);
  return dict;
}

void Block::initialize(const Initializer& init, ContextPtr ctx, bool force_reinit) {
  collect_params().initialize(init, std::move(ctx), force_reinit);
}

void Block::zero_grad() { collect_params().zero_grad(); }

Activation activation_from_name(std::string_view name) {
  if (name.empty() || name == "none") return Activation::none;
  if (name == "relu") return Activation::relu;
  throw std::invalid_argument("unknown activation '" + std::string(name) + "' (known: relu, none)");
}

Dense::Dense(int64_t units, Activation activation, bool use_bias, int64_t in_units)
    : Block("dense"),
      units_(units),
      activation_(activation),
      use_bias_(use_bias),
      weight_(prefix() + "weight", Shape{units, in_units}),
      bias_(prefix() + "bias", Shape{units}, autograd::GradReq::write, init::zeros()) {
  if (units <= 0) throw std::invalid_argument("Dense: units must be > 0, got " + std::to_string(units));
  if (in_units < 0) {
    throw std::invalid_argument("Dense: in_units must be >= 0 (0 = inferred), got " + std::to_string(in_units));
  }
}

NDArray Dense::forward(const NDArray& input) {
  const Shape& s = input.shape();
  if (s.ndim() < 2) {
    throw std::invalid_argument("Dense(" + std::to_string(units_) + "): needs an input {batch, features}, got " +
                                s.to_string());
  }
  const NDArray x = s.ndim() == 2 ? input : reshape(input, Shape{s[0], s.size() / std::max<int64_t>(1, s[0])});
  const int64_t in_units = x.shape()[1];
  if (weight_.shape()[1] != 0 && weight_.shape()[1] != in_units) {
    throw std::invalid_argument("Dense(" + std::to_string(units_) + "): the input has " + std::to_string(in_units) +
                                " features, the layer was built for " + std::to_string(weight_.shape()[1]));
  }
  weight_.set_shape({units_, in_units});  // deferred initialisation happens here, once
  // x W^T through the GEMM's transpose flag: no transposed copy of W.
  NDArray y = dot(x, weight_.data(), false, true);
  if (use_bias_) y = y + bias_.data();
  if (activation_ == Activation::relu) y = relu(y);
  return y;
}

void Dense::rename_prefix(const std::string& from, const std::string& to) {
  Block::rename_prefix(from, to);
  weight_.set_name(replaced_prefix(weight_.name(), from, to));
  bias_.set_name(replaced_prefix(bias_.name(), from, to));
}

void Dense::collect(std::vector<Parameter*>& out) {
  out.push_back(&weight_);
  if (use_bias_) out.push_back(&bias_);
}

ReLU::ReLU() : Block("relu") {}

NDArray ReLU::forward(const NDArray& x) { return relu(x); }

Sequential::Sequential() : Block("sequential") {}

void Sequential::add_shared(std::shared_ptr<Block> block) {
  if (!block) throw std::invalid_argument("Sequential::add: null block");
  blocks_.push_back(std::move(block));
}

NDArray Sequential::forward(const NDArray& x) {
  NDArray y = x;
  for (const auto& block : blocks_) y = (*block)(y);
  return y;
}

void Sequential::rename_prefix(const std::string& from, const std::string& to) {
  Block::rename_prefix(from, to);
  for (const auto& block : blocks_) block->rename_prefix(from, to);
}

void Sequential::collect(std::vector<Parameter*>& out) {
  for (const auto& block : blocks_) block->collect(out);
}

}  // namespace asyncscope::nn
