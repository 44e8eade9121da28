#include "engine/core/errors.h"

namespace asyncscope {

OpError::OpError(std::string op_name, uint64_t op_id, std::string reason, std::exception_ptr cause)
    : std::runtime_error("op '" + op_name + "' (#" + std::to_string(op_id) + ") failed: " + reason),
      op_name_(std::move(op_name)),
      op_id_(op_id),
      reason_(std::move(reason)),
      cause_(std::move(cause)) {}

}  // namespace asyncscope
