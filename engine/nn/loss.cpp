#include "engine/nn/loss.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/tensor/ops.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::nn {

L2Loss::L2Loss(float weight, int batch_axis) : weight_(weight), batch_axis_(batch_axis) {
  if (batch_axis < 0) throw std::invalid_argument("L2Loss: batch_axis must be >= 0, got " + std::to_string(batch_axis));
}

NDArray L2Loss::operator()(const NDArray& pred, const NDArray& label) const {
  const Shape& shape = pred.chunk("L2Loss")->shape;  // an empty array: its error here
  static const trace::NameId kScope = trace::intern("L2Loss");
  const trace::TraceScope scope(pred.context().engine().recorder().get(), kScope);
  if (label.chunk("L2Loss")->shape.size() != shape.size()) {
    throw std::invalid_argument("L2Loss: the label " + label.shape().to_string() + " does not match the prediction " +
                                shape.to_string() + " (they need as many elements)");
  }
  if (shape.ndim() <= batch_axis_) {
    throw std::invalid_argument("L2Loss: the prediction " + shape.to_string() + " has no batch axis " +
                                std::to_string(batch_axis_));
  }
  const NDArray loss = square(reshape(label, shape) - pred) * (0.5f * weight_);
  std::vector<int> others;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (i != batch_axis_) others.push_back(i);
  }
  return others.empty() ? loss : mean(loss, others);
}

}  // namespace asyncscope::nn
