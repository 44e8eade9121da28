// Tape-based reverse-mode autograd over NDArray: inside a Record scope, the
// differentiable ops of nn/functional.h note every op whose inputs need
// gradients on a thread-local tape; backward() walks that tape in reverse and
// pushes the gradient ops to the engine. Like every NDArray op, backward
// returns at once: gradients are computed later, on workers.
//
// Arrays that need gradients are leaves (Variable: data + grad + GradReq) or
// outputs of taped ops. NDArray itself carries no autograd state, so the tape
// identifies arrays by their storage; it holds handles to everything backward
// needs and drops them when backward runs or when the outermost Record scope
// ends, so a finished batch frees its memory as soon as the frontend lets go.
//
// backward() must be called inside the Record scope that produced the loss
// (the tape is gone once the scope closes):
//
//   { autograd::Record record; NDArray loss = loss_fn(net(x), y); autograd::backward(loss); }
//
// Threading: frontend only. The tape is per thread; a Variable may be created
// on one thread and used in scopes on another, but not concurrently.
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <memory>

#include "engine/tensor/ndarray.h"

namespace asyncscope::nn::autograd {

// How backward stores a leaf's gradient (MXNet's grad_req).
//   write: grad() becomes the freshly computed gradient (a new array each
//          backward; read grad() after backward, not before)
//   add:   the gradient is added into grad() in place (call zero_grad() to reset)
//   null:  no gradient; ops on it alone are not taped
enum class GradReq { write, add, null };

// A leaf of the graph: an array that needs a gradient, and that gradient.
// While a Variable lives, taped ops see its data as requiring gradients.
// Move-only; a default-constructed Variable is empty.
class Variable {
 public:
  struct State;

  Variable() = default;
  // grad() starts as zeros of data's shape (pushed, like any op).
  explicit Variable(NDArray data, GradReq req = GradReq::write);
  ~Variable();
  Variable(Variable&& other) noexcept = default;
  Variable& operator=(Variable&& other) noexcept;
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  bool is_null() const noexcept { return state_ == nullptr; }
  // To update the data in place (the optimizer), copy the handle and use its
  // in-place ops: the copy shares the storage, so the leaf keeps its identity.
  const NDArray& data() const;
  const NDArray& grad() const;
  GradReq grad_req() const;
  void set_grad_req(GradReq req);
  // grad() becomes a fresh zeros array (for GradReq::add between accumulations).
  void zero_grad();

 private:
  std::shared_ptr<State> state_;
};

// RAII recording scope (MXNet's autograd.record()) for the calling thread;
// destroy it on that thread. Nestable: inner scopes share the outer tape,
// which is cleared when the outermost scope ends.
class Record {
 public:
  Record();
  ~Record();
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;
};

bool is_recording() noexcept;
// Ops taped on this thread and not yet consumed by backward (for tests and tools).
size_t tape_size() noexcept;

// Pushes the gradient ops of `head` with respect to every leaf it depends on
// and clears the tape. The head gradient is ones of head's shape (so a
// per-sample loss backpropagates the sum of its entries, as in MXNet), or
// `head_grad` (same shape as head, else std::invalid_argument). Never waits
// for the engine. Throws std::logic_error if head was not produced by ops
// taped in the current scope. The tape is cleared even when it throws.
void backward(const NDArray& head);
void backward(const NDArray& head, const NDArray& head_grad);

// The extension point the differentiable ops are built on. A taped op's
// gradient function receives the output gradient dy and which inputs need a
// gradient, and returns those gradients (same shapes as the inputs; the
// others may be left null). It runs on the frontend inside backward and
// must only push ops.
using GradientFn = std::function<std::array<NDArray, 2>(const NDArray& dy, std::array<bool, 2> need)>;

// Whether taping an op on these inputs is needed: recording, and at least one
// input is a live leaf (req != null) or the output of a taped op.
bool needs_tape(std::initializer_list<const NDArray*> inputs);
// Notes that `output` was computed from `inputs` (one or two arrays). No-op
// unless needs_tape(inputs). Returns output for chaining.
NDArray record_op(std::initializer_list<const NDArray*> inputs, NDArray output, GradientFn gradient);

}  // namespace asyncscope::nn::autograd
