#include "engine/tensor/op_table.h"

#include "engine/tensor/ops.h"

namespace asyncscope {
namespace {

NDArray negate(const NDArray& a) { return -a; }
NDArray add(const NDArray& a, const NDArray& b) { return a + b; }
NDArray subtract(const NDArray& a, const NDArray& b) { return a - b; }
NDArray multiply(const NDArray& a, const NDArray& b) { return a * b; }
NDArray divide(const NDArray& a, const NDArray& b) { return a / b; }

constexpr OpDef kOps[] = {
    // Creation: on the context's device, or the one named.
    {"zeros", OpKind::creation, "zeros zeros_like", "zeros zeros_like", "", "an array of zeros", false, true},
    {"ones", OpKind::creation, "ones ones_like", "ones ones_like", "", "an array of ones", false, true},
    {"full", OpKind::creation, "full", "full_like", "", "an array of one value", false, true},
    // The random ops: the torch edition's CPU tensors draw PyTorch's stream
    // (torch_random.h: its numbers for a seed); MXNet's arrays and GPU
    // tensors the run's counter-based one (base/random.h).
    {"uniform", OpKind::creation, "random.uniform", "rand rand_like uniform_", "",
     "uniform random numbers (PyTorch's stream or the run's, seeded)", false, true, nullptr, nullptr, "floats"},
    {"normal", OpKind::creation, "random.normal", "randn randn_like normal normal_", "",
     "normal random numbers (PyTorch's stream or the run's, seeded)", false, true, nullptr, nullptr, "floats"},
    {"from_host", OpKind::creation, "array", "tensor from_numpy as_tensor", "",
     "an array of host values (a list, NumPy array or number)", false, true},
    {"arange", OpKind::creation, "arange", "arange", "", "evenly spaced values in [start, stop)", false, true},
    {"linspace", OpKind::creation, "linspace eye", "linspace eye", "",
     "num values from start to stop; the identity (composed of arange and casts)", false, true},
    {"randperm", OpKind::creation, "random.shuffle", "randperm", "",
     "a random permutation of 0..n-1 (PyTorch's stream or the run's; on the host, then copied to a GPU); shuffles "
     "through gather", false,
     false},
    {"multinomial", OpKind::creation, "random.multinomial", "multinomial", "",
     "category indices drawn by weight, with or without replacement (PyTorch's stream or the run's; on the host, "
     "then copied to a GPU); np.random.choice",
     false, false, nullptr, nullptr, "floats"},
    {"randint", OpKind::creation, "random.randint", "randint random_", "",
     "integers uniform in [low, high) (PyTorch's stream; MXNet's composed of uniform, floor, astype)", false, true},
    {"random", OpKind::creation, "", "random_", "",
     "integers uniform over what the type holds exactly (PyTorch's stream; Tensor.random_())", false, false},
    {"bernoulli", OpKind::creation, "", "bernoulli bernoulli_", "",
     "1 with probability p, else 0 (PyTorch's stream; dropout's mask; on the host, then copied to a GPU)", false,
     false},
    // Elementwise, broadcasting as NumPy does.
    {"add", OpKind::binary, "add", "add", "+ +=", "a + b", true, true, nullptr, &add},
    {"sub", OpKind::binary, "subtract", "sub subtract", "- -=", "a - b", true, true, nullptr, &subtract},
    {"mul", OpKind::binary, "multiply", "mul multiply", "* *=", "a * b", true, true, nullptr, &multiply},
    {"div", OpKind::binary, "divide", "div divide", "/ /=", "a / b", true, true, nullptr, &divide},
    {"pow", OpKind::binary, "power", "pow", "**", "a to the power b", true, true, nullptr, &pow},
    {"maximum", OpKind::binary, "maximum", "maximum", "", "the larger (a NaN wins; a tie's gradient goes to a)",
     true, true, nullptr, &maximum},
    {"minimum", OpKind::binary, "minimum", "minimum", "", "the smaller (a NaN wins; a tie's gradient goes to a)",
     true, true, nullptr, &minimum},
    {"equal", OpKind::binary, "equal", "", "==", "1 where a == b, else 0", false, true, nullptr, &equal},
    {"not_equal", OpKind::binary, "not_equal", "", "!=", "1 where a != b, else 0", false, true, nullptr, &not_equal},
    {"greater", OpKind::binary, "greater", "", ">", "1 where a > b, else 0", false, true, nullptr, &greater},
    {"greater_equal", OpKind::binary, "greater_equal", "", ">=", "1 where a >= b, else 0", false, true, nullptr,
     &greater_equal},
    {"less", OpKind::binary, "lesser", "", "<", "1 where a < b, else 0", false, true, nullptr, &less},
    {"less_equal", OpKind::binary, "lesser_equal", "", "<=", "1 where a <= b, else 0", false, true, nullptr,
     &less_equal},
    {"floor_divide", OpKind::binary, "", "floor_divide", "//", "a // b, floored as Python's", false, true,
     nullptr, &floor_divide},
    {"mod", OpKind::binary, "", "remainder", "%", "a % b, with the divisor's sign as Python's", false, true,
     nullptr, &mod},
    {"where", OpKind::indexing, "", "where", "", "a where a condition holds, else b", true, true},
    {"logical_and", OpKind::binary, "", "", "& | ^ ~", "logical and, or, xor and not of bool tensors", false,
     true},
    // Elementwise, one input.
    {"negative", OpKind::unary, "negative", "neg negative", "-x", "-a", true, true, &negate},
    {"relu", OpKind::unary, "relu", "relu", "", "max(a, 0)", true, true, &relu},
    {"square", OpKind::unary, "square", "square", "x**2", "a * a", true, true, &square},
    {"sqrt", OpKind::unary, "sqrt", "sqrt", "", "the square root", true, true, &sqrt},
    {"exp", OpKind::unary, "exp", "exp", "", "e to the power a", true, true, &exp},
    {"log", OpKind::unary, "log", "log", "", "the natural logarithm", true, true, &log},
    {"log1p", OpKind::unary, "log1p", "log1p", "", "log(1 + a), exact for small a", true, true, &log1p},
    {"abs", OpKind::unary, "abs", "abs", "abs(x)", "the absolute value", true, true, &abs},
    {"sign", OpKind::unary, "sign", "sign", "", "-1, 0 or 1", true, true, &sign},
    {"sin", OpKind::unary, "sin", "sin", "", "the sine", true, true, &sin},
    {"cos", OpKind::unary, "cos", "cos", "", "the cosine", true, true, &cos},
    {"tanh", OpKind::unary, "tanh", "tanh", "", "the hyperbolic tangent", true, true, &tanh},
    {"sigmoid", OpKind::unary, "sigmoid", "sigmoid", "", "1 / (1 + exp(-a))", true, true, &sigmoid},
    {"expm1", OpKind::unary, "expm1", "expm1", "", "exp(a) - 1, exact for small a", true, true, &expm1},
    {"arcsin", OpKind::unary, "arcsin", "asin arcsin", "", "the inverse sine (NaN outside [-1, 1])", true, true,
     &asin},
    {"arccos", OpKind::unary, "arccos", "acos arccos", "", "the inverse cosine (NaN outside [-1, 1])", true, true,
     &acos},
    {"arctan", OpKind::unary, "arctan", "atan arctan", "", "the inverse tangent", true, true, &atan},
    {"sinh", OpKind::unary, "sinh", "sinh", "", "the hyperbolic sine", true, true, &sinh},
    {"cosh", OpKind::unary, "cosh", "cosh", "", "the hyperbolic cosine", true, true, &cosh},
    {"erf", OpKind::unary, "erf", "erf", "", "the error function, 2/sqrt(pi) times the integral of exp(-t^2) to a",
     true, true, &erf},
    {"floor", OpKind::unary, "floor", "floor", "", "the largest integer not above a", true, true, &floor},
    {"ceil", OpKind::unary, "ceil", "ceil", "", "the smallest integer not below a", true, true, &ceil},
    {"rint", OpKind::unary, "rint", "round", "", "the nearest integer, halves to even", true, true, &rint},
    {"round", OpKind::unary, "round", "", "", "the nearest integer, halves away from zero", true, true, &round},
    // Reductions over all axes or some (axis/dim, keepdims/keepdim).
    {"sum", OpKind::reduction, "sum", "sum", "", "the sum", true, true},
    {"mean", OpKind::reduction, "mean", "mean", "", "the mean", true, true},
    {"norm", OpKind::reduction, "norm", "norm", "",
     "the Euclidean (Frobenius) norm; torch's p=1, inf, 0 and other p composed of abs, sum, max, pow", true, true,
     nullptr, nullptr, "float32"},
    {"prod", OpKind::reduction, "prod", "prod", "", "the product (integers as int64)", true, true},
    {"max", OpKind::reduction, "max", "max amax", "", "the largest (torch's max(dim) also gives the indices)", true,
     true},
    {"min", OpKind::reduction, "min", "min amin", "", "the smallest (torch's min(dim) also gives the indices)", true,
     true},
    {"argmax", OpKind::reduction, "argmax", "argmax", "", "the index of the largest (nd: as float32)", false, true},
    {"argmin", OpKind::reduction, "argmin", "argmin", "", "the index of the smallest (nd: as float32)", false, true},
    {"all", OpKind::reduction, "", "all", "", "whether every element is non-zero (bool)", false, true},
    {"any", OpKind::reduction, "", "any", "", "whether any element is non-zero (bool)", false, true},
    {"cumsum", OpKind::reduction, "", "cumsum", "", "running sums along an axis (integers as int64)", true, true},
    // Linear algebra.
    {"dot", OpKind::linalg, "dot", "mm matmul mv dot", "@",
     "the matrix product of 2-D arrays (BLAS sgemm/dgemm, cuBLAS; integer types on the CPU); mv, matmul and "
     "torch.dot reshape 1-D operands to it",
     true, true},
    // Factorisations, through LAPACK on the CPU (engine/tensor/factor.h), of a matrix or a batch of them.
    {"svd", OpKind::linalg, "", "linalg.svd linalg.svdvals svd", "",
     "A = U diag(S) Vh (gesdd); also matrix_rank, pinv, cond and the 2 and nuclear norms", false, false, nullptr,
     nullptr, "floats"},
    {"qr", OpKind::linalg, "", "linalg.qr qr", "", "A = Q R (geqrf, orgqr)", false, false, nullptr, nullptr,
     "floats"},
    {"geqrf", OpKind::linalg, "", "geqrf", "", "QR as Householder reflectors (geqrf)", false, false, nullptr,
     nullptr, "floats"},
    {"ormqr", OpKind::linalg, "", "ormqr orgqr linalg.householder_product", "",
     "a product with Q given by its reflectors (ormqr)", false, false, nullptr, nullptr, "floats"},
    {"eigh", OpKind::linalg, "", "linalg.eigh linalg.eigvalsh symeig", "",
     "eigenvalues and eigenvectors of a symmetric matrix (syevd); eigvalsh differentiable", false, false, nullptr,
     nullptr, "floats"},
    {"cholesky", OpKind::linalg, "", "linalg.cholesky cholesky", "", "A = L L^T (potrf)", false, false, nullptr,
     nullptr, "floats"},
    {"lu_factor", OpKind::linalg, "", "linalg.lu_factor linalg.lu lu", "",
     "A = P L U (getrf); also det and slogdet (differentiable)", false, false, nullptr, nullptr, "floats"},
    {"lu_solve", OpKind::linalg, "", "linalg.lu_solve lu_solve", "", "A X = B from A's LU factors (getrs)", false,
     false, nullptr, nullptr, "floats"},
    {"inverse", OpKind::linalg, "", "linalg.inv inverse", "",
     "the inverse (getrf, getri); also solve and matrix_power's negative powers", true, false, nullptr, nullptr,
     "floats"},
    {"solve_triangular", OpKind::linalg, "", "linalg.solve_triangular triangular_solve", "",
     "A X = B for triangular A (trtrs)", true, false, nullptr, nullptr, "floats"},
    // Shape.
    {"transpose", OpKind::shape, "transpose T", "T", "", "the transpose of a 2-D array (a copy)", true, true},
    {"reshape", OpKind::shape, "reshape", "reshape", "", "the same values in another shape (a view)", true, true},
    {"concat", OpKind::shape, "concat stack", "cat concat stack", "",
     "arrays joined along an axis (stack: along a new one)", true, true},
    {"slice_axis", OpKind::shape, "slice_axis", "", "", "the range [begin, end) of one axis (a copy)", true,
     true},
    {"broadcast_to", OpKind::shape, "broadcast_to", "", "", "a stretched to a shape by broadcasting", true, true},
    {"permute", OpKind::shape, "swapaxes flip", "permute transpose swapaxes t flip", "",
     "the axes in another order, or reversed (a strided copy)", true, true},
    {"unsqueeze", OpKind::shape, "expand_dims squeeze", "unsqueeze squeeze flatten view", "",
     "a new or removed axis of 1, axes merged (views: reshape)", true, true},
    {"split", OpKind::shape, "split", "split chunk", "", "parts along an axis (slice_axis each)", true, true},
    {"std", OpKind::reduction, "", "std var", "",
     "standard deviation and variance (composed: mean, sub, mul, sum, sqrt)", true, true, nullptr, nullptr,
     "float32"},
    {"softmax", OpKind::reduction, "", "softmax log_softmax", "",
     "exp(x) / sum(exp(x)) along an axis, shifted by the max (composed; npx.softmax too)", true, true, nullptr,
     nullptr, "float32"},
    {"batch_dot", OpKind::linalg, "batch_dot", "bmm", "",
     "batched matrix products (one op: a GEMM per product, as dot)", true, true},
    {"tile", OpKind::shape, "tile repeat", "repeat tile repeat_interleave", "",
     "copies along axes (composed: concat; or broadcast_to and reshape)", true, true},
    {"outer", OpKind::linalg, "", "outer", "", "the outer product of two vectors (composed: reshape, mul)", true,
     true},
    {"take", OpKind::indexing, "", "", "x[key]", "the elements basic indexing selects (a copy)", true, true},
    {"gather", OpKind::indexing, "", "", "x[idx] x[mask]",
     "the blocks integer arrays (or a bool mask's true positions) pick on the leading axes", true, true},
    {"scatter", OpKind::indexing, "", "", "x[idx] = v", "v written to the blocks integer arrays pick", false,
     true},
    {"assign", OpKind::indexing, "", "", "x[key] = v", "v written to the elements basic indexing selects", false,
     true},
    // Sorting along an axis (stable; NaN the largest).
    {"sort", OpKind::sorting, "sort", "sort msort", "", "the values sorted along an axis (torch's with the indices)",
     true, true},
    {"argsort", OpKind::sorting, "argsort", "argsort", "", "the indices that sort an axis (int64; nd: float32)",
     false, true},
    {"topk", OpKind::sorting, "topk", "topk", "", "the k largest or smallest along an axis and their indices", true,
     true},
    {"take_along_axis", OpKind::indexing, "", "take_along_dim", "",
     "values at indices along an axis, at the same place along the others (composed: arange, gather); "
     "np.take_along_axis",
     true, true},
    // Copies.
    {"copy", OpKind::copy, "copy", "clone", "", "a copy", true, true},
    {"astype", OpKind::copy, "astype", "float double long int bool type to", "",
     "the values as another dtype (floats to integers truncate)", true, true},
    {"to", OpKind::copy, "", "to cpu cuda", "", "the values on another device", true, true},
};

}  // namespace

const char* to_string(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::creation: return "creation";
    case OpKind::unary: return "unary";
    case OpKind::binary: return "binary";
    case OpKind::reduction: return "reduction";
    case OpKind::linalg: return "linalg";
    case OpKind::shape: return "shape";
    case OpKind::copy: return "copy";
    case OpKind::indexing: return "indexing";
    case OpKind::sorting: return "sorting";
  }
  return "?";
}

std::span<const OpDef> op_table() noexcept { return kOps; }

const OpDef* find_op(std::string_view name) noexcept {
  for (const OpDef& op : kOps) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

std::vector<std::string_view> frontend_names(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    const size_t space = list.find(' ');
    if (space != 0) out.push_back(list.substr(0, space));
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return out;
}

}  // namespace asyncscope
