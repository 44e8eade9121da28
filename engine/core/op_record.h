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
  std::atomic<int> wait{0};  // grants still missing, +1 held by push until it is done
  uint64_t id = 0;
  OpMeta meta;
  uint32_t epoch = 0;      // cancel() generation at push; stale ones are dropped
  uint16_t num_reads = 0;  // links: reads first, then writes
  uint16_t num_writes = 0;
  Kind kind = Kind::normal;
  OpRecord* next = nullptr;  // ready-list / queue link
  WaitSlot* slot = nullptr;  // sync ops: the waiter to signal
  void* owner = nullptr;     // the engine that pushed it
  VarLink inline_links[kInlineVars];
  std::unique_ptr<VarLink[]> heap_links;

  VarLink* links() noexcept { return heap_links ? heap_links.get() : inline_links; }
  Var* read(int i) noexcept { return links()[i].var; }
  Var* write(int i) noexcept { return links()[num_reads + i].var; }

  // Grants one dependency; true if that was the last one.
  bool grant() noexcept { return wait.fetch_sub(1, std::memory_order_acq_rel) == 1; }
};

// Process-wide pool of op records: a small per-thread cache in front of a
// locked global list, so the frontend (which allocates) and workers (which
// release) touch the shared list only once per batch.
// Threading: any thread.
OpRecord* acquire_op_record();
void release_op_record(OpRecord* op) noexcept;

}  // namespace asyncscope
