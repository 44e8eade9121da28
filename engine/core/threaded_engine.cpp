#include "engine/core/threaded_engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/core/errors.h"
#include "engine/core/prefetch.h"
#include "engine/core/starvation_yield.h"
#include "engine/core/wait_slot.h"
#include "engine/trace_record/clock.h"

namespace asyncscope {

// The worker the calling thread is, if any (LocalRun: same-worker continuation).
thread_local ThreadedEngine::Worker* ThreadedEngine::tls_worker_ = nullptr;

namespace {

// Moves the ready ops of `more` (chained through OpRecord::next) onto `ready`.
void prepend_ready(OpRecord*& ready, OpRecord* more) noexcept {
  while (more != nullptr) {
    OpRecord* next = more->next;
    more->next = ready;
    ready = more;
    more = next;
  }
}

// An op an idle worker just took was written by its pusher on another core:
// asks for all its record's lines at once, rather than one after another as
// execute() reads them, then for its vars' (the reads' errors are read first,
// the writes' queues written last). Not for ops taken from a backlog: there
// the frontend may still be appending to the same vars, and taking their
// lines away from it makes a run-ahead loop of tiny ops slower.
void prefetch_taken(OpRecord* op) noexcept {
  prefetch_lines(op, sizeof(OpRecord));
  for (int i = 0; i < op->num_reads; ++i) __builtin_prefetch(op->read(i));
  for (int i = 0; i < op->num_writes; ++i) prefetch_for_write(op->write(i));
  if (op->meta.first_touch != nullptr) __builtin_prefetch(op->meta.first_touch);
}

}  // namespace

// A GPU worker's stream and the ops submitted to it, in submission order,
// waiting for its completer.
struct ThreadedEngine::Stream {
  struct Submitted {
    OpRecord* op = nullptr;
    DeviceStream::Token token = 0;
    bool on_device = false;  // false: not admitted, nothing was submitted
    trace::OpStatus status = trace::OpStatus::ok;
    std::exception_ptr error;
    int64_t launch_begin = 0;
    int64_t launch_end = 0;
  };

