// The embedded interpreter's heap, counted and charged to a run's budget.
//
// Hooks go in before the interpreter starts (install_heap_hooks): CPython's
// raw allocator (PYMEM_DOMAIN_RAW: malloc for blocks pymalloc does not serve,
// over 512 B, and for the interpreter's own buffers) and pymalloc's arena
// allocator (256 KiB or 1 MiB arenas, for the small objects). Together they
// see every byte the Python heap takes from the system. The live count is one
// process-wide atomic; an allocation adds to it and compares with a limit,
// a free subtracts and compares with a floor, and only crossing one of them
// takes a lock.
//
// While a HeapCharge lives (a script's run), the heap's growth beyond its
// size at the run's start is charged to the run's MemoryAccount in whole
// granules (kHeapGranuleBytes) before the memory is taken: an allocation that
// needs a granule the budget refuses fails, and Python raises MemoryError.
// The charge is never less than the growth, and at most two granules more
// (a granule is given back once the growth is a whole granule below what is
// charged, so a loop around a boundary does not charge and uncharge each time).
// Outside a HeapCharge nothing is charged.
//
// Not seen: memory a library takes from malloc itself (NumPy's array data,
// which its own allocator gets from malloc), and the heap when PYTHONMALLOC
// is set (the hooks are not installed then: a debug allocator's blocks are
// not malloc's, and with "malloc" objects bypass the raw domain).
//
// Threading: any thread. The raw hooks run without the GIL.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "engine/base/allocator.h"
#include "engine/trace_record/memory_account.h"

namespace asyncscope::python {

inline constexpr int64_t kHeapGranuleBytes = int64_t{1} << 20;

// Installs the hooks around the allocators Python has now. Call once, after
// Python's pre-initialization and before any interpreter state exists.
// Returns false, installing nothing, when PYTHONMALLOC is set.
bool install_heap_hooks();

struct HeapStats {
  bool hooked = false;        // install_heap_hooks() installed the hooks
  int64_t live_bytes = 0;     // taken by the Python heap now, counted since the hooks went in
  int64_t charged_bytes = 0;  // what the active HeapCharge has charged to its account now; 0 without one
};
HeapStats heap_stats() noexcept;

// Charges the heap's growth to `account` while it lives. One at a time: a
// second one made while another lives charges nothing (the heap is the
// process's, so its growth cannot be told apart by run). Give the account
// back: the destructor uncharges everything charged. Make and destroy it on
// one thread.
class HeapCharge {
 public:
  HeapCharge(std::shared_ptr<trace::MemoryAccount> account, const char* what);
  ~HeapCharge();
  HeapCharge(const HeapCharge&) = delete;
  HeapCharge& operator=(const HeapCharge&) = delete;

  // Stops charging (and refusing) and gives back what was charged: the run
  // is over, and what follows (a traceback, freeing the globals) must not fail.
  void end() noexcept;
  // The budget's refusal, if an allocation was refused.
  std::optional<MemoryBudgetError> refusal() const;

 private:
  bool active_ = false;
  std::optional<MemoryBudgetError> refusal_;  // kept by end()
};

}  // namespace asyncscope::python
