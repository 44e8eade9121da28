// How the torch edition prints a tensor: PyTorch's text, e.g.
//
//   tensor([[3., 3.]])                         values that are all whole numbers
//   tensor([0.5000, 1.2500], device='cuda:0')  otherwise 4 decimals,
//   tensor([1.0000e-05, 1.0000e+00])           or scientific for a wide range
//   tensor([ 0.1000,  ...,  9.9000])           more than 1000 values: 3 each side
//   tensor([0, 1, 2])                          integers; bools as True/False
//
// All values are padded to one width, rows are laid out under each other,
// and long rows wrap at 80 columns, as PyTorch's default print options do.
// This is the text only: the caller waits for the values (a print sync point).
//
// Threading: any thread (a pure function).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/tensor/shape.h"

namespace asyncscope::python {

// How the values are written: floats as above, integers as integers
// (tensor([0, 1, 2])), bools as True and False. Integers beyond 2^53 are
// written as their nearest double.
enum class TensorValues { floating, integer, boolean };

// "tensor(" + the values + ", " + each suffix (such as "device='cuda:0'") + ")".
std::string torch_tensor_text(const Shape& shape, std::span<const double> values, TensorValues kind,
                              const std::vector<std::string>& suffixes);

}  // namespace asyncscope::python