  std::unique_ptr<DeviceStream> device;
  std::thread completer;
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<Submitted> submitted;  // guarded by mutex
  bool stopping = false;            // guarded by mutex
  // submitted.size() and stopping, readable without the mutex: the completer
  // spins on it for a while before it sleeps on `ready` (a futex wake-up
  // costs several microseconds, more than a tiny op's time on the device).
  std::atomic<uint32_t> queued{0};
  int64_t last_end = 0;             // completer only: keeps the GPU lane ordered
};

ThreadedEngine::ThreadedEngine(const EngineOptions& options)
    : EngineBase(options),
      memory_(options.memory),
      serial_(new_engine_serial()),
      tuned_(options.scheduling == Scheduling::tuned) {
  const int n = options.cpu_workers == 0 ? hardware_threads() : options.cpu_workers;
  if (n < 1 || n > 1024) throw std::invalid_argument("cpu_workers must be between 1 and 1024 (0 = one per core)");
  auto cpu = std::make_unique<Pool>();
  cpu->device = Device::cpu();
  for (int i = 0; i < n; ++i) {
    auto w = std::make_unique<Worker>();
    w->pool = cpu.get();
    w->index = static_cast<uint16_t>(i);
    cpu->workers.push_back(std::move(w));
  }
  if (tuned_ && n > 1) {
    cpu->help = std::make_unique<HelpBoard>(
        n - 1, [](void* queue) { static_cast<ReadyQueue*>(queue)->nudge(); }, &cpu->queue);
  }
  cpu->mailboxes = tuned_ && n > 1;  // hand_off.h
  pools_.push_back(std::move(cpu));
  if (options.simulated_gpus != 0 && options.gpu_streams != 0) {
    throw std::invalid_argument("simulated_gpus cannot be used with gpu_streams");
  }
  if (options.gpu_streams != 0) {
    start_gpu_pool(options);  // may throw: no thread started yet
    wait_spin_ns_ = kGpuWaitSpinNs;
  }
  if (options.simulated_gpus != 0) start_simulated_pools(options);
  for (auto& pool : pools_) {
    for (auto& w : pool->workers) {
      w->thread = std::thread([this, w = w.get()] { worker_main(*w); });
      if (w->stream) w->stream->completer = std::thread([this, w = w.get()] { completer_main(*w); });
    }
  }
}

void ThreadedEngine::start_gpu_pool(const EngineOptions& options) {
  if (options.gpu_streams < 0 || options.gpu_streams > 64) {
    throw std::invalid_argument("gpu_streams must be between 0 and 64");
  }
  if (options.gpu_device.kind == DeviceKind::cpu) throw std::invalid_argument("gpu_device must be a GPU device");
  if (!options.stream_factory) {
    throw std::invalid_argument("gpu_streams needs EngineOptions::stream_factory (a Context on a GPU installs the "
                                "CUDA backend's)");
  }
  const StreamFactory& make = options.stream_factory;
  auto pool = std::make_unique<Pool>();
  pool->device = options.gpu_device;
  for (int i = 0; i < options.gpu_streams; ++i) {
    auto w = std::make_unique<Worker>();
    w->pool = pool.get();
    w->index = static_cast<uint16_t>(i);
    w->stream = std::make_unique<Stream>();
    w->stream->device = make(options.gpu_device, i);
    pool->workers.push_back(std::move(w));
  }
  pools_.push_back(std::move(pool));
}

void ThreadedEngine::start_simulated_pools(const EngineOptions& options) {
  if (options.simulated_gpus < 0 || options.simulated_gpus > kMaxSimulatedGpus) {
    throw std::invalid_argument("simulated_gpus must be between 0 and " + std::to_string(kMaxSimulatedGpus));
  }
  if (options.simulated_workers < 1 || options.simulated_workers > 64) {
    throw std::invalid_argument("simulated_workers must be between 1 and 64");
  }
  for (int d = 0; d < options.simulated_gpus; ++d) {
    auto pool = std::make_unique<Pool>();
    pool->device = Device::cuda(static_cast<uint8_t>(d));
    pool->simulated = true;
    for (int i = 0; i < options.simulated_workers; ++i) {
      auto w = std::make_unique<Worker>();
      w->pool = pool.get();
      w->index = static_cast<uint16_t>(i);
      pool->workers.push_back(std::move(w));
    }
    pools_.push_back(std::move(pool));
  }
}

ThreadedEngine::~ThreadedEngine() {
  cancel();
  // Also waits for the ops on the devices; a wait given up (its thread's
  // sleep hook saw Ctrl+C) is taken up again: their vars are about to go.
  while (!wait_pending_below(1)) {
  }
  if (memory_) memory_->uncharge(pending_charged_.exchange(0, std::memory_order_relaxed));
  for (auto& pool : pools_) pool->queue.stop();
  for (auto& pool : pools_) {
    for (auto& w : pool->workers) {
      w->thread.join();
      if (!w->stream) continue;
      {
        std::lock_guard lock(w->stream->mutex);
        w->stream->stopping = true;
      }
      w->stream->ready.notify_one();
      w->stream->completer.join();
    }
  }
}

ThreadedEngine::Pool& ThreadedEngine::pool_for(Device device) {
  for (auto& pool : pools_) {
    if (pool->device == device) return *pool;
  }
  if (device.kind != DeviceKind::cpu) {
    throw std::invalid_argument("no stream workers for device " + to_string(device) +
                                " in this engine (EngineOptions::gpu_streams is 0 or names another device)");
  }
  throw std::invalid_argument("no workers for device " + to_string(device) + " in this engine");
}

int ThreadedEngine::num_workers(Device device) const {
  for (const auto& pool : pools_) {
    if (pool->device == device) return static_cast<int>(pool->workers.size());
  }
  return 0;
}

uint64_t ThreadedEngine::push(OpFn fn, std::span<Var* const> reads, std::span<Var* const> writes,
                              const OpMeta& meta) {
  const Pool& pool = pool_for(meta.device);  // a bad device fails here, on the caller, not on a worker
  PusherState& pusher = pusher_state(serial_);
  check_trace_budget();
  if (max_inflight_ > 0 && !meta.internal && pending() >= static_cast<uint64_t>(max_inflight_)) {
    const int64_t begin = trace::now_ns();
    const bool ended = wait_pending_below(static_cast<uint64_t>(max_inflight_));
    record_sync(trace::SyncKind::inflight_bound, 0, begin);
    if (!ended) throw WaitInterrupted();  // nothing pushed
  }
  if (memory_ && pushes_.fetch_add(1, std::memory_order_relaxed) % kRecountEvery == 0) recount_pending_memory();
  trace::EnqueueEvent enqueue;
  OpRecord* op = prepare(std::move(fn), reads, writes, meta, OpRecord::Kind::normal, enqueue);
  // One stream for the device: its order is the order of launch, so an op
  // may follow what was launched before it without waiting for the device.
  op->stream_ordered = pool.workers.size() == 1 && pool.workers.front()->stream != nullptr;
  op->run_ahead = tuned_ && RunAhead::note_push(pusher) && pool.device.kind == DeviceKind::cpu;  // only CPU workers hold ops
  const uint64_t id = submit(op);  // the op may run, finish and be recycled from here on
  record_enqueue(enqueue);
  if (tuned_) {
    StarvationYield::after_push(pusher, [this] { return workers_starved(); }, [this] { return finished(); });
  }
  return id;
}

void ThreadedEngine::delete_var(Var* var, OpFn on_delete) {
  trace::EnqueueEvent enqueue;
  OpRecord* op = prepare_free(var, on_delete, enqueue);
  if (op == nullptr) return;
  if (tuned_) (void)RunAhead::note_push(pusher_state(serial_));  // a push like any other; a free is never held
  submit(op);
  record_enqueue(enqueue);
}

uint64_t ThreadedEngine::submit(OpRecord* op) {
  const uint64_t id = op->id;
  VarLink* links = op->links();
  for (int i = 0; i < op->num_reads + op->num_writes; ++i) {
    if (links[i].write) {
      links[i].var->append_write(&links[i]);
    } else {
      links[i].var->append_read(&links[i]);
    }
  }
  // Drop the hold that kept the op from running while it was being linked.
  if (op->grant()) dispatch(op);
  return id;
}

void ThreadedEngine::dispatch(OpRecord* op) {
  if (op->kind == OpRecord::Kind::sync) {
    signal_sync(op);
    return;
  }
  Pool& pool = pool_for(op->meta.device);
  const bool frees = op->kind == OpRecord::Kind::delete_var;
  if (tuned_) {
    Worker* self = tls_worker_;
    if (self != nullptr && self->pool == &pool) {
      // Made ready by this worker's own op (hand_off.h: LocalRun).
      if (self->local.keep(op, frees, [&pool] { return pool.queue.maybe_nonempty(); })) return;
    } else if (pool.mailboxes) {
      // The worker that finished the pool's last op (most likely this op's
      // input) may spin idle (hand_off.h: Mailbox).
      Worker& last = *pool.workers[pool.last_worker.load(std::memory_order_relaxed)];
      if (last.mailbox.offer(op, pool.queue)) return;
    }
  }
  // A free that reaches the queue (made ready on the frontend or by another
  // pool) jumps it under the tuned policies: when the frontend runs ahead,
  // hundreds of ready ops may wait, and each would otherwise get fresh
  // (page-faulting) memory while the finished buffers wait behind them.
  pool.queue.push(op, tuned_ && frees);
}

bool ThreadedEngine::ops_not_taken() const noexcept {
  for (const auto& pool : pools_) {
    if (pool->queue.maybe_nonempty()) return true;
    if (!pool->mailboxes) continue;
    for (const auto& w : pool->workers) {
      if (w->mailbox.holds()) return true;
    }
  }
  return false;
}

bool ThreadedEngine::workers_starved() const noexcept {
  for (const auto& pool : pools_) {
    for (const auto& w : pool->workers) {
      if (w->running.load(std::memory_order_relaxed) != 0) return false;
    }
  }
  return ops_not_taken();
}

void ThreadedEngine::dispatch_chain(OpRecord* ready) {
  while (ready != nullptr) {
    OpRecord* next = ready->next;
    dispatch(ready);
    ready = next;
  }
}

void ThreadedEngine::signal_sync(OpRecord* op) {
  Var* var = op->read(0);
  // Copy the error while the read grant still orders us after the last write.
  WaitSlot* slot = op->slot;
  slot->signal(var->error);
  // The waiter goes on from here; the marker's read is counted off and its
  // record given back after, off its path: the record's lines are the ones
  // the waiter wrote when it armed the wait, and taking them over before the
  // signal would make it wait for their transfers. Until the read is counted
  // off, ops pushed on the var meanwhile queue behind it (a write, the var's
  // free), and an engine being destroyed joins this thread before its vars go.
  OpRecord* ready = var->complete_read();
  release_op_record(op);
  if (Worker* self = tls_worker_) self->signalled = slot;
  dispatch_chain(ready);
}

void ThreadedEngine::complete(OpRecord* op, int64_t end_ns) {
  OpRecord* ready = nullptr;
  for (int i = 0; i < op->num_reads; ++i) prepend_ready(ready, op->read(i)->complete_read(end_ns, op->on_stream));
  for (int i = 0; i < op->num_writes; ++i) prepend_ready(ready, op->write(i)->complete_write(end_ns, op->on_stream));
  if (op->kind == OpRecord::Kind::delete_var) vars_.release(op->write(0));
  dispatch_chain(ready);
}

void ThreadedEngine::run(OpRecord* op, Worker& worker, bool continued) {
  if (worker.stream) {
    launch(op, worker);
    return;
  }
  worker.running.store(1, std::memory_order_relaxed);
  const int64_t end = execute(op, worker.index, worker.last_end, continued, worker.pool->help.get());
  worker.running.store(0, std::memory_order_relaxed);
  complete(op, end);
  release_op_record(op);
  Pool& pool = *worker.pool;
  if (pool.mailboxes && pool.last_worker.load(std::memory_order_relaxed) != worker.index) {
    pool.last_worker.store(worker.index, std::memory_order_relaxed);
  }
  retire(worker);
}

void ThreadedEngine::retire(Worker& worker) noexcept {
  // seq_cst pairs with wait_pending_below(): either the waiter sees this count, or we
  // see its registration in waiters_ and wake it.
  // pending() read after our count sees every finish counted before ours: of
  // two workers finishing the last two ops, the later one sees zero.
  worker.finished.fetch_add(1, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) > 0 && pending() < wake_below()) wake_waiters();
}

