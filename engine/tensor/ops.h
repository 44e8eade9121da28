// NDArray operations: the one op vocabulary every frontend program uses. Each
// op pushes its work to the engine and returns the output array at once; the
// computation happens on a worker.
//
// Every differentiable op records itself for autograd (engine/tensor/autograd.h)
// whenever recording is on and an input needs a gradient, whichever way it is
// called (a function, an operator, a layer).
//
// Creation ops take a context, or use the calling thread's current context
// (ContextScope): ones({2, 3}) as nd.ones((2, 3)). Other ops run in the
// context of their inputs.
//
// Elementwise binary ops broadcast as NumPy does: shapes are aligned at their
// last dimension, and a dimension of 1 (or a missing one) stretches to the
// other's. Their gradients are summed back to each input's shape.
//
// An op runs on the device of its arrays: on a CPU worker, or submitted to a
// GPU stream (engine/cuda/kernels.h, cuBLAS for dot). Operands of one op must
// be on the same device and in the same context.
//
// Errors a program can make (shapes that do not fit, another device, a null
// array, a context whose run ended) throw std::invalid_argument or
// std::logic_error at the call, with one message naming the op and the
// shapes; errors while the op runs (a refused allocation under the memory
// budget) are rethrown at the sync point that depends on it, naming the op.
//
// Threading: frontend only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/tensor/autograd.h"
#include "engine/tensor/ndarray.h"

namespace asyncscope {

// Creation, on the context's device (Context::Options::device).
NDArray zeros(const ContextPtr& ctx, const Shape& shape);
NDArray ones(const ContextPtr& ctx, const Shape& shape);
NDArray full(const ContextPtr& ctx, const Shape& shape, float value);
// Seeded: the same context seed and push order give the same numbers, whatever the workers.
NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low = 0.0f, float high = 1.0f);
NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean = 0.0f, float std_dev = 1.0f);
// Copies host values into a new array (values.size() must equal shape.size()).
NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values);

// The same on a given device of the context (std::invalid_argument, saying
// why, if its engine has no workers for it).
NDArray zeros(const ContextPtr& ctx, const Shape& shape, Device device);
NDArray ones(const ContextPtr& ctx, const Shape& shape, Device device);
NDArray full(const ContextPtr& ctx, const Shape& shape, float value, Device device);
NDArray uniform(const ContextPtr& ctx, const Shape& shape, float low, float high, Device device);
NDArray normal(const ContextPtr& ctx, const Shape& shape, float mean, float std_dev, Device device);
NDArray from_host(const ContextPtr& ctx, const Shape& shape, std::vector<float> values, Device device);

// The same in the current context.
NDArray zeros(const Shape& shape);
NDArray ones(const Shape& shape);
NDArray full(const Shape& shape, float value);
NDArray uniform(const Shape& shape, float low = 0.0f, float high = 1.0f);
NDArray normal(const Shape& shape, float mean = 0.0f, float std_dev = 1.0f);
NDArray from_host(const Shape& shape, std::vector<float> values);

// Creation of any dtype (engine/tensor/dtype.h), on the CPU for types other
// than float32: `value` everywhere; start, start + step, ... up to but not
// including stop (NumPy's arange: ceil((stop - start) / step) values); the
// bytes of shape.size() values of the type, row-major.
NDArray full(const ContextPtr& ctx, const Shape& shape, double value, DType dtype, Device device);
NDArray arange(const ContextPtr& ctx, double start, double stop, double step, DType dtype, Device device);
NDArray from_host_bytes(const ContextPtr& ctx, const Shape& shape, DType dtype, std::vector<std::byte> bytes,
                        Device device);
// A 0-d array of a number for an op with `like`, on like's device, of the
// type scalar_result() gives (x + 1 keeps an int32 array int32).
NDArray scalar_like(const NDArray& like, double value, bool is_float);
// The values converted to `dtype` (a new array; NumPy's astype: floats to
// integers truncate toward zero, anything to bool is != 0). Differentiable
// between floating types.
NDArray astype(const NDArray& a, DType dtype);

// Waits for every op pushed in the context (a sync point; nd.waitall()).
void wait_all(const ContextPtr& ctx);
void wait_all();  // in the current context

