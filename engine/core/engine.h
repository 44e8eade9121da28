// Engine: the asynchronous dependency engine. The frontend pushes ops that
// name the vars they read and write, and push returns at once; workers run
// each op when its inputs are ready. Ops reading the same var may run
// together; a write waits for every earlier read and write of that var, and
// later ops wait for it; "earlier" is push order. Sync points
// (wait_for_var, wait_all) block the caller until the work they depend on is
// done and rethrow its errors, naming the op that failed.
//
// Two implementations share this contract: ThreadedEngine (worker pools) and
// NaiveEngine (runs each op on the pushing thread: the reference and the
// debugging mode), chosen by EngineOptions::kind.
//
// Threading: every member may be called from any thread, except that an op's
// function must not call wait_for_var/wait_all on its own engine (it would
// wait for itself), and a Var must not be used after delete_var.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>

#include "engine/core/device_stream.h"
#include "engine/core/op.h"
#include "engine/core/var.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope {

enum class EngineKind { threaded, naive };
const char* to_string(EngineKind kind) noexcept;

// How ThreadedEngine picks the worker for a ready op.
//   tuned: the policies that keep chains of small ops on one core and the
//          frontend and the workers off each other's cache lines (local
//          runs and mailboxes, hand_off.h; the run-ahead hold-back,
//          run_ahead.h; the starvation yield, starvation_yield.h; leaving a
//          waiter's CPU, waiter_cpu.h; helping with parts of a large op,
//          help_board.h). The default.
//   fifo:  one shared queue per device pool, taken in the order ops became
//          ready, and nothing else: the plain reference the differential
//          tests run beside the tuned policies (same results, the dependency
//          rules alone decide them).
enum class Scheduling { tuned, fifo };
const char* to_string(Scheduling scheduling) noexcept;

struct EngineOptions {
  EngineKind kind = EngineKind::threaded;
  Scheduling scheduling = Scheduling::tuned;  // ThreadedEngine only
  // CPU worker threads; 0 = one per hardware thread.
  int cpu_workers = 0;
  // Stream workers for gpu_device, one per stream (0 = none: ops on that
  // device are refused at push). ThreadedEngine only.
  int gpu_streams = 0;
  Device gpu_device = Device::cuda(0);
  // Makes the streams; required when gpu_streams > 0. The engine knows no
  // backend: a Context on a GPU installs the CUDA backend's (cuda::make_stream).
  StreamFactory stream_factory;
  // Simulated GPUs (engine/core/device.h): a pool of simulated_workers
  // host threads for each of cuda:0 .. cuda:simulated_gpus-1, running the
  // ops pushed to that device. Not with gpu_streams. ThreadedEngine only.
  int simulated_gpus = 0;
  int simulated_workers = 1;
  // push blocks while this many ops are pushed but unfinished; 0 = no bound.
  int64_t max_inflight = 0;
  // Where ops, syncs and enqueues are recorded; null = no tracing.
  std::shared_ptr<trace::Recorder> recorder;
  // The memory budget ops waiting to run count against (a run's, over its
  // host allocator): ThreadedEngine charges kPendingOpBytes (op_record.h) per pending op, so a
  // frontend that pushes far ahead of its workers is refused at push with
  // MemoryBudgetError instead of growing without bound. Null: not counted.
  std::shared_ptr<trace::MemoryAccount> memory;
};


// Live counts, readable from any thread at any time. pending = pushed - finished.
// An op counts as finished just after it released its vars, so right after
// wait_for_var returns the counts may lag for a moment; after wait_all they
// are exact (pending == 0).
struct EngineStats {
  uint64_t pushed = 0;
  uint64_t finished = 0;  // includes failed, skipped and cancelled ops
  uint64_t pending = 0;
  uint64_t running = 0;  // taken by a worker: running, or held back a moment (threaded engine)
  uint64_t failed = 0;     // threw
  uint64_t cancelled = 0;  // dropped by cancel()
  // Times a worker woke the threads blocked in wait_all() or on the in-flight
  // bound: once when what they wait for may hold, not once per finished op.
  uint64_t waiter_wakes = 0;
  // Times a worker found that the waiter it had just signalled waited on its
  // own CPU, and moved to another CPU (threaded engine, Linux; see
  // cpu_placement.h).
  uint64_t cpu_moves = 0;
  // Ops a worker held back a moment for a frontend running ahead, until it
  // pushed more (threaded engine; see ThreadedEngine::hold_back).
  uint64_t held_back = 0;
};

class Engine {
 public:
  virtual ~Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // A new var with no pending ops.
  virtual Var* new_var() = 0;
  // Frees the var after every op pushed on it so far; on_delete (if any) runs
  // then (e.g. to return the buffer to the pool): later on a worker, as an
  // internal op named "free", or, in an untraced engine where every such op
  // has finished, at once on the calling thread with no op pushed.
  // Returns without waiting.
  virtual void delete_var(Var* var, OpFn on_delete = {}) = 0;

  // Pushes an op and returns its id at once. Duplicate vars are ignored, and a
  // var both read and written counts as written. The function runs on a worker
  // of meta.device; if it throws, the error is attached to the vars it writes.
  virtual uint64_t push(OpFn fn, std::span<Var* const> reads, std::span<Var* const> writes,
                        const OpMeta& meta) = 0;
  uint64_t push(OpFn fn, std::initializer_list<Var*> reads, std::initializer_list<Var*> writes,
                const OpMeta& meta) {
    return push(std::move(fn), std::span<Var* const>(reads.begin(), reads.size()),
                std::span<Var* const>(writes.begin(), writes.size()), meta);
  }

  // Blocks until every op pushed so far that writes var has finished, then
  // rethrows the error the var carries (OpError or CancelledError), if any.
  // `kind` only labels the wait in the trace. Every blocking call here (this,
  // wait_all, a push held by the in-flight bound) throws WaitInterrupted if
  // the calling thread's sleep hook gives the wait up (wait_slot.h).
  virtual void wait_for_var(Var* var, trace::SyncKind kind = trace::SyncKind::wait_to_read) = 0;
  // Blocks until every op pushed so far has finished; rethrows the first error
  // raised since the previous wait_all (then forgets it).
  virtual void wait_all() = 0;

  // Drops every op that has not started (their vars then carry CancelledError),
  // lets running ops finish, and returns at once; the engine stays usable for
  // ops pushed afterwards. If anything was dropped, the next wait_all throws
  // CancelledError. Internal ops (freeing arrays) are never dropped.
  virtual void cancel() = 0;

  virtual EngineStats stats() const = 0;
  // Workers serving a device (0 if the device is not available).
  virtual int num_workers(Device device) const = 0;
  virtual EngineKind kind() const noexcept = 0;
  virtual int64_t max_inflight() const noexcept = 0;

  const std::shared_ptr<trace::Recorder>& recorder() const noexcept { return recorder_; }

 protected:
  explicit Engine(std::shared_ptr<trace::Recorder> recorder) : recorder_(std::move(recorder)) {}
  std::shared_ptr<trace::Recorder> recorder_;
};

// Builds the engine the options ask for. Throws std::invalid_argument on bad options.
std::shared_ptr<Engine> make_engine(const EngineOptions& options = {});

// Hardware threads of this machine (at least 1).
int hardware_threads() noexcept;

}  // namespace asyncscope
