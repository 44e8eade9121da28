#include "engine/core/naive_engine.h"

#include <stdexcept>

#include "engine/trace_record/clock.h"

namespace asyncscope {

NaiveEngine::NaiveEngine(const EngineOptions& options) : EngineBase(options) {}

uint64_t NaiveEngine::run_now(OpRecord* op) {
  const uint64_t id = op->id;
  pushed_.fetch_add(1, std::memory_order_relaxed);
  int64_t last_end = 0;  // the pushing thread may also run other engines' ops
  execute(op, 0, last_end, false);
  if (op->kind == OpRecord::Kind::delete_var) vars_.release(op->write(0));
  release_op_record(op);
  finished_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

uint64_t NaiveEngine::push(OpFn fn, std::span<Var* const> reads, std::span<Var* const> writes,
                           const OpMeta& meta) {
  if (meta.device != Device::cpu()) {
    throw std::invalid_argument("no workers for device " + to_string(meta.device) + " in this engine");
  }
  check_trace_budget();
  trace::EnqueueEvent enqueue;
  OpRecord* op = prepare(std::move(fn), reads, writes, meta, OpRecord::Kind::normal, enqueue);
  record_enqueue(enqueue);  // the push is done: what follows is the op's own run
  return run_now(op);
}

void NaiveEngine::delete_var(Var* var, OpFn on_delete) {
  trace::EnqueueEvent enqueue;
  OpRecord* op = prepare_free(var, on_delete, enqueue);
  if (op == nullptr) return;
  record_enqueue(enqueue);
  run_now(op);
}

void NaiveEngine::wait_for_var(Var* var, trace::SyncKind kind) {
  if (var == nullptr) throw std::invalid_argument("wait_for_var: null var");
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  record_sync(kind, var->id(), begin);
  if (var->error) std::rethrow_exception(var->error);
}

void NaiveEngine::wait_all() {
  const int64_t begin = tracing() ? trace::now_ns() : 0;
  record_sync(trace::SyncKind::wait_all, 0, begin);
  if (std::exception_ptr error = take_first_error()) std::rethrow_exception(error);
}

EngineStats NaiveEngine::stats() const {
  EngineStats s;
  s.pushed = pushed_.load(std::memory_order_relaxed);
  s.finished = finished_.load(std::memory_order_relaxed);
  s.pending = s.pushed - s.finished;
  s.running = s.pending;
  s.failed = failed_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace asyncscope