void ThreadedEngine::launch(OpRecord* op, Worker& worker) {
  Stream& stream = *worker.stream;
  worker.running.fetch_add(1, std::memory_order_relaxed);
  Stream::Submitted s;
  s.op = op;
  s.launch_begin = trace::now_ns();
  if (admit(op, s.error, s.status)) {
    // Every begun op goes to the completer, also one whose function threw
    // after submitting part of its work: its vars are released only once the
    // device is done with them.
    s.on_device = true;
    try {
      s.token = stream.device->begin_op();
    } catch (...) {
      s.on_device = false;
      s.error = fail(op, std::current_exception());
    }
    if (s.on_device) {
      s.error = call(op, worker.index, stream.device->native());
      try {
        stream.device->end_op(s.token);
      } catch (...) {
        if (!s.error) s.error = fail(op, std::current_exception());
      }
    }
    if (s.error) s.status = trace::OpStatus::failed;
  }
  s.launch_end = trace::now_ns();
  if (tracing()) {
    recorder_->record_exec(trace::ExecEvent{op->id, s.launch_begin, s.launch_end, worker.index, op->meta.device.kind,
                                            op->meta.device.index, s.status, trace::SpanKind::launch});
  }
  // Its work is on the stream: the ops next in line on its vars that run on
  // this stream too may launch now, behind it, instead of after the device
  // finished it. Told before the completer can see the op, so every var
  // hears of the launch before the completion.
  OpRecord* successors = nullptr;
  if (op->stream_ordered && s.on_device && !s.error) {
    op->on_stream = true;
    VarLink* links = op->links();
    for (int i = 0; i < op->num_reads + op->num_writes; ++i) prepend_ready(successors, links[i].var->launched());
  }
  {
    std::lock_guard lock(stream.mutex);
    stream.submitted.push_back(std::move(s));
    stream.queued.fetch_add(1, std::memory_order_release);
  }
  stream.ready.notify_one();
  dispatch_chain(successors);
}

