// ThreadedEngine: runs ops on per-device worker pools: N CPU workers, and
// optionally one stream worker per GPU stream. Dependency tracking lives in
// Var; this class owns scheduling: ready queues, workers, waits.
//
// GPU ops (see DeviceStream): a stream worker runs the op's function, which
// submits device work and returns, and hands the op to its stream's completer
// thread without waiting; the completer releases the op's vars once the
// device has finished it. Ops that depend on a GPU op therefore start only
// after its results exist (on the host or on any stream), while independent
// GPU ops are submitted back to back and queue up on the device.
//
// Scheduling policy: an op made ready by a worker's completion runs next on
// that same worker when its pool's queue is empty (a chain of dependent ops
// then runs without any queue traffic or wake-up), and a free it made ready
// always does, before anything else: it is cheap, its lines are the ones the
// worker just touched, and queued it would go to another worker, which would
// then take the chain's next op from the queue too, so the chain would alternate
// between the workers with each op's lines crossing cores. An op the
// frontend makes ready goes to the mailbox of the worker that finished the
// pool's last op, if that worker is spinning idle and its mailbox is empty:
// a chain whose ops find their input already written stays on one core
// (with only a shared queue, consecutive ops alternate between the idle
// workers, and each op's lines cross cores). Everything else goes to the
// pool's FIFO. Ops that free an array go first, so memory is reused as soon
// as it is released.
// Idle workers spin ~50 us before sleeping, so bursts of tiny ops do not pay
// a futex wake-up each. A worker that takes an op from a frontend running
// ahead (many pushes since its last wait) holds it back a moment, until the
// frontend pushed more, unless somebody waits (see hold_back): caught up
// with the frontend, it would take every op as it is pushed, and both
// threads would trade the same lines at each op. A worker that signalled a
// waiter on its own CPU moves to another CPU when other processes leave one
// free (see cpu_placement.h): on one CPU the two would yield it to each
// other at every hand-off.
//
// Threading: as Engine.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/engine_base.h"
#include "engine/core/help_board.h"
#include "engine/core/wait_slot.h"
#include "engine/core/ready_queue.h"

namespace asyncscope {

class ThreadedEngine final : public EngineBase {
 public:
  explicit ThreadedEngine(const EngineOptions& options);
  ~ThreadedEngine() override;  // drops pending ops, finishes running ones, joins workers

  void delete_var(Var* var, OpFn on_delete = {}) override;
  uint64_t push(OpFn fn, std::span<Var* const> reads, std::span<Var* const> writes,
                const OpMeta& meta) override;
  using Engine::push;
  void wait_for_var(Var* var, trace::SyncKind kind = trace::SyncKind::wait_to_read) override;
  void wait_all() override;
  void cancel() override;
  EngineStats stats() const override;
  int num_workers(Device device) const override;
  EngineKind kind() const noexcept override { return EngineKind::threaded; }

 private:
  struct Pool;
  struct Stream;
  struct alignas(64) Worker {  // one cache line each: counters are written by their worker only
    std::atomic<uint64_t> finished{0};  // GPU workers: written by the completer only
    std::atomic<uint32_t> running{0};   // GPU workers: ops submitted and not yet finished
    OpRecord* next_local = nullptr;  // granted by this worker's last op: runs next, here
    OpRecord* local_frees = nullptr;  // frees granted by this worker's ops (linked by next): run first, here
    int64_t last_end = 0;             // trace end of this worker's last op (0: untraced)
    const WaitSlot* signalled = nullptr;  // the waiter this worker signalled last, until it next idles
    int64_t last_move_ns = INT64_MIN / 2;  // when it last left a waiter's CPU (trace clock)
    int64_t move_every_ns = kMoveEveryNs;  // the least time between two such moves (see leave_waiter_cpu)
    std::atomic<uint64_t> moves{0};       // times it left a waiter's CPU
    uint64_t seen_last_op = 0;            // the engine's last op id when this worker last read it (hold_back)
    std::atomic<uint64_t> held_back{0};   // ops it held back (hold_back)
    Pool* pool = nullptr;
    uint16_t index = 0;
    std::thread thread;
    std::unique_ptr<Stream> stream;  // GPU workers only
    // Written by the frontend too, so on a line of their own. mailbox holds
    // at most one op handed to this worker while it spins idle (spinning);
    // the worker clears spinning before it runs or sleeps and then empties
    // the mailbox, and a dispatcher that sees spinning cleared after filling
    // it takes its op back (both sides seq_cst: one of them gets it).
    alignas(64) std::atomic<OpRecord*> mailbox{nullptr};
    std::atomic<bool> spinning{false};
  };
  struct Pool {
    Device device;
    ReadyQueue queue;
    std::vector<std::unique_ptr<Worker>> workers;
    std::unique_ptr<HelpBoard> help;  // CPU pools of 2 or more workers
    bool mailboxes = false;  // CPU pools of 2 or more: idle workers take ops handed to them (Worker::mailbox)
    // The worker that finished the pool's latest op (pools with mailboxes);
    // written only when it changes.
    alignas(64) std::atomic<uint16_t> last_worker{0};
  };

