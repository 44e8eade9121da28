#include "engine/core/threaded_engine.h"

#include <stdexcept>
#include <string>

#include "engine/core/wait_slot.h"
#include "engine/trace/clock.h"

namespace asyncscope {
namespace {

constexpr int64_t kWorkerSpinNs = 50'000;
constexpr int64_t kWaitSpinNs = 20'000;

// The worker the current thread is, if any (for same-worker continuation).
thread_local void* tls_worker = nullptr;

}  // namespace

ThreadedEngine::ThreadedEngine(const EngineOptions& options) : EngineBase(options) {
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
  pools_.push_back(std::move(cpu));
  for (auto& pool : pools_) {
    for (auto& w : pool->workers) w->thread = std::thread([this, w = w.get()] { worker_main(*w); });
  }
}

ThreadedEngine::~ThreadedEngine() {
  cancel();
  wait_idle();
  for (auto& pool : pools_) pool->queue.stop();
  for (auto& pool : pools_) {
    for (auto& w : pool->workers) w->thread.join();
  }
}

ThreadedEngine::Pool& ThreadedEngine::pool_for(Device device) {
  for (auto& pool : pools_) {
    if (pool->device == device) return *pool;
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
  pool_for(meta.device);  // a bad device fails here, on the caller, not on a worker
  if (max_inflight_ > 0 && !meta.internal && pending() >= static_cast<uint64_t>(max_inflight_)) {
    const int64_t begin = trace::now_ns();
    wait_until([this] { return pending() < static_cast<uint64_t>(max_inflight_); });
    record_sync(trace::SyncKind::inflight_bound, 0, begin);
  }
  return submit(prepare(std::move(fn), reads, writes, meta, OpRecord::Kind::normal));
}

void ThreadedEngine::delete_var(Var* var, OpFn on_delete) {
  static const trace::NameId kFree = trace::intern("free");
  OpMeta meta(kFree);
  meta.internal = true;
  Var* const writes[] = {var};
  submit(prepare(std::move(on_delete), {}, writes, meta, OpRecord::Kind::delete_var));
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
  auto* self = static_cast<Worker*>(tls_worker);
  const bool frees = op->kind == OpRecord::Kind::delete_var;
  if (self != nullptr && self->pool == &pool && self->next_local == nullptr &&
      (frees || !pool.queue.maybe_nonempty())) {
    self->next_local = op;
  } else {
    // A free jumps the queue: when the frontend runs ahead, hundreds of ready
    // ops may wait, and each would otherwise get fresh (page-faulting)
    // memory while the finished buffers wait behind them to be returned.
    pool.queue.push(op, frees);
  }
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
  std::exception_ptr error = var->error;
  OpRecord* ready = var->complete_read();
  release_op_record(op);
  slot->signal(std::move(error));
  dispatch_chain(ready);
}

void ThreadedEngine::complete(OpRecord* op) {
  OpRecord* ready = nullptr;
  const auto chain = [&ready](OpRecord* more) {
    while (more != nullptr) {
      OpRecord* next = more->next;
      more->next = ready;
      ready = more;
      more = next;
    }
  };
  for (int i = 0; i < op->num_reads; ++i) chain(op->read(i)->complete_read());
  for (int i = 0; i < op->num_writes; ++i) chain(op->write(i)->complete_write());
  if (op->kind == OpRecord::Kind::delete_var) vars_.release(op->write(0));
  dispatch_chain(ready);
}

void ThreadedEngine::run(OpRecord* op, Worker& worker) {
  worker.running.store(1, std::memory_order_relaxed);
  execute(op, worker.index, nullptr);
  worker.running.store(0, std::memory_order_relaxed);
  complete(op);
  release_op_record(op);
  // seq_cst pairs with wait_until(): either the waiter sees this count, or we
  // see its registration in waiters_ and wake it.
  worker.finished.fetch_add(1, std::memory_order_seq_cst);
  if (waiters_.load(std::memory_order_seq_cst) > 0) wake_waiters();
}

void ThreadedEngine::worker_main(Worker& worker) {
  const Device device = worker.pool->device;
  trace::set_thread_name(device.kind == DeviceKind::cpu ? "CPU worker " + std::to_string(worker.index)
                                                        : to_string(device) + " stream " + std::to_string(worker.index));
  tls_worker = &worker;
  ReadyQueue& queue = worker.pool->queue;
  for (;;) {
    OpRecord* op = std::exchange(worker.next_local, nullptr);
    if (op == nullptr) op = queue.try_pop();
    if (op == nullptr && spin_until([&queue] { return queue.maybe_nonempty(); }, kWorkerSpinNs)) {
      op = queue.try_pop();
    }
    if (op == nullptr) op = queue.pop_or_sleep();
    if (op == nullptr) break;  // stopped and drained
    run(op, worker);
  }
  tls_worker = nullptr;
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
  wake_seq_.notify_all();
}

template <class Done>
void ThreadedEngine::wait_until(Done done) {
  if (spin_until(done, kWaitSpinNs)) return;
  waiters_.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    const uint32_t seq = wake_seq_.load(std::memory_order_seq_cst);
    if (done()) break;
    wake_seq_.wait(seq, std::memory_order_seq_cst);
  }
  waiters_.fetch_sub(1, std::memory_order_seq_cst);
}

void ThreadedEngine::wait_idle() noexcept {
  wait_until([this] { return pending() == 0; });
}

void ThreadedEngine::wait_for_var(Var* var, trace::SyncKind kind) {
  if (var == nullptr) throw std::invalid_argument("wait_for_var: null var");
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  std::exception_ptr error;
  if (var->ready_to_read()) {
    error = var->error;
  } else {
    WaitSlot& slot = this_thread_wait_slot();
    slot.arm();
    Var* const reads[] = {var};
    OpRecord* op = prepare({}, reads, {}, OpMeta{}, OpRecord::Kind::sync);
    op->slot = &slot;
    op->links()[0].var->append_read(&op->links()[0]);
    if (op->grant()) signal_sync(op);
    slot.wait();
    error = std::move(slot.error);
  }
  record_sync(kind, var->id(), begin);
  if (error) std::rethrow_exception(error);
}

void ThreadedEngine::wait_all() {
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  wait_idle();
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
    }
  }
  s.pending = s.pushed > s.finished ? s.pushed - s.finished : 0;
  s.failed = failed_.load(std::memory_order_relaxed);
  s.cancelled = cancelled_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace asyncscope