void ThreadedEngine::completer_main(Worker& worker) {
  Stream& stream = *worker.stream;
  const Device device = worker.pool->device;
  trace::set_thread_name(to_string(device) + " stream " + std::to_string(worker.index));
  for (;;) {
    Stream::Submitted s;
    // The next op is usually launched within microseconds of the last one's
    // completion: look for it a while before sleeping.
    (void)spin_until([&stream] { return stream.queued.load(std::memory_order_acquire) != 0; }, kCompleterSpinNs);
    {
      std::unique_lock lock(stream.mutex);
      stream.ready.wait(lock, [&stream] { return stream.stopping || !stream.submitted.empty(); });
      if (stream.submitted.empty()) return;  // stopping, and nothing left
      s = std::move(stream.submitted.front());
      stream.submitted.pop_front();
      stream.queued.fetch_sub(1, std::memory_order_relaxed);
    }
    OpRecord* op = s.op;
    DeviceStream::Span span{s.launch_end, s.launch_end};
    if (s.on_device) {
      try {
        span = stream.device->wait(s.token);
      } catch (...) {
        // The device failed this op's work (or an earlier one's, for a sticky error).
        if (!s.error) {
          s.error = fail(op, std::current_exception());
          s.status = trace::OpStatus::failed;
        }
      }
    }
    // A read granted by stream order was admitted before the op it follows
    // had finished, without its error (admit() skips it: this thread writes
    // it). That op completed on this thread before this one, so its error is
    // settled now; if it failed, this op's result is that error too, as it
    // would have been, had the op waited for it.
    const VarLink* links = op->links();
    for (int i = 0; s.on_device && !s.error && i < op->num_reads; ++i) {
      if (links[i].by_stream && links[i].var->error) {
        s.error = links[i].var->error;
        s.status = trace::OpStatus::skipped;
      }
    }
    set_errors(op, s.error);
    int64_t traced_end = 0;
    if (tracing()) {
      // Device times are mapped onto the host clock; keep the picture causal:
      // not before the launch began or the previous op on this stream ended,
      // not after we saw it finish.
      const int64_t seen = trace::now_ns();
      int64_t start = std::max({span.start_ns, s.launch_begin, stream.last_end});
      int64_t end = std::max(span.end_ns, start);
      end = std::min(end, seen);
      start = std::min(start, end);
      stream.last_end = traced_end = end;
      recorder_->record_exec(trace::ExecEvent{op->id, start, end, worker.index, op->meta.device.kind,
                                              op->meta.device.index, s.status, trace::SpanKind::execute});
    }
    complete(op, traced_end);
    release_op_record(op);
    worker.running.fetch_sub(1, std::memory_order_relaxed);
    retire(worker);
  }
}

