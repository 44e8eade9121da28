// Loss functions in the Gluon style: one loss value per sample, built from
// differentiable ops, so that backward() of the result (head gradient ones)
// gives the gradient of the summed loss; the trainer divides by the batch.
//
// Threading: frontend only.
#pragma once

#include "engine/tensor/ndarray.h"

namespace asyncscope::nn {

// L2Loss: weight/2 * (label - pred)^2, averaged over all but the batch axis.
//   pred {batch}    -> loss {batch}
//   pred {batch, k} -> loss {batch} (the mean over the k outputs)
// label has pred's shape; {batch} and {batch, 1} are also accepted for each other.
class L2Loss {
 public:
  explicit L2Loss(float weight = 1.0f) : weight_(weight) {}
  NDArray operator()(const NDArray& pred, const NDArray& label) const;

 private:
  float weight_;
};

}  // namespace asyncscope::nn