NDArray copy(const NDArray& a);
// The array's values on `device`: a copy pushed as an op on the GPU's stream
// (host to device, or device to page-locked host memory), or copy() on the
// same device.
NDArray to(const NDArray& a, Device device);

// Elementwise, broadcasting.
NDArray operator+(const NDArray& a, const NDArray& b);
NDArray operator-(const NDArray& a, const NDArray& b);
NDArray operator*(const NDArray& a, const NDArray& b);
NDArray operator/(const NDArray& a, const NDArray& b);
NDArray operator+(const NDArray& a, float s);
NDArray operator-(const NDArray& a, float s);
NDArray operator*(const NDArray& a, float s);
NDArray operator/(const NDArray& a, float s);
NDArray operator+(float s, const NDArray& a);
NDArray operator-(float s, const NDArray& a);
NDArray operator*(float s, const NDArray& a);
NDArray operator/(float s, const NDArray& a);
NDArray operator-(const NDArray& a);
// a to the power b; the larger and the smaller (a NaN wins; a tie's gradient
// goes to a).
NDArray pow(const NDArray& a, const NDArray& b);
NDArray maximum(const NDArray& a, const NDArray& b);
NDArray minimum(const NDArray& a, const NDArray& b);
// Comparisons: 1 where it holds, else 0 (float32, as MXNet's nd gives them;
// not differentiable).
NDArray equal(const NDArray& a, const NDArray& b);
NDArray not_equal(const NDArray& a, const NDArray& b);
NDArray greater(const NDArray& a, const NDArray& b);
NDArray greater_equal(const NDArray& a, const NDArray& b);
NDArray less(const NDArray& a, const NDArray& b);
NDArray less_equal(const NDArray& a, const NDArray& b);
// Python's // and % (floored: the remainder has the divisor's sign), in
// the promoted type; an integer division by zero is the op's error, raised
// at the sync point. Not differentiable. Two bool operands are refused (as
// for pow); an integer to a negative integer power is 1 / a^|b| truncated.
NDArray floor_divide(const NDArray& a, const NDArray& b);
NDArray mod(const NDArray& a, const NDArray& b);
// Comparisons and logical ops in the promoted type: a bool array (as_bool:
// PyTorch's and NumPy's result) or 1 and 0 in the promoted type (MXNet's nd).
enum class Comparison { equal, not_equal, greater, greater_equal, less, less_equal, logical_and, logical_or, logical_xor };
NDArray compare(const NDArray& a, const NDArray& b, Comparison c, bool as_bool);
NDArray logical_not(const NDArray& a, bool as_bool);
// a where condition holds (!= 0), else b; broadcasting all three; the
// gradient goes to the side taken.
NDArray where(const NDArray& condition, const NDArray& a, const NDArray& b);
// Integer and bool arrays keep their type under abs, sign, negation, relu,
// square and rounding; other functions compute on a float32 copy of them.
NDArray relu(const NDArray& a);
NDArray square(const NDArray& a);
NDArray sqrt(const NDArray& a);
NDArray exp(const NDArray& a);
NDArray log(const NDArray& a);
NDArray abs(const NDArray& a);
NDArray sign(const NDArray& a);  // -1, 0 or 1
NDArray sin(const NDArray& a);
NDArray cos(const NDArray& a);
NDArray tanh(const NDArray& a);
NDArray sigmoid(const NDArray& a);  // 1 / (1 + exp(-a))
NDArray log1p(const NDArray& a);    // log(1 + a), exact for small a
NDArray expm1(const NDArray& a);    // exp(a) - 1, exact for small a
// The inverse trigonometric functions (arcsin and arccos NaN outside
// [-1, 1]), the hyperbolic sine and cosine, and the error function.
NDArray asin(const NDArray& a);
NDArray acos(const NDArray& a);
NDArray atan(const NDArray& a);
NDArray sinh(const NDArray& a);
NDArray cosh(const NDArray& a);
NDArray erf(const NDArray& a);
// Rounding (gradient zero): floor, ceil, to the nearest integer with halves
// to even (rint: NumPy's and PyTorch's round) or away from zero (round:
// MXNet's nd.round).
NDArray floor(const NDArray& a);
NDArray ceil(const NDArray& a);
NDArray rint(const NDArray& a);
NDArray round(const NDArray& a);
// dy where x > 0, else 0: the gradient of relu (not itself differentiable).
NDArray relu_grad(const NDArray& x, const NDArray& dy);