  uint64_t submit(OpRecord* op);
  void worker_main(Worker& worker);
  // An idle worker joins its pool's posted job (HelpBoard) and records its
  // help span; false if it ran no part.
  bool help(Worker& worker);
  // continued: the op is worker.next_local (see EngineBase::execute).
  void run(OpRecord* op, Worker& worker, bool continued);
  // GPU workers: runs the op's function on the stream and queues it for the completer.
  void launch(OpRecord* op, Worker& worker);
  void completer_main(Worker& worker);
  // Counts a finished op (its vars already released) and wakes waiters.
  void retire(Worker& worker) noexcept;
  // Releases an op's var grants and dispatches what became ready; end_ns
  // (the op's traced end, or 0) becomes the earliest start of what it grants.
  void complete(OpRecord* op, int64_t end_ns);
  void dispatch_chain(OpRecord* ready);
  void dispatch(OpRecord* op);
  // Hands op to the mailbox of the pool's last worker if it spins idle;
  // false if the op must go to the queue.
  bool hand_to_last_worker(Pool& pool, OpRecord* op);
  // Whether some op waits in a queue or a mailbox for a worker to take it (a
  // hint: relaxed loads).
  bool ops_not_taken() const noexcept;
  // Called by push on the frontend. Every kStarvedLookEvery-th push of a
  // thread it looks whether ops wait, no worker runs one and none finished
  // since its last look; the second such look in a row means the workers
  // get no core: on a machine with no idle core, a worker woken by this
  // thread can wait behind it on its core until the scheduler moves it
  // (up to a scheduler tick, milliseconds, which can be the frontend's whole
  // run-ahead loop), so this thread gives its core away once.
  void yield_if_workers_starved() noexcept;
  static constexpr uint32_t kStarvedLookEvery = 32;
  // Run-ahead: a thread that pushed more than kRunAheadAfter ops since its
  // last wait marks its pushes to CPU pools run_ahead (note_push, on the
  // frontend). A CPU worker that takes such an op from the queue or its
  // mailbox (not a free) holds it back (hold_back) until kHoldBackOps more
  // ops were pushed, at most kHoldBackNs, and no longer than kHoldBackIdleNs
  // without a push, unless some thread is in a wait that blocks (waiting_).
  // A worker that caught up with a frontend running ahead otherwise takes
  // each op the moment it is pushed, and the two threads trade the queue's,
  // the record's and the vars' lines at every op (a Python loop of one-element
  // adds runs about half as fast in that state as behind it). Held back,
  // the frontend pushes the next ops onto lines only it has touched, and the
  // worker then runs them as a chain behind it. The threshold is high
  // enough that a loop with a sync in every iteration of a few dozen ops
  // never has one held.
  bool note_push() noexcept;
  void hold_back(Worker& worker, const OpRecord* op) const noexcept;
  // A wait of the calling thread: starts its run-ahead count again and, for
  // a wait that blocks, counts in waiting_ until it ends.
  class WaitScope {
   public:
    WaitScope(ThreadedEngine& engine, bool blocking) noexcept;
    WaitScope(const WaitScope&) = delete;
    WaitScope& operator=(const WaitScope&) = delete;
    ~WaitScope();

