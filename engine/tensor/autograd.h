// Reverse-mode autograd owned by the arrays. Inside a Record scope, every
// differentiable op (all of engine/tensor/ops.h) whose inputs need a
// gradient records a Node in its output: which inputs it read and how to
// push its gradient. backward() walks the graph reachable from the head and
// pushes the gradient ops to the engine; like every op, it returns at once.
//
// The graph belongs to the arrays that can reach it, not to the scope, so
// backward may come after the scope has closed, as in the chapter:
//
//   NDArray w = uniform({512, 1}); w.attach_grad();
//   NDArray loss;
//   { autograd::Record record; loss = sum(square(dot(x, w) - y)); }
//   loss.backward();                       // w.grad() is pushed now
//
// A graph is freed with the last array that can reach it, and backward frees
// the part it used (unless retain_graph): a second backward on it is a clear
// error, and a finished batch's activations go as soon as the frontend lets
// go of its loss.
//
// Threading: frontend only. Recording is per thread; a graph must be built
// and used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "engine/tensor/ndarray.h"
#include "engine/trace_record/names.h"

namespace asyncscope::autograd {

// RAII recording scope (MXNet's autograd.record()) for the calling thread;
// destroy it on that thread. Nestable.
class Record {
 public:
  Record();
  ~Record();
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;

 private:
  bool previous_;
};

// RAII scope that stops recording inside a Record scope (autograd.pause()).
class Pause {
 public:
  Pause();
  ~Pause();
  Pause(const Pause&) = delete;
  Pause& operator=(const Pause&) = delete;

 private:
  bool previous_;
};

bool is_recording() noexcept;

// Pushes the gradient ops of `head` with respect to every leaf it depends on
// and stores them in the leaves' grad() (GradReq::write replaces it, add adds
// to it). The head gradient is `head_grad`, or ones of head's shape when null
// (so a non-scalar head, such as a per-sample loss, backpropagates its sum).
// Never waits for the engine. Throws std::logic_error if head was not
// computed by recorded ops, or if a part of its graph was already used by an
// earlier backward without retain_graph; std::invalid_argument if head_grad
// does not match head's shape. Nothing is pushed when it throws.
void backward(const NDArray& head, const NDArray& head_grad = NDArray(), bool retain_graph = false);
// The gradients of `head` with respect to `inputs` (leaves with a gradient,
// or arrays computed by recorded ops), without storing any leaf's grad()
// (torch.autograd.grad, MXNet's autograd.grad). An input the head does not
// depend on gets a null array. Pushes as backward does, never waits;
// std::invalid_argument for an input that needs no gradient, the errors of
// backward otherwise.
std::vector<NDArray> grad(const NDArray& head, std::span<const NDArray> inputs, const NDArray& head_grad = NDArray(),
                          bool retain_graph = false);

// The extension point the differentiable ops are built on.
//
// A recorded op's gradient function receives the output's gradient dy and,
// for each input, whether backward wants its gradient; it returns one
// gradient per input (same shape as that input; those not wanted may be
// null). It runs on the frontend inside backward and must only push ops.
using GradientFn = std::function<std::vector<NDArray>(const NDArray& dy, std::span<const bool> need)>;

// Whether recording an op on these inputs is needed: recording is on, and at
// least one input requires a gradient. Inline and cheap for arrays autograd
// never touched (a load per input), which is every op outside training.
bool should_record_slow(std::initializer_list<const NDArray*> inputs) noexcept;
inline bool should_record(std::initializer_list<const NDArray*> inputs) noexcept {
  for (const NDArray* a : inputs) {
    if (a->has_autograd_state()) return should_record_slow(inputs);
  }
  return false;
}
bool should_record(std::span<const NDArray> inputs) noexcept;
// Records that `output` (a new array) was computed by op `name` from
// `inputs`. No-op unless should_record(inputs).
void record(trace::NameId name, std::initializer_list<const NDArray*> inputs, const NDArray& output,
            GradientFn gradient);
void record(trace::NameId name, std::span<const NDArray> inputs, const NDArray& output, GradientFn gradient);

// Nodes alive on this thread (for tests: a dropped graph goes to zero).
int64_t live_nodes() noexcept;

}  // namespace asyncscope::autograd
