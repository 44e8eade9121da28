#include "engine/nn/loss.h"

#include <stdexcept>

#include "engine/nn/functional.h"

namespace asyncscope::nn {
namespace {

// The label in pred's shape: {batch} and {batch, 1} hold the same values.
NDArray label_like(const NDArray& label, const Shape& pred) {
  const Shape& s = label.shape();
  if (s == pred) return label;
  if (pred.ndim() == 2 && pred[1] == 1 && s.ndim() == 1 && s[0] == pred[0]) return autograd::as_column(label);
  if (pred.ndim() == 1 && s.ndim() == 2 && s[1] == 1 && s[0] == pred[0]) {
    return autograd::reshape_row(autograd::transpose(label), pred);
  }
  throw std::invalid_argument("L2Loss: label " + s.to_string() + " does not match the prediction " + pred.to_string());
}

}  // namespace

NDArray L2Loss::operator()(const NDArray& pred, const NDArray& label) const {
  const Shape& shape = pred.shape();
  if (shape.ndim() != 1 && shape.ndim() != 2) {
    throw std::invalid_argument("L2Loss: needs a prediction {batch} or {batch, k}, got " + shape.to_string());
  }
  NDArray squared = autograd::square(autograd::subtract(pred, label_like(label, shape)));
  if (shape.ndim() == 1) return autograd::multiply(squared, 0.5f * weight_);
  // One op for the mean over k and the factor weight/2.
  const float scale = shape[1] > 0 ? 0.5f * weight_ / static_cast<float>(shape[1]) : 0.0f;
  return autograd::multiply(autograd::sum(squared, 1), scale);
}

}  // namespace asyncscope::nn
