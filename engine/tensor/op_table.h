// The op table: every op of engine/tensor, declared once, with its name in
// each frontend, its kind, whether it has a gradient and a CUDA kernel, the
// dtypes it takes and a one-line doc. The frontends' Python functions and
// array methods for the elementwise ops, of one input or two (an array or a
// number on either side), are made from it (python/core/bind_ops.cpp);
// `asyncscope ops` prints it; docs/FRONTEND.md says how to add an op. A kernel's own file (ops_*.cpp) holds its CPU and
// CUDA function and its gradient.
// Threading: read-only data, any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/tensor/ndarray.h"

namespace asyncscope {

enum class OpKind : uint8_t { creation, unary, binary, reduction, linalg, shape, copy, indexing, sorting };
const char* to_string(OpKind kind) noexcept;  // "creation", "unary", ...

struct OpDef {
  std::string_view name;  // the engine's name, as the trace shows it
  OpKind kind;
  // The names in each frontend, space-separated where it has more than one
  // ("neg negative"), "" where it has none: MXNet's nd and PyTorch's torch,
  // each a module function or an array method (both, for the unary ops).
  std::string_view nd;
  std::string_view torch;
  // The Python operators that run it on the arrays of the frontends that
  // have it ("+", "-x", "@").
  std::string_view operators;
  std::string_view doc;
  bool gradient = false;  // differentiable (autograd records it)
  bool cuda = false;      // has a CUDA kernel
  // Elementwise ops: the op itself, from which the frontends' functions are
  // made (one of the two, by kind).
  NDArray (*unary)(const NDArray&) = nullptr;
  NDArray (*binary)(const NDArray&, const NDArray&) = nullptr;
  // The dtypes it takes, on every device it has: "all"
  // (engine/tensor/dtype.h), "floats" (float32 and float64), or "float32".
  std::string_view dtypes = "all";
};

// Every op, in the order `asyncscope ops` prints them.
std::span<const OpDef> op_table() noexcept;
// The op named `name` (the engine's name), or null.
const OpDef* find_op(std::string_view name) noexcept;
// The names in a space-separated list.
std::vector<std::string_view> frontend_names(std::string_view list);

}  // namespace asyncscope