// Matrix product of 2-D arrays through BLAS sgemm: op(a) x op(b).
NDArray dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
// The matrix products of a batch: (B, m, k) x (B, k, n) -> (B, m, n), each
// operand's matrices optionally transposed (no copy), one op; float32. On
// the CPU the batch is split among idle workers, each product one sgemm; on
// a GPU a cuBLAS sgemm per product, on the op's stream. Differentiable:
// its gradients are batch_dots again.
NDArray batch_dot(const NDArray& a, const NDArray& b, bool transpose_a = false, bool transpose_b = false);
// The transpose of a 2-D array (a copy).
NDArray transpose(const NDArray& a);
// The axes of a in the order given (a copy): dimension i of the result is
// dimension order[i] of a (negative counts from the end).
NDArray permute(const NDArray& a, std::span<const int> order);
// The same values in another shape of the same size: a view sharing a's
// storage, no op pushed. One dimension may be -1 (inferred), as in NumPy.
NDArray reshape(const NDArray& a, std::span<const int64_t> dims);
NDArray reshape(const NDArray& a, const Shape& shape);
// a stretched to `shape` by NumPy's broadcasting rules (a copy; a itself
// when it already has that shape).
NDArray broadcast_to(const NDArray& a, const Shape& shape);
// The sum of a over the dimensions that broadcasting `shape` to a's shape
// would stretch: the inverse of broadcast_to, for gradients (a itself, or
// a view of it, when nothing is stretched).
NDArray sum_to(const NDArray& a, const Shape& shape);

// Joining and cutting along an axis (negative counts from the end), on the
// CPU: arrays side by side (all of one shape but for `axis`), along a new
// axis (all of one shape), and the range [begin, end) of one axis (a copy).
NDArray concat(std::span<const NDArray> arrays, int axis);
NDArray stack(std::span<const NDArray> arrays, int axis);
NDArray slice_axis(const NDArray& a, int axis, int64_t begin, int64_t end);

// Reductions of the whole array to a 0-d array (accumulated in double).
NDArray sum(const NDArray& a);
NDArray mean(const NDArray& a);
NDArray norm(const NDArray& a);  // Euclidean (Frobenius) norm
// Along axes (negative counts from the end; empty: every axis). keepdims
// leaves each reduced dimension as 1, else it is removed.
NDArray sum(const NDArray& a, std::span<const int> axes, bool keepdims = false);
NDArray mean(const NDArray& a, std::span<const int> axes, bool keepdims = false);
NDArray norm(const NDArray& a, std::span<const int> axes, bool keepdims = false);
NDArray sum(const NDArray& a, int axis, bool keepdims = false);
NDArray mean(const NDArray& a, int axis, bool keepdims = false);
NDArray norm(const NDArray& a, int axis, bool keepdims = false);

// Reductions of any dtype along axes (empty: every axis), on the CPU.
// Result types: sum and prod of integers or bools int64, of floats their
// type; max and min the input's; argmax and argmin int64 (the index within
// the reduced axes, row-major; the first of equal ones, a NaN wins); all and
// any bool; mean floats only (std::invalid_argument otherwise). max, min,
// argmax and argmin of an empty selection are std::out_of_range.
// Differentiable for floats: sum, mean, prod, max and min (max's gradient
// is shared by the elements equal to it).
enum class Reduction { sum, prod, max, min, argmax, argmin, all, any, mean };
NDArray reduce(const NDArray& a, Reduction r, std::span<const int> axes, bool keepdims = false);
// Running sums along one axis (a 0-d array counts as 1-d), from the end when
// `reverse`; integers and bools accumulate as int64.
NDArray cumsum(const NDArray& a, int axis, bool reverse = false);