void ThreadedEngine::worker_main(Worker& worker) {
  const Device device = worker.pool->device;
  trace::set_thread_name(device.kind == DeviceKind::cpu ? "CPU worker " + std::to_string(worker.index)
                         : worker.pool->simulated
                             ? to_string(device) + " sim worker " + std::to_string(worker.index)
                             : to_string(device) + " launch " + std::to_string(worker.index));
  tls_worker_ = &worker;
  for (;;) {
    // What this worker's own last op made ready runs first, here (LocalRun);
    // then the pool's queue.
    OpRecord* op = worker.local.take();
    const bool continued = op != nullptr;
    if (op == nullptr) op = worker.pool->queue.try_pop();
    const WaitSlot* const signalled = std::exchange(worker.signalled, nullptr);
    const bool idled = op == nullptr;
    if (idled) {
      // Nothing at hand: spin, help, sleep (and leave a waiter's CPU).
      bool stop = false;
      op = wait_for_op(worker, signalled, stop);
      if (stop) break;
      if (op == nullptr) continue;
    }
    // An op of a frontend running ahead, taken from the queue or the mailbox,
    // waits a moment (run_ahead.h). One the worker's last op handed it runs
    // at once, or a chain run behind the frontend would stop at every op.
    if (!continued && op->run_ahead) {
      run_ahead_.hold_back(worker.run_ahead, *op, [this] { return last_op_id(); }, worker.running);
    }
    // After the hold: during it the frontend may still be writing these lines.
    if (idled) prefetch_taken(op);
    run(op, worker, continued);
  }
  tls_worker_ = nullptr;
}