   private:
    ThreadedEngine* engine_ = nullptr;  // set when the wait blocks
  };
  static constexpr uint32_t kRunAheadAfter = 64;
  static constexpr uint64_t kHoldBackOps = 16;
  static constexpr int64_t kHoldBackNs = 5'000;
  static constexpr int64_t kHoldBackIdleNs = 1'000;
  void signal_sync(OpRecord* op);
  Pool& pool_for(Device device);
  // Called by a worker about to idle after it signalled a waiter: if the
  // waiter waited on this worker's CPU, and other processes leave two CPUs
  // free (cpus_free_for), the worker moves to another one, looking at most
  // once per Worker::move_every_ns (kMoveEveryNs, doubled after each
  // move that found no free CPU). See cpu_placement.h: a futex wake-up can
  // put the two on one CPU, where they yield to each other at every hand-off
  // for as long as they run.
  void leave_waiter_cpu(Worker& worker, const WaitSlot& signalled) noexcept;
  static constexpr int64_t kMoveEveryNs = 1'000'000;
  static constexpr int64_t kMoveEveryMaxNs = 1'000'000'000;
  // A move that took longer found its new CPU busy (a free CPU takes the
  // thread within microseconds; a busy one after the running thread's slice).
  static constexpr int64_t kSlowMoveNs = 200'000;

  uint64_t finished() const noexcept;
  uint64_t pending() const noexcept;
  // Blocks until pending() < bound (bound <= wake_below()), woken by the
  // workers finishing ops. False if the thread's sleep hook gave the wait up.
  [[nodiscard]] bool wait_pending_below(uint64_t bound) noexcept;
  // A worker wakes the waiters only once pending() falls below this: every
  // wait is for pending() below a bound (1 for wait_all, max_inflight for the
  // in-flight bound), so a wait_all behind a thousand ops is woken once, not
  // a thousand times (each a futex wake on the worker and a wake-up and a
  // sleep on the waiter's core).
  uint64_t wake_below() const noexcept { return max_inflight_ > 0 ? static_cast<uint64_t>(max_inflight_) : 1; }
  // Throws WaitInterrupted if the thread's sleep hook gave the wait up.
  void wait_idle();
  void wake_waiters() noexcept;

  void start_gpu_pool(const EngineOptions& options);
  // Sets the pending-op charge on memory_ to (pending() + kRecountEvery) *
  // kPendingOpBytes: the ops waiting now and the pushes until the next
  // recount, charged ahead. Throws MemoryBudgetError, charging nothing more,
  // when it does not fit.
  void recount_pending_memory();

  // Pushes between recounts of the pending-op charge: pending() reads every
  // worker's counter, too much for each push. Charging each recount's next
  // pushes ahead (~33 KiB) keeps the charge from ever lagging the ops.
  static constexpr uint32_t kRecountEvery = 64;
  // The frontend's line: pushes_ is written on every push, and nothing here
  // is read by a worker. Were pools_ (read by workers on every dispatch) on
  // this line, each push's increment would wait for the line to come back
  // from the worker's core, most of push's own time in a tiny-op loop from
  // Python (perf annotate; docs/PERFORMANCE.md).
  alignas(64) const std::shared_ptr<trace::MemoryAccount> memory_;
  std::atomic<int64_t> pending_charged_{0};  // bytes charged to memory_ for pending ops
  // Pushes so far, with a memory account: every kRecountEvery-th (the first
  // included) recounts. An RMW, so several frontends pushing at once still
  // recount every kRecountEvery pushes between them.
  std::atomic<uint64_t> pushes_{0};

  alignas(64) std::vector<std::unique_ptr<Pool>> pools_;  // fixed after construction
  alignas(64) std::atomic<int> waiters_{0};      // read by every worker after each op
  std::atomic<uint32_t> wake_seq_{0};
  // Waits under way that block (WaitScope), of any thread: while there is
  // one, no op is held back. Written twice per such wait, read by a worker
  // only while it holds or is about to hold an op.
  alignas(64) std::atomic<int> waiting_{0};
};

}  // namespace asyncscope
