// MemoryAccount: a memory budget that memory other than arrays is counted
// against (the trace's buffers, the records of ops waiting to run), so one
// budget bounds everything a run grows with. The layers below the tensors
// know only this interface; a run implements it over its host allocator
// (PooledAllocator::charge), whose refusal is a MemoryBudgetError.
// Threading: any thread.
#pragma once

#include <cstdint>

namespace asyncscope::trace {

class MemoryAccount {
 public:
  virtual ~MemoryAccount() = default;
  // Counts `bytes` (for `what`, named in the refusal) before they are
  // allocated. Throws the budget's error, counting nothing, when they do not
  // fit. force: count them even past the budget (memory already allocated,
  // or that must not fail); returns whether they fit.
  virtual bool charge(int64_t bytes, const char* what, bool force = false) = 0;
  // Gives back what charge() counted.
  virtual void uncharge(int64_t bytes) noexcept = 0;
  // Bytes counted now.
  virtual int64_t charged_bytes() const noexcept = 0;
};

}  // namespace asyncscope::trace