OpRecord* ThreadedEngine::wait_for_op(Worker& worker, const WaitSlot* signalled, bool& stop) {
  ReadyQueue& queue = worker.pool->queue;
  const HelpBoard* board = worker.pool->help.get();
  const auto help_posted = [board] { return board != nullptr && board->posted(); };
  // About to idle after signalling a waiter on this worker's own CPU
  // (waiter_cpu.h).
  if (tuned_ && signalled != nullptr && worker.pool->device.kind == DeviceKind::cpu) {
    worker.waiter_cpu.after_signal(*signalled);
  }
  // A waiter this worker signalled that has not seen it yet is not running:
  // on a machine with fewer free cores than threads it waits for this core,
  // so the spin gives the core away at once rather than after its stretch.
  const auto yield_now = [signalled] { return signalled != nullptr && signalled->unseen(); };
  OpRecord* op = nullptr;
  bool seen = false;  // the spin ended on something to take, not on its time limit
  if (worker.pool->mailboxes) {
    // With the mailbox open, a dispatcher may hand this worker an op directly.
    worker.mailbox.open();
    seen = spin_until([&] { return worker.mailbox.holds() || queue.maybe_nonempty() || help_posted(); },
                      kWorkerSpinNs, yield_now);
    op = worker.mailbox.close();
    if (op == nullptr) op = queue.try_pop();
  } else {
    seen = spin_until([&queue] { return queue.maybe_nonempty(); }, kWorkerSpinNs, yield_now);
    if (seen) op = queue.try_pop();
  }
  if (op != nullptr) return op;
  if (help(worker)) return nullptr;
  // Another worker took the op first (or the count was a moment behind a
  // pop): back to spinning, not to sleep, which would cost the next push a
  // futex wake-up.
  if (seen && !queue.stopped()) return nullptr;
  op = queue.pop_or_sleep(help_posted);
  if (op != nullptr) return op;
  if (help(worker) || !queue.stopped()) return nullptr;  // woken to help
  op = queue.try_pop();
  stop = op == nullptr;  // stopped and drained
  return op;
}

bool ThreadedEngine::help(Worker& worker) {
  HelpBoard* board = worker.pool->help.get();
  if (board == nullptr || !board->posted()) return false;
  const bool traced = tracing();
  // Ordered clock reads: the span must not start before the job was posted.
  const int64_t begin = traced ? trace::now_ns() : 0;
  ReadyQueue& queue = worker.pool->queue;
  const uint64_t op = board->help([&queue] { return queue.maybe_nonempty(); });  // back to ops as soon as any wait
  if (op == 0) return false;
  if (traced) {
    const int64_t start = std::max(begin, worker.last_end);
    const int64_t end = std::max(trace::now_ns(), start);
    recorder_->record_exec(trace::ExecEvent{op, start, end, worker.index, DeviceKind::cpu, 0, trace::OpStatus::ok,
                                            trace::SpanKind::help});
    worker.last_end = end;
  }
  return true;
}

uint64_t ThreadedEngine::finished() const noexcept {
  uint64_t total = 0;
  for (const auto& pool : pools_) {
    for (const auto& w : pool->workers) total += w->finished.load(std::memory_order_seq_cst);
  }
  return total;
}

uint64_t ThreadedEngine::pending() const noexcept {
  // pushed first: a finish counted after this load can only make pending smaller.
  const uint64_t pushed = last_op_id();
  const uint64_t done = finished();
  return pushed > done ? pushed - done : 0;
}

void ThreadedEngine::wake_waiters() noexcept {
  wake_seq_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(wake_seq_, INT32_MAX);
}

