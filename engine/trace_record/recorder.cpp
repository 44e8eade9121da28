#include "engine/trace_record/recorder.h"

#include <pthread.h>
#include <unistd.h>

#include <new>
#include <stdexcept>

namespace asyncscope::trace {
namespace {

std::atomic<uint64_t> g_next_uid{1};
std::atomic<uint64_t> g_next_thread_uid{1};
thread_local std::string tls_thread_name = "frontend";

// Names the calling thread in recorders' registries. Unlike std::thread::id it
// is never reused, so a new thread can never be handed an exited one's buffer.
uint64_t this_thread_uid() {
  thread_local const uint64_t uid = g_next_thread_uid.fetch_add(1, std::memory_order_relaxed);
  return uid;
}

}  // namespace

thread_local Recorder::CacheSlot Recorder::tls_cache_[4];
thread_local unsigned Recorder::tls_next_slot_ = 0;

void set_thread_name(std::string name) {
  // The system's name too (top -H, perf, gdb), at most 15 bytes; but not the
  // main thread's, which is the process's name (ps, killall).
  if (gettid() != getpid()) pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  tls_thread_name = std::move(name);
}

Recorder::Recorder() : Recorder(Options{}) {}

Recorder::Recorder(Options options)
    : uid_(g_next_uid.fetch_add(1, std::memory_order_relaxed)),
      origin_ns_(options.origin_ns != 0 ? options.origin_ns : now_ns()),
      options_(options),
      enabled_(options.enabled),
      // The sampler runs at >= 1 kHz; one sample per log slot.
      counters_(options.max_events_per_thread, &account_) {}

Recorder::~Recorder() {
  // The logs give back their chunks as they go; the fixed parts here.
  if (account_.budget) account_.budget->uncharge(fixed_charged_);
}

bool Recorder::Account::charge(size_t bytes) noexcept {
  if (!budget) return true;
  if (refused.load(std::memory_order_relaxed)) return false;  // latched: no exception per dropped event
  try {
    budget->charge(static_cast<int64_t>(bytes), "recording the trace");
    return true;
  } catch (...) {
    std::lock_guard lock(mutex);
    if (!refused.load(std::memory_order_relaxed)) {
      error = std::current_exception();
      refused.store(true, std::memory_order_relaxed);
    }
  }
  return false;
}

void Recorder::Account::uncharge(size_t bytes) noexcept {
  if (budget) budget->uncharge(static_cast<int64_t>(bytes));
}

void Recorder::set_read_reserve(size_t bytes_per_op) {
  std::lock_guard lock(mutex_);
  if (account_.budget || !threads_.empty()) {
    throw std::logic_error("Recorder::set_read_reserve: call it before anything is recorded or budgeted");
  }
  enqueue_account_.per_op = bytes_per_op;
}

void Recorder::set_memory_budget(std::shared_ptr<MemoryAccount> budget) {
  std::lock_guard lock(mutex_);
  if (account_.budget) account_.budget->uncharge(fixed_charged_ + static_cast<int64_t>(counters_.chunk_bytes()));
  // What the logs charged: their chunks, the enqueue chunks with their read reserve.
  const auto charged_chunks = [this](const ThreadBuffer& t) {
    return t.chunk_bytes() - t.enqueues.chunk_bytes() + enqueue_account_.with_reserve(t.enqueues.chunk_bytes());
  };
  for (const auto& t : threads_) {
    if (account_.budget) account_.budget->uncharge(static_cast<int64_t>(charged_chunks(*t)));
  }
  account_.budget = std::move(budget);
  fixed_charged_ = static_cast<int64_t>(counters_.directory_bytes());
  size_t chunks = counters_.chunk_bytes();
  for (const auto& t : threads_) {
    fixed_charged_ += static_cast<int64_t>(t->fixed_bytes());
    chunks += charged_chunks(*t);
  }
  // Already allocated: counted even past the budget, so later growth is refused.
  if (account_.budget) account_.budget->charge(fixed_charged_ + static_cast<int64_t>(chunks), "the trace", true);
}

void Recorder::throw_if_over_budget() const {
  if (!over_budget()) return;
  std::lock_guard lock(account_.mutex);
  if (!account_.error) throw std::bad_alloc();  // refused without an error: none could be made
  std::rethrow_exception(account_.error);
}

size_t Recorder::bytes() const {
  std::lock_guard lock(mutex_);
  size_t total = counters_.directory_bytes() + counters_.chunk_bytes();
  for (const auto& t : threads_) total += t->fixed_bytes() + t->chunk_bytes();
  return total;
}

ThreadBuffer& Recorder::register_thread() {
  std::lock_guard lock(mutex_);
  ThreadBuffer*& buffer = by_thread_[this_thread_uid()];
  if (buffer == nullptr) {
    const auto index = static_cast<uint32_t>(threads_.size());
    threads_.push_back(
        std::make_unique<ThreadBuffer>(options_.max_events_per_thread, index, tls_thread_name, &account_,
                                       &enqueue_account_));
    buffer = threads_.back().get();
    if (account_.budget) {
      // A thread's first event cannot be refused without losing the thread; its
      // fixed part is counted even past the budget (its chunks are not).
      const auto fixed = static_cast<int64_t>(buffer->fixed_bytes());
      account_.budget->charge(fixed, "the trace", true);
      fixed_charged_ += fixed;
    }
  }
  CacheSlot& slot = tls_cache_[tls_next_slot_++ % std::size(tls_cache_)];
  slot = CacheSlot{uid_, buffer};
  return *buffer;
}

ThreadBuffer& Recorder::add_thread(std::string name) {
  std::lock_guard lock(mutex_);
  const auto index = static_cast<uint32_t>(threads_.size());
  threads_.push_back(std::make_unique<ThreadBuffer>(options_.max_events_per_thread, index, std::move(name), &account_,
                                                    &enqueue_account_));
  ThreadBuffer* buffer = threads_.back().get();
  if (account_.budget) {
    const auto fixed = static_cast<int64_t>(buffer->fixed_bytes());
    account_.budget->charge(fixed, "the trace", true);
    fixed_charged_ += fixed;
  }
  return *buffer;
}

void Recorder::record_error(uint64_t op, std::string text) {
  std::lock_guard lock(mutex_);
  errors_.emplace_back(op, std::move(text));
}

void Recorder::set_counter_names(std::vector<std::string> names) {
  std::lock_guard lock(mutex_);
  counter_names_ = std::move(names);
}

std::vector<std::string> Recorder::counter_names() const {
  std::lock_guard lock(mutex_);
  return counter_names_;
}

std::vector<const ThreadBuffer*> Recorder::threads() const {
  std::lock_guard lock(mutex_);
  std::vector<const ThreadBuffer*> out;
  out.reserve(threads_.size());
  for (const auto& t : threads_) out.push_back(t.get());
  return out;
}

std::vector<std::pair<uint64_t, std::string>> Recorder::errors(size_t from) const {
  std::lock_guard lock(mutex_);
  if (from >= errors_.size()) return {};
  return {errors_.begin() + static_cast<std::ptrdiff_t>(from), errors_.end()};
}

uint64_t Recorder::dropped() const {
  uint64_t total = counters_.dropped() + dropped_elsewhere_.load(std::memory_order_relaxed);
  for (const ThreadBuffer* t : threads()) total += t->dropped();
  return total;
}

}  // namespace asyncscope::trace
