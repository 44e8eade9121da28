#include "engine/core/op_record.h"

#include "engine/core/recycler.h"

namespace asyncscope {
namespace {

// Chains of 64 records; at most 256 chains kept (16,384 records, 6.5 MB,
// process-wide). Beyond, memory is freed, and a burst of more ops in flight
// allocates its extra records again the next time. Measured with
// BM_TinyOpLoopQuietVsLoaded (10,000 ops in flight per batch when the
// worker lags): 100-105 ns per op keeping 65,536 records (26 MB), 125 ns
// keeping 4,096 (1.6 MB, the rest malloc'd each batch).
using Records = Recycler<OpRecord, &OpRecord::next, 64, 256>;

}  // namespace

// Records come back from the workers, so their lines sit modified in another
// core's cache; take() fetches the next one for writing, which hides that
// transfer from the next push (otherwise its first atomic waits for these
// stores to land).
OpRecord* acquire_op_record() { return Records::take(); }

void release_op_record(OpRecord* op) noexcept {
  op->fn.reset();
  op->heap_links.reset();
  op->slot = nullptr;
  Records::give(op);
}

}  // namespace asyncscope
