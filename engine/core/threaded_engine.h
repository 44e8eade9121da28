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
// Mechanism and policy: this class holds the mechanism (pools, ready
// queues, workers that idle by spinning, then sleeping; the GPU completer;
// completion and waits). Which worker runs a ready op is decided by the
// scheduling policies, each a unit of its own with its constants and the
// reason it exists (EngineOptions::scheduling):
//   hand_off.h          LocalRun: what a worker's completion made ready runs
//                       next on it; Mailbox: an op the frontend made ready
//                       goes to the idle worker that ran the last op
//   run_ahead.h         a worker holds an op of a frontend running ahead a
//                       moment, so the two stay off each other's lines
//   starvation_yield.h  a frontend that starves the workers of a core gives
//                       its own away
//   waiter_cpu.h        a worker leaves the CPU of the waiter it serves
//   help_board.h        idle workers help with parts of a large op
//   cpu_placement.h     (the system calls waiter_cpu.h uses)
// Scheduling::fifo turns them all off: one FIFO per pool in the order ops
// became ready, the reference the differential tests run too.
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
#include "engine/core/hand_off.h"
#include "engine/core/help_board.h"
#include "engine/core/ready_queue.h"
#include "engine/core/run_ahead.h"
#include "engine/core/wait_slot.h"
#include "engine/core/waiter_cpu.h"

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
  struct alignas(64) Worker {  // counters are written by their worker only
    std::atomic<uint64_t> finished{0};  // GPU workers: written by the completer only
    std::atomic<uint32_t> running{0};   // GPU workers: ops submitted and not yet finished
    LocalRun local;                     // hand_off.h
    int64_t last_end = 0;               // trace end of this worker's last op (0: untraced)
    const WaitSlot* signalled = nullptr;  // the waiter this worker signalled last, until it next idles
    WaiterCpu waiter_cpu;               // waiter_cpu.h
    RunAhead::WorkerState run_ahead;    // run_ahead.h
    Pool* pool = nullptr;
    uint16_t index = 0;
    std::thread thread;
    std::unique_ptr<Stream> stream;  // GPU workers only
    Mailbox mailbox;                 // hand_off.h; used in pools with mailboxes
  };
  struct Pool {
    Device device;
    ReadyQueue queue;
    std::vector<std::unique_ptr<Worker>> workers;
    std::unique_ptr<HelpBoard> help;  // tuned CPU pools of 2 or more workers
    bool mailboxes = false;  // tuned CPU pools of 2 or more workers (hand_off.h)
    bool simulated = false;  // a simulated GPU's host workers (EngineOptions::simulated_gpus)
    // The worker that finished the pool's latest op (pools with mailboxes);
    // written only when it changes.
    alignas(64) std::atomic<uint16_t> last_worker{0};
  };

  static thread_local Worker* tls_worker_;  // the worker the calling thread is, if any

  // An idle worker spins this long before it sleeps, so that bursts of tiny
  // ops do not pay a futex wake-up each; a waiter spins kWaitSpinNs.
  static constexpr int64_t kWorkerSpinNs = 50'000;
  static constexpr int64_t kWaitSpinNs = 20'000;

  uint64_t submit(OpRecord* op);
  void worker_main(Worker& worker);
  // The idle worker's next op: spins (with its mailbox open, in pools with
  // mailboxes), then sleeps on the queue, joining posted help jobs
  // meanwhile. Sets `taken` when the spin ended on something to take. Null
  // when the worker should look again (it helped, or another worker took
  // the op first) or, with the queue stopped and drained, end.
  OpRecord* wait_for_op(Worker& worker, const WaitSlot* signalled, bool& stop);
  // An idle worker joins its pool's posted job (HelpBoard) and records its
  // help span; false if it ran no part.
  bool help(Worker& worker);
  // continued: the op came from worker.local (see EngineBase::execute).
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
  // Whether some op waits in a queue or a mailbox for a worker to take it (a
  // hint: relaxed loads).
  bool ops_not_taken() const noexcept;
  // Whether ops wait while no worker runs one (starvation_yield.h).
  bool workers_starved() const noexcept;
  void signal_sync(OpRecord* op);
  Pool& pool_for(Device device);
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
  void start_simulated_pools(const EngineOptions& options);
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
  const uint64_t serial_;  // this engine's PusherState key (pusher_state.h); read by push
  std::atomic<int64_t> pending_charged_{0};  // bytes charged to memory_ for pending ops
  // Pushes so far, with a memory account: every kRecountEvery-th (the first
  // included) recounts. An RMW, so several frontends pushing at once still
  // recount every kRecountEvery pushes between them.
  std::atomic<uint64_t> pushes_{0};

  // Fixed after construction, read by workers at every dispatch.
  alignas(64) std::vector<std::unique_ptr<Pool>> pools_;
  const bool tuned_;  // EngineOptions::scheduling == tuned
  // A sync point's spin before it sleeps: longer with GPU streams (wait_slot.h).
  int64_t wait_spin_ns_ = kWaitSlotSpinNs;
  alignas(64) std::atomic<int> waiters_{0};      // read by every worker after each op
  std::atomic<uint32_t> wake_seq_{0};
  RunAhead run_ahead_;  // run_ahead.h; its waiter count is on a line of its own
};

}  // namespace asyncscope
