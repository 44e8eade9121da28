// EngineBase: what ThreadedEngine and NaiveEngine share: the var pool, op
// preparation (ids, de-duplicated var links, enqueue tracing), executing one
// op with error propagation and cancellation, and the error list wait_all
// rethrows.
// Threading: as Engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/op_record.h"
#include "engine/core/spin_lock.h"

namespace asyncscope {

// Vars of one engine: allocated in blocks, recycled, freed with the engine.
// The frontend takes a var for every new array and a worker mostly gives it
// back (the free of the array). Givers push onto a lock-free stack, one
// compare-and-swap on a line of their own; takers take from a private list
// under a lock of their own, refilled with the whole given stack once it
// holds a batch, else with a batch of new vars. So the two sides meet once
// per batch, not at every var (a shared spin lock and list would cost the
// frontend two cache-line transfers per array, a noticeable share of a tiny
// op's time from Python), and each var taken fetches the next one's lines
// for writing.
// Threading: any thread.
class VarPool {
 public:
  Var* acquire();
  void release(Var* var) noexcept;

 private:
  static constexpr uint32_t kBatch = 32;

  // The takers' side (lock, private list, ids and storage).
  alignas(64) SpinLock take_lock_;
  Var* free_ = nullptr;  // the private list
  uint64_t next_id_ = 1;
  std::deque<Var> storage_;  // deque: vars never move
  // The givers' line: the stack's head (its depth is in each var).
  alignas(64) std::atomic<Var*> given_{nullptr};
};

class EngineBase : public Engine {
 public:
  Var* new_var() override { return vars_.acquire(); }
  int64_t max_inflight() const noexcept override { return max_inflight_; }

 protected:
  explicit EngineBase(const EngineOptions& options);

  // Fills an op record (wait = number of links + 1, held by the caller) and,
  // when tracing, its enqueue event into `enqueue` (op != 0 then), which the
  // caller records with record_enqueue() once the push is done (after
  // submit: the event then says how long the push took). Does not link the
  // op into the vars.
  OpRecord* prepare(OpFn&& fn, std::span<Var* const> reads, std::span<Var* const> writes,
                    const OpMeta& meta, OpRecord::Kind kind, trace::EnqueueEvent& enqueue);
  // Records a prepared enqueue (if any) on the calling thread, with the
  // time since its timestamp as the push's duration.
  void record_enqueue(trace::EnqueueEvent& enqueue);
  // delete_var's short cut for an untraced engine: if nothing pushed on var
  // can still run, runs on_delete on the calling thread, frees the var and
  // returns true; no op is pushed. In a loop that replaces its result every
  // iteration and syncs on it, the previous result is finished when it is
  // dropped, and a free pushed through the engine would cost a second push,
  // a queue hand-off and a worker's completion per iteration. A traced engine
  // always pushes the free: the trace shows when every buffer went, which
  // the memory views need, and a free on the frontend has no lane to show.
  bool delete_if_idle(Var* var, OpFn& on_delete);
  // delete_var's op when the short cut does not apply: an internal "free"
  // that writes var (prepared as above, not linked); null when
  // delete_if_idle() freed the var already.
  OpRecord* prepare_free(Var* var, OpFn& on_delete, trace::EnqueueEvent& enqueue);
  // Runs (or drops, or skips) the op, sets the errors of the vars it writes,
  // and records the execution; errors travel on the vars. Returns the op's
  // traced end (0 when untraced), for complete() to pass on to the ops it
  // grants.
  //
  // Trace times: the end is read before the op's outputs are released, so
  // whoever sees them later reads a later time. The start is never before
  // the op's ready_ns (its enqueue and its inputs' ends) nor before the
  // previous op this thread executed ended (`last_end`, 0 when that op was
  // not traced; updated here). `continued`: this thread granted the op itself
  // while completing that previous op, so the op starts where it ended (the
  // hand-off between the two counts as the op's) and the clock is read once
  // per op, not twice: a TSC read is tens of cycles, and a second one per op
  // can cost more throughput than the rest of tracing together
  // (docs/PERFORMANCE.md).
  int64_t execute(OpRecord* op, uint16_t worker, int64_t& last_end, bool continued, HelpBoard* helpers = nullptr);
  // The pieces of execute(), also used by the GPU path, which runs an op's
  // function on one thread and finishes it on another:
  // admit() returns false, with the error and status to give the op, if it
  // must not run (cancelled, or an input carries an error; an input granted
  // by stream order is left to the stream's completer, see VarLink);
  bool admit(OpRecord* op, std::exception_ptr& error, trace::OpStatus& status);
  // call() runs the function; if it throws, returns the error naming the op
  // (also counted, kept for wait_all and recorded in the trace).
  std::exception_ptr call(OpRecord* op, uint16_t worker, void* stream, HelpBoard* helpers = nullptr);
  // fail() counts and keeps an error that arose outside the function (a
  // device error seen when the op's work finished) and returns it named.
  std::exception_ptr fail(OpRecord* op, std::exception_ptr thrown);
  // set_errors() attaches the outcome to the vars the op writes.
  static void set_errors(OpRecord* op, const std::exception_ptr& error) noexcept;
  // Records a frontend wait.
  void record_sync(trace::SyncKind kind, uint64_t target, int64_t begin) const;
  // The first error since the last call (and forgets it), or null.
  std::exception_ptr take_first_error();

  bool tracing() const noexcept { return recorder_ && recorder_->enabled(); }
  // Called by push (never for internal ops: freeing memory must not fail)
  // before anything changes: throws the trace's MemoryBudgetError once its
  // buffers were refused memory, so the frontend stops where it is.
  void check_trace_budget() const {
    if (recorder_ && recorder_->over_budget()) [[unlikely]] recorder_->throw_if_over_budget();
  }
  // Ids are dense and assigned in prepare(), before an op can finish, so the
  // last id is also the number of ops pushed.
  uint64_t last_op_id() const noexcept { return next_op_id_.load(std::memory_order_seq_cst) - 1; }

  VarPool vars_;
  const int64_t max_inflight_;
  std::atomic<uint32_t> epoch_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> cancelled_{0};
  const std::exception_ptr cancelled_error_;

 private:
  void note_error(const std::exception_ptr& error);

  alignas(64) std::atomic<uint64_t> next_op_id_{1};  // written per push: apart from epoch_, read per op
  alignas(64) std::mutex errors_mutex_;
  std::exception_ptr first_error_;
};

}  // namespace asyncscope
