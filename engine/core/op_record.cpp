#include "engine/core/op_record.h"

#include "engine/core/recycler.h"

namespace asyncscope {
namespace {

// Chains of 64 records; at most 256 chains kept (16,384 records, 6.5 MB,
// process-wide). Beyond, memory is freed, and a burst of more ops in flight
// allocates its extra records again the next time. The bound trades memory
// for speed: it covers a burst of 10,000 ops in flight (as in
// BM_TinyOpLoopQuietVsLoaded when the worker lags), while a much smaller
// cache makes such a burst malloc its extra records every batch, a cost seen
// in the time per op, and a much larger one holds tens of MB for no gain.
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