bool ThreadedEngine::wait_pending_below(uint64_t bound) noexcept {
  const auto done = [this, bound] { return pending() < bound; };
  const RunAhead::WaitScope scope(run_ahead_, serial_, !done());
  if (spin_until(done, kWaitSpinNs)) return true;
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  // Asleep while the count is not below the bound; wake_waiters() changes
  // the sequence word after every finish that a waiter may be waiting for.
  const bool ended = sleep_on(
      wake_seq_, [&done](uint32_t) { return !done(); }, [] { return true; });
  waiters_.fetch_sub(1, std::memory_order_seq_cst);
  return ended;
}

void ThreadedEngine::wait_idle() {
  if (!wait_pending_below(1)) throw WaitInterrupted();
}

void ThreadedEngine::wait_for_var(Var* var, trace::SyncKind kind) {
  if (var == nullptr) throw std::invalid_argument("wait_for_var: null var");
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  std::exception_ptr error;
  const bool ready = var->ready_to_read();
  const RunAhead::WaitScope scope(run_ahead_, serial_, !ready);
  if (ready) {
    error = var->error;
  } else {
    WaitSlot& slot = this_thread_wait_slot();
    slot.arm();
    Var* const reads[] = {var};
    trace::EnqueueEvent unused;  // a sync op is no enqueue: never recorded
    OpRecord* op = prepare({}, reads, {}, OpMeta{}, OpRecord::Kind::sync, unused);
    op->slot = &slot;
    op->links()[0].var->append_read(&op->links()[0]);
    if (op->grant()) signal_sync(op);
    // Ops still queued (or in a mailbox) at two looks in a row, about 0.4 us apart: no worker
    // is running to take them (they wait for a core, maybe this one), so
    // the wait yields at once instead of spinning on.
    const bool ended = slot.wait(wait_spin_ns_, [this, queued_before = false]() mutable {
      const bool queued = ops_not_taken();
      const bool stalled = queued && queued_before;
      queued_before = queued;
      return stalled;
    });
    if (!ended) {
      // The marker stays queued on the var and signals the abandoned slot.
      record_sync(kind, var->id(), begin);
      throw WaitInterrupted();
    }
    error = std::move(slot.error);
  }
  record_sync(kind, var->id(), begin);
  if (error) std::rethrow_exception(error);
}

void ThreadedEngine::recount_pending_memory() {
  // This push and the ones until the next recount are charged ahead.
  const int64_t target = static_cast<int64_t>(pending() + kRecountEvery) * kPendingOpBytes;
  const int64_t before = pending_charged_.exchange(target, std::memory_order_relaxed);
  if (target < before) {
    memory_->uncharge(before - target);
    return;
  }
  try {
    memory_->charge(target - before, "ops waiting to run (their records and array handles)");
  } catch (...) {
    pending_charged_.fetch_sub(target - before, std::memory_order_relaxed);
    throw;
  }
}

void ThreadedEngine::wait_all() {
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  wait_idle();
  // Nothing is pending now: give the charge back but for the pushes charged
  // ahead (those until the next recount).
  if (memory_) {
    constexpr int64_t kAhead = int64_t{kRecountEvery} * kPendingOpBytes;
    int64_t before = pending_charged_.load(std::memory_order_relaxed);
    while (before > kAhead && !pending_charged_.compare_exchange_weak(before, kAhead, std::memory_order_relaxed)) {
    }
    if (before > kAhead) memory_->uncharge(before - kAhead);
  }
  record_sync(trace::SyncKind::wait_all, 0, begin);
  if (std::exception_ptr error = take_first_error()) std::rethrow_exception(error);
}

void ThreadedEngine::cancel() { epoch_.fetch_add(1, std::memory_order_relaxed); }

EngineStats ThreadedEngine::stats() const {
  EngineStats s;
  s.pushed = last_op_id();
  for (const auto& pool : pools_) {
    for (const auto& w : pool->workers) {
      s.finished += w->finished.load(std::memory_order_relaxed);
      s.running += w->running.load(std::memory_order_relaxed);
      s.cpu_moves += w->waiter_cpu.moves();
      s.held_back += w->run_ahead.held_back.load(std::memory_order_relaxed);
    }
  }
  s.pending = s.pushed > s.finished ? s.pushed - s.finished : 0;
  s.failed = failed_.load(std::memory_order_relaxed);
  s.cancelled = cancelled_.load(std::memory_order_relaxed);
  s.waiter_wakes = wake_seq_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace asyncscope
