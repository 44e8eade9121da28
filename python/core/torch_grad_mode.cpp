#include "python/core/torch_grad_mode.h"

#include <utility>

namespace asyncscope::python {
namespace {

thread_local bool tls_grad_enabled = true;

}  // namespace

bool torch_grad_enabled() noexcept { return tls_grad_enabled; }

bool set_torch_grad_enabled(bool enabled) noexcept { return std::exchange(tls_grad_enabled, enabled); }

}  // namespace asyncscope::python
