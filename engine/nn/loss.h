// Loss functions in the Gluon style: one loss value per sample, built from
// differentiable ops, so that backward() of the result (head gradient ones)
// gives the gradient of the summed loss; the trainer divides by the batch.
//
// Threading: frontend only.
#pragma once

#include "engine/tensor/ndarray.h"

namespace asyncscope::nn {

// L2Loss: weight/2 * (label - pred)^2, averaged over every axis but the
// batch axis: pred {batch} -> loss {batch}; pred {batch, k} -> loss {batch}
// (the mean over the k outputs). The label is viewed in pred's shape, so any
// label with as many elements works ({batch} for a {batch, 1} prediction and
// the other way round, as in the chapter's loss(y, net(X))); another size is
// std::invalid_argument naming both shapes.
class L2Loss {
 public:
  explicit L2Loss(float weight = 1.0f, int batch_axis = 0);
  NDArray operator()(const NDArray& pred, const NDArray& label) const;

 private:
  float weight_;
  int batch_axis_;
};

}  // namespace asyncscope::nn
