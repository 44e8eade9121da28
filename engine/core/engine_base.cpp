#include "engine/core/engine_base.h"

#include <algorithm>

#include "engine/core/errors.h"
#include "engine/core/prefetch.h"
#include "engine/trace_record/clock.h"

namespace asyncscope {

Var* VarPool::acquire() {
  std::lock_guard lock(take_lock_);
  if (free_ == nullptr) {
    // The head's depth may be stale (its var taken and given back since the
    // load): it only decides when to take, and the stack stays a stack.
    const Var* head = given_.load(std::memory_order_acquire);
    if (head != nullptr && head->free_depth_.load(std::memory_order_relaxed) >= kBatch) {
      free_ = given_.exchange(nullptr, std::memory_order_acquire);
    }
    if (free_ == nullptr) {
      // Fewer than a batch given back: make a batch. The vars in use and the
      // stack then stay within about two batches of the most ever in use.
      for (uint32_t i = 0; i < kBatch; ++i) {
        Var& var = storage_.emplace_back(0);
        var.next_free_ = free_;
        free_ = &var;
      }
    }
  }
  Var* var = free_;
  free_ = var->next_free_;
  var->next_free_ = nullptr;
  var->id_ = next_id_++;  // a recycled var is a new var to the trace (release cleared its error)
  if (free_ != nullptr) prefetch_lines_for_write(free_, sizeof(Var));
  return var;
}

void VarPool::release(Var* var) noexcept {
  var->error = nullptr;
  // Acquire: the head's depth is read through a pointer another thread gave
  // (a var it may have made just before), so that read must be ordered after
  // that thread's writes (ThreadSanitizer saw it race with the var's making).
  Var* head = given_.load(std::memory_order_acquire);
  do {
    var->next_free_ = head;
    var->free_depth_.store(head == nullptr ? 1 : head->free_depth_.load(std::memory_order_relaxed) + 1,
                           std::memory_order_relaxed);
  } while (!given_.compare_exchange_weak(head, var, std::memory_order_release, std::memory_order_acquire));
}

EngineBase::EngineBase(const EngineOptions& options)
    : Engine(options.recorder),
      max_inflight_(options.max_inflight),
      cancelled_error_(std::make_exception_ptr(CancelledError())) {
  if (options.max_inflight < 0) throw std::invalid_argument("max_inflight must be >= 0 (0 = no bound)");
  if (recorder_) recorder_->set_first_op_id(next_op_id_.load());
}

namespace {

bool contains(std::span<Var* const> vars, size_t count, Var* var) {
  return std::find(vars.begin(), vars.begin() + static_cast<std::ptrdiff_t>(count), var) !=
         vars.begin() + static_cast<std::ptrdiff_t>(count);
}

// Wraps what an op threw in an OpError naming the op (unless it already is
// one, or a cancellation), and returns the text for the trace.
std::exception_ptr attribute_error(std::exception_ptr thrown, const OpRecord& op, std::string& text) {
  try {
    std::rethrow_exception(thrown);
  } catch (const OpError& e) {
    text = e.what();
    return thrown;
  } catch (const CancelledError& e) {
    text = e.what();
    return thrown;
  } catch (const std::exception& e) {
    text = e.what();
  } catch (...) {
    text = "unknown exception (not derived from std::exception)";
  }
  return std::make_exception_ptr(OpError(trace::name_of(op.meta.name), op.id, text, thrown));
}

}  // namespace

OpRecord* EngineBase::prepare(OpFn&& fn, std::span<Var* const> reads, std::span<Var* const> writes,
                              const OpMeta& meta, OpRecord::Kind kind, trace::EnqueueEvent& e) {
  for (Var* v : reads) {
    if (v == nullptr) throw std::invalid_argument("push: null var in reads");
  }
  for (Var* v : writes) {
    if (v == nullptr) throw std::invalid_argument("push: null var in writes");
  }
  OpRecord* op = acquire_op_record();
  op->fn = std::move(fn);
  op->meta = meta;
  op->kind = kind;
  op->stream_ordered = false;
  op->run_ahead = false;
  op->on_stream = false;
  op->owner = this;
  op->epoch = epoch_.load(std::memory_order_relaxed);
  op->id = kind == OpRecord::Kind::sync ? 0 : next_op_id_.fetch_add(1, std::memory_order_relaxed);

  const size_t most = reads.size() + writes.size();
  VarLink* links = op->inline_links;
  if (most > static_cast<size_t>(OpRecord::kInlineVars)) {
    op->heap_links = std::make_unique<VarLink[]>(most);
    links = op->heap_links.get();
  }
  // Var lists are short; quadratic de-duplication beats sorting them.
  uint16_t n = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    Var* v = reads[i];
    if (contains(reads, i, v) || std::find(writes.begin(), writes.end(), v) != writes.end()) continue;
    links[n++] = VarLink{op, v, nullptr, false};
  }
  op->num_reads = n;
  for (size_t i = 0; i < writes.size(); ++i) {
    if (contains(writes, i, writes[i])) continue;
    links[n++] = VarLink{op, writes[i], nullptr, true};
  }
  op->num_writes = static_cast<uint16_t>(n - op->num_reads);
  op->wait.store(n + 1, std::memory_order_relaxed);

