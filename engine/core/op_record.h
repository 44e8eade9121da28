// OpRecord: the engine-internal record of one pushed op, pooled so that push
// allocates nothing in the steady state.
// Threading: written by the pushing thread until it is linked into its vars;
// after that, owned by whichever thread holds it (the var queue, the ready
// queue, then one worker).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "engine/core/op.h"
#include "engine/core/var.h"

namespace asyncscope {

struct WaitSlot;

struct OpRecord {
  enum class Kind : uint8_t {
    normal,
    sync,       // a wait_for_var marker: signals its waiter when granted, never dispatched
    delete_var  // frees its single written var once it completes
  };
  static constexpr int kInlineVars = 6;

  OpFn fn;
  // wait and ready_ns share a cache line: a grant writes both.
  std::atomic<int> wait{0};  // grants still missing, +1 held by push until it is done
  uint32_t epoch = 0;        // cancel() generation at push; stale ones are dropped
  // Tracing: the earliest time (trace clock ns) the op may be said to start:
  // its enqueue, raised by every op whose completion granted it to that op's
  // end. 0 when the op is not traced. A worker's start time is clamped to it,
  // so the trace shows an op starting after everything it waited for ended
  // without the worker reading the clock behind a fence.
  std::atomic<int64_t> ready_ns{0};
  uint64_t id = 0;
  OpMeta meta;
  uint16_t num_reads = 0;  // links: reads first, then writes
  uint16_t num_writes = 0;
  Kind kind = Kind::normal;
  // Runs on the only stream of its GPU pool, so it may be granted by stream
  // order right after the ops before it were launched (see Var).
  bool stream_ordered = false;
  // Its work was launched on that stream and its vars were told (Var::launched).
  bool on_stream = false;
  // Pushed by a thread running ahead: many pushes since its last wait. A
  // worker that takes such an op from its pool's queue or its mailbox may
  // hold it back a moment (run_ahead.h).
  bool run_ahead = false;
  OpRecord* next = nullptr;  // ready-list / queue link
  WaitSlot* slot = nullptr;  // sync ops: the waiter to signal
  void* owner = nullptr;     // the engine that pushed it
  VarLink inline_links[kInlineVars];
  std::unique_ptr<VarLink[]> heap_links;

  VarLink* links() noexcept { return heap_links ? heap_links.get() : inline_links; }
  Var* read(int i) noexcept { return links()[i].var; }
  Var* write(int i) noexcept { return links()[num_reads + i].var; }

  // Grants one dependency; true if that was the last one. `at`: the granting
  // op's end (trace clock ns), or 0 when there is none to pass on.
  bool grant(int64_t at = 0) noexcept {
    if (at != 0) raise_ready_ns(at);
    return wait.fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

 private:
  void raise_ready_ns(int64_t at) noexcept {
    // With one grant left, ours, no other thread writes ready_ns any more; the
    // acquire load sees what the earlier granters wrote before their release.
    if (wait.load(std::memory_order_acquire) == 1) {
      if (ready_ns.load(std::memory_order_relaxed) < at) ready_ns.store(at, std::memory_order_relaxed);
      return;
    }
    int64_t seen = ready_ns.load(std::memory_order_relaxed);
    while (seen < at && !ready_ns.compare_exchange_weak(seen, at, std::memory_order_relaxed)) {
    }
  }
};

// Host memory one pending op holds, as charged against a run's budget: its
// record plus its share of the vars and array handles its arrays keep alive.
// The share was measured with heaptrack on memory-and-sync (batch size 1, no
// sync): about 110 B per op of Var blocks and NDArray handles
// (docs/PERFORMANCE.md), rounded up.
inline constexpr int64_t kPendingOpShareBytes = 128;
inline constexpr int64_t kPendingOpBytes = static_cast<int64_t>(sizeof(OpRecord)) + kPendingOpShareBytes;

// Process-wide pool of op records: a small per-thread cache in front of a
// locked global list, so the frontend (which allocates) and workers (which
// release) touch the shared list only once per batch.
// Threading: any thread.
OpRecord* acquire_op_record();
void release_op_record(OpRecord* op) noexcept;

}  // namespace asyncscope
