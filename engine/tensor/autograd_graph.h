// The graph autograd records in the arrays (see autograd.h): a Node per
// recorded op, an Edge per input, a Leaf per array with attach_grad(). Shared
// by the autograd, NDArray and op implementations of this folder.
// Threading: frontend only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/tensor/autograd.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::autograd {

struct Node;

// What autograd keeps in an array (detail::Chunk::grad): the recorded op
// that computed it, or, for an array made a leaf by attach_grad, its gradient
// and how backward stores it.
struct ArrayGrad {
  std::shared_ptr<Node> node;
  bool leaf = false;
  GradReq req = GradReq::write;
  NDArray grad;

  bool wants_grad() const noexcept { return leaf && req != GradReq::null; }
};

// Where a recorded op's input came from: another recorded op (node), a leaf
// that wants a gradient (leaf: the input itself), or neither (a constant).
struct Edge {
  std::shared_ptr<Node> node;
  NDArray leaf;
  Shape shape;
};

struct Node {
  Node();
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Drops the gradient function (and the arrays it saved) and the inputs.
  void release() noexcept;

  const uint64_t seq;  // creation order, a topological order of the graph
  trace::NameId name = 0;
  // The name a framework edition gives this op's backward where it is not
  // the op's own (a composed function's: BinaryCrossEntropyWithLogitsBackward0); 0: none.
  trace::NameId display_name = 0;
  // The trace scopes the op was pushed in (a layer's forward): its gradient
  // ops are pushed in them too. Null when in none or not traced.
  trace::ScopePath scope;
  std::vector<Edge> inputs;
  GradientFn gradient;
  bool used = false;  // released by a backward without retain_graph
};

namespace detail {
// Drops a reference to a node. Destroying a node releases the nodes it holds,
// down a chain as long as the program made it; this does it from one loop
// per thread instead of by recursion, so the stack stays flat.
void discard(std::shared_ptr<Node> node) noexcept;
}  // namespace detail

}  // namespace asyncscope::autograd