  if (tracing() && kind != OpRecord::Kind::sync) {
    trace::ThreadBuffer& buffer = recorder_->local();
    e.op = op->id;
    e.out_bytes = std::min(meta.out_bytes, trace::kMaxEnqueueOutBytes);
    e.iteration = meta.iteration;
    e.name = meta.name;
    e.num_reads = op->num_reads;
    e.num_writes = op->num_writes;
    e.device = meta.device.kind;
    e.device_index = meta.device.index;
    e.internal = static_cast<uint8_t>(meta.internal);
    if (n <= trace::kInlineVarIds) {
      for (uint16_t i = 0; i < n; ++i) e.inline_vars[i] = links[i].var->id();
    } else {
      e.vars_offset = buffer.vars.size();
      for (uint16_t i = 0; i < n; ++i) buffer.vars.append(links[i].var->id());
    }
    e.t = trace::now_ns_unordered();
    op->ready_ns.store(e.t, std::memory_order_relaxed);
  } else {
    op->ready_ns.store(0, std::memory_order_relaxed);
  }
  return op;
}

void EngineBase::record_enqueue(trace::EnqueueEvent& e) {
  if (e.op == 0) return;
  const int64_t took = trace::now_ns_unordered() - e.t;
  e.push_ns = static_cast<uint64_t>(std::clamp<int64_t>(took, 0, static_cast<int64_t>(trace::kMaxPushNs)));
  recorder_->local().enqueues.append(e);
}

bool EngineBase::delete_if_idle(Var* var, OpFn& on_delete) {
  if (tracing() || !var->idle()) return false;
  if (on_delete) on_delete(RunContext{Device::cpu(), kCallerThread, 0, nullptr});
  vars_.release(var);
  return true;
}

OpRecord* EngineBase::prepare_free(Var* var, OpFn& on_delete, trace::EnqueueEvent& enqueue) {
  if (delete_if_idle(var, on_delete)) return nullptr;
  static const trace::NameId kFree = trace::intern("free");
  OpMeta meta(kFree);
  meta.internal = true;
  Var* const writes[] = {var};
  return prepare(std::move(on_delete), {}, writes, meta, OpRecord::Kind::delete_var, enqueue);
}

bool EngineBase::admit(OpRecord* op, std::exception_ptr& error, trace::OpStatus& status) {
  // Freeing memory (delete_var) is never dropped: it would leak.
  if (op->kind != OpRecord::Kind::delete_var && op->epoch != epoch_.load(std::memory_order_relaxed)) {
    status = trace::OpStatus::cancelled;
    error = cancelled_error_;
    cancelled_.fetch_add(1, std::memory_order_relaxed);
    note_error(error);
    return false;
  }
  // A read granted by stream order follows an op that may still be on the
  // device; its error is read by the completer once that op completed.
  const VarLink* links = op->links();
  for (int i = 0; i < op->num_reads && !error; ++i) {
    if (!links[i].by_stream) error = links[i].var->error;
  }
  if (error) {
    status = trace::OpStatus::skipped;
    return false;
  }
  return true;
}

std::exception_ptr EngineBase::call(OpRecord* op, uint16_t worker, void* stream, HelpBoard* helpers) {
  try {
    if (op->fn) op->fn(RunContext{op->meta.device, worker, op->id, stream, helpers});
    return nullptr;
  } catch (...) {
    return fail(op, std::current_exception());
  }
}

std::exception_ptr EngineBase::fail(OpRecord* op, std::exception_ptr thrown) {
  std::string text;
  std::exception_ptr error = attribute_error(std::move(thrown), *op, text);
  failed_.fetch_add(1, std::memory_order_relaxed);
  note_error(error);
  if (tracing()) recorder_->record_error(op->id, std::move(text));
  return error;
}

void EngineBase::set_errors(OpRecord* op, const std::exception_ptr& error) noexcept {
  for (int i = 0; i < op->num_writes; ++i) op->write(i)->error = error;
}

int64_t EngineBase::execute(OpRecord* op, uint16_t worker, int64_t& last_end, bool continued, HelpBoard* helpers) {
  const bool traced = tracing();
  int64_t start = 0;
  if (traced) {
    const int64_t ready = op->ready_ns.load(std::memory_order_relaxed);
    start = continued && last_end != 0 ? std::max(last_end, ready)
                                       : std::max({trace::now_ns_unordered(), ready, last_end});
  }
  auto status = trace::OpStatus::ok;
  std::exception_ptr error;
  if (admit(op, error, status)) {
    error = call(op, worker, nullptr, helpers);
    if (error) status = trace::OpStatus::failed;
  }
  set_errors(op, error);
  if (!traced) return last_end = 0;
  const int64_t end = std::max(trace::now_ns_unordered(), start);
  recorder_->record_exec(
      trace::ExecEvent{op->id, start, end, worker, op->meta.device.kind, op->meta.device.index, status});
  return last_end = end;
}

void EngineBase::record_sync(trace::SyncKind kind, uint64_t target, int64_t begin) const {
  if (!tracing()) return;
  recorder_->record_sync(trace::SyncEvent{begin, trace::now_ns(), target, last_op_id(), kind});
}

void EngineBase::note_error(const std::exception_ptr& error) {
  std::lock_guard lock(errors_mutex_);
  if (!first_error_) first_error_ = error;
}

std::exception_ptr EngineBase::take_first_error() {
  std::lock_guard lock(errors_mutex_);
  return std::exchange(first_error_, nullptr);
}

}  // namespace asyncscope
