// PyTorch's grad mode, for the torch edition. MXNet records only the ops run
// inside autograd.record(); PyTorch records every op on a tensor that
// requires grad, unless torch.no_grad() has turned the mode off. The mode is
// per thread and on by default, as in PyTorch. Each Tensor op runs inside a
// TorchGradScope, which sets engine/tensor's recording state from the mode
// for the length of the push.
//
// Threading: each function reads or sets the calling thread's mode.
#pragma once

#include <optional>

#include "engine/tensor/autograd.h"

namespace asyncscope::python {

bool torch_grad_enabled() noexcept;
// Sets the calling thread's mode and returns the one it replaces.
bool set_torch_grad_enabled(bool enabled) noexcept;

// Recording on (grad mode) or off (no_grad) while it lives.
class TorchGradScope {
 public:
  TorchGradScope() {
    if (torch_grad_enabled()) {
      record_.emplace();
    } else {
      pause_.emplace();
    }
  }

 private:
  std::optional<autograd::Record> record_;
  std::optional<autograd::Pause> pause_;
};

}  // namespace asyncscope::python