// Sorting along one axis (negative counts from the end; a 0-d array counts
// as 1-d), ascending or descending, any dtype, on the CPU or a GPU. The
// order is stable: equal values keep their order in the line. NaN sorts as
// the largest value (last ascending, as NumPy; first descending, as
// PyTorch). Indices are int64, places along the axis. While autograd
// records, the values of a float array are taken from the indices with
// take_along_axis, so the gradient goes back to where each came from; the
// trace then shows argsort (or topk) and take_along_axis instead of one sort.
struct Sorted {
  NDArray values, indices;
};
NDArray sort(const NDArray& a, int axis = -1, bool descending = false);
NDArray argsort(const NDArray& a, int axis = -1, bool descending = false);
Sorted sort_with_indices(const NDArray& a, int axis = -1, bool descending = false);
// The k largest (or smallest) of each line along axis, in that order; k
// from 0 to the axis length, else std::invalid_argument.
Sorted topk(const NDArray& a, int64_t k, int axis = -1, bool largest = true);
// a's values at `indices` along axis, and at the same place along the
// others (NumPy's take_along_axis): indices have a's number of dimensions,
// each other one a's length or 1 (both broadcast, as NumPy's); negative
// indices count from the end, one out of range is the op's error at the
// sync point. One op, any dtype, on the CPU or a GPU; differentiable for
// floats (its gradient adds back where each element came from).
NDArray take_along_axis(const NDArray& a, const NDArray& indices, int axis);

// A strided selection of an array's elements, what basic indexing (ints,
// slices with steps, None) picks: element (i0, i1, ...) of the selection is
// element offset + i0 * strides[0] + i1 * strides[1] + ... of the array in
// row-major order. Strides may be negative or zero.
struct Selection {
  int64_t offset = 0;
  Shape shape;
  int64_t strides[Shape::kMaxDims] = {};
};
// The selected values as a new array (a copy; differentiable for floats).
NDArray take(const NDArray& a, const Selection& selection);
// The selected values as a view of a's storage when they lie contiguous in
// it (x[1], x[1:3], x[2, 1:3]), or nothing when they do not (x[:, 1],
// x[::2]); std::out_of_range for a selection outside a. No op is pushed:
// the view shares a's var, so an op writing one is ordered with every op
// reading the other, and a write through either is seen through both
// (NumPy's and PyTorch's basic-indexing views; MXNet's nd gives views for
// the contiguous ones only, as here). A view carries no gradient link to a:
// while recording take() it instead.
std::optional<NDArray> view_of(const NDArray& a, const Selection& selection);
// a's selected elements = value (broadcast to the selection's shape, cast to
// a's type), in place: one op writing a's var. Refused while recording when
// a or value needs a gradient.
NDArray& assign(NDArray& a, const Selection& selection, const NDArray& value);

// A random permutation of 0..n-1 (int64), seeded as the random fills are
// (the same context seed and push order give the same one).
NDArray randperm(const ContextPtr& ctx, int64_t n, Device device);
// `samples` category indices (int64) drawn from each row of `weights` (1-d:
// one row; 2-d: one draw per row), category c with probability weights[c]
// over the row's sum; without replacement no category repeats (at most as
// many samples as categories with a non-zero weight). Seeded as the random
// fills are. Negative, infinite or NaN weights, or a row summing to 0, are
// the op's error at the sync point. On the CPU (a GPU array's weights are
// copied there and the indices back).
NDArray multinomial(const NDArray& weights, int64_t samples, bool replacement);

// Integer-array indexing (NumPy's advanced indexing on the leading axes):
// k index arrays (integers, broadcast to one shape I) pick, for each
// position j of I, the block a[i0[j], ..., ik-1[j], ...] of the remaining
// dimensions; the result has shape I + a.shape[k:]. Negative indices count
// from the end; one out of range is the op's error, at the sync point. On
// the CPU; gather is differentiable for floats (its gradient adds the
// blocks back, repeated indices summing).
NDArray gather(const NDArray& a, std::span<const NDArray> indices);
// a's picked blocks = value (broadcast to I + a.shape[k:], cast to a's
// type), in place: one op writing a's var. A repeated index keeps the last
// value written.
NDArray& scatter(NDArray& a, std::span<const NDArray> indices, const NDArray& value);

}  // namespace asyncscope
