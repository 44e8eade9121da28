// Recorder: the write side of the trace. Every thread that records gets its own
// ThreadBuffer (append-only logs), so writers never share a lock on the hot
// path; readers on other threads (the GUI at 60 fps, exporters, tests) read a
// consistent, growing prefix of each log without blocking the writers.
//
// Memory: the buffers can count against a memory budget (the run's host
// allocator, set_memory_budget), so a long run is stopped with a clear
// message instead of growing until the machine swaps.
//
// Threading: record_*() and local() from any thread, each thread writing only
// its own buffer; threads(), counter_log() and errors() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/trace_record/chunked_log.h"
#include "engine/trace_record/clock.h"
#include "engine/trace_record/events.h"
#include "engine/trace_record/memory_account.h"

namespace asyncscope::trace {

// One thread's logs. Entries of each log are published independently; an
// enqueue's var ids are appended to `vars` before the enqueue itself, so a
// reader that sees the enqueue also sees its var ids. Aligned to a cache
// line: each thread writes its logs' sizes on every event, and buffers of two
// threads allocated side by side would otherwise share a line.
// Memory a recorded op will need when the trace is read at the end of a run
// (its model row, lane entries and var ids, and the export's per-op tables):
// about 230 B measured (sync-vs-async, 4M ops, 1.30 GB peak RSS with
// --trace, less the trace's 96 B per op). Charged with each enqueue chunk, so
// a run stopped by its budget can still be read and exported within it.
inline constexpr size_t kReadReserveBytesPerOp = 240;

// The scopes a thread is in, innermost first, as a chain shared by everything
// that was made inside them: autograd keeps it with each recorded op, so that
// backward pushes the op's gradient in the scopes its forward ran in. Two
// ops recorded in the same entering of a scope share that frame.
struct ScopeFrame {
  NameId name = 0;
  std::shared_ptr<const ScopeFrame> outer;
};
using ScopePath = std::shared_ptr<const ScopeFrame>;

struct alignas(64) ThreadBuffer {
  // memory: where the logs are charged; enqueue_memory: the enqueue log's
  // (its chunks also reserve the recorder's read reserve per entry).
  explicit ThreadBuffer(size_t capacity, uint32_t index, std::string name, LogMemory* memory = nullptr,
                        LogMemory* enqueue_memory = nullptr)
      : enqueues(capacity, enqueue_memory != nullptr ? enqueue_memory : memory), vars(capacity * 2, memory), execs(capacity, memory), syncs(capacity, memory),
        markers(capacity, memory), sources(capacity, memory), scopes(capacity, memory), index(index),
        name(std::move(name)) {}

  ChunkedLog<EnqueueEvent> enqueues;
  ChunkedLog<uint64_t> vars;
  ChunkedLog<ExecEvent> execs;
  ChunkedLog<SyncEvent> syncs;
  ChunkedLog<MarkerEvent> markers;
  ChunkedLog<SourceEvent> sources;
  ChunkedLog<ScopeEvent> scopes;
  // The scopes entered and not left (enter_scope/leave_scope): read and
  // written by the buffer's own thread only.
  ScopePath scope_path;
  const uint32_t index;
  const std::string name;

  uint64_t dropped() const noexcept {
    return enqueues.dropped() + vars.dropped() + execs.dropped() + syncs.dropped() + markers.dropped() +
           sources.dropped() + scopes.dropped();
  }
  // Mapped chunks of every log.
  size_t chunk_bytes() const noexcept {
    return enqueues.chunk_bytes() + vars.chunk_bytes() + execs.chunk_bytes() + syncs.chunk_bytes() +
           markers.chunk_bytes() + sources.chunk_bytes() + scopes.chunk_bytes();
  }
  // What the buffer costs before its first event: itself and its logs' directories.
  size_t fixed_bytes() const noexcept {
    return sizeof(ThreadBuffer) + enqueues.directory_bytes() + vars.directory_bytes() + execs.directory_bytes() +
           syncs.directory_bytes() + markers.directory_bytes() + sources.directory_bytes() + scopes.directory_bytes();
  }
};

// Names the calling thread in every recorder it later writes to (e.g. "CPU
// worker 0"), and names the thread so for the system (its first 15 bytes:
// top -H, perf and gdb show it; not the main thread, whose system name is the
// process's). Threads that never call this are named "frontend".
// Threading: any thread, about itself.
void set_thread_name(std::string name);

class Recorder {
 public:
  struct Options {
    bool enabled = true;
    // Per thread and per log: beyond this, events are dropped and counted.
    size_t max_events_per_thread = size_t{1} << 24;
    // The run's start (absolute steady_clock ns); 0: when the recorder is made.
    // A recorder that takes in another process's events (trace/live.h) starts
    // where that process's did.
    int64_t origin_ns = 0;
  };

  Recorder();
  explicit Recorder(Options options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Absolute steady_clock ns of "run start"; readers report times relative to it.
  int64_t origin_ns() const noexcept { return origin_ns_; }

  // Tracing can be switched off; writers check this before recording.
  bool enabled() const noexcept { return enabled_.load(std::memory_order_relaxed); }
  void set_enabled(bool on) noexcept { enabled_.store(on, std::memory_order_relaxed); }

  // The calling thread's buffer, registered on first use.
  ThreadBuffer& local() {
    for (const auto& slot : tls_cache_) {
      if (slot.uid == uid_) return *slot.buffer;
    }
    return register_thread();
  }

  void record_exec(const ExecEvent& e) { local().execs.append(e); }
  void record_sync(const SyncEvent& e) { local().syncs.append(e); }
  void record_marker(NameId name, int64_t value = 0) {
    local().markers.append(MarkerEvent{now_ns(), value, name});
  }
  // The calling thread entered (an execution of) a line of a script; line 0:
  // it left the script.
  void record_source(NameId file, uint32_t line) {
    local().sources.append(SourceEvent{now_ns_unordered(), file, line});
  }
  // A buffer no thread records into by itself, named `name`: for events that
  // come from elsewhere (another process's trace, streamed), appended by one
  // thread at a time. Readers see it as any thread's buffer.
  ThreadBuffer& add_thread(std::string name);
  // Events dropped where they were recorded (another process's recorder):
  // counted in dropped() besides this recorder's own. A running total.
  void set_dropped_elsewhere(uint64_t total) noexcept { dropped_elsewhere_.store(total, std::memory_order_relaxed); }

  // The calling thread entered the scope `name` (a layer's forward, an
  // optimizer's step), or left the innermost one (leave_scope).
  void enter_scope(NameId name) {
    ThreadBuffer& b = local();
    b.scopes.append(ScopeEvent{now_ns_unordered(), name, 1});
    b.scope_path = std::make_shared<const ScopeFrame>(ScopeFrame{name, std::move(b.scope_path)});
  }
  void leave_scope() {
    ThreadBuffer& b = local();
    b.scopes.append(ScopeEvent{now_ns_unordered(), 0, 0});
    if (b.scope_path) b.scope_path = ScopePath(b.scope_path->outer);
  }
  // The scopes the calling thread is in now (null: none).
  const ScopePath& scope_path() { return local().scope_path; }

  // Rare path (a failed op): takes a lock.
  void record_error(uint64_t op, std::string text);

  // The engine whose ops this recorder traces states where its op ids start,
  // so readers can index ops densely.
  void set_first_op_id(uint64_t id) noexcept { first_op_id_.store(id, std::memory_order_relaxed); }
  uint64_t first_op_id() const noexcept { return first_op_id_.load(std::memory_order_relaxed); }

  // Counters: names are fixed before the single sampler thread starts writing.
  void set_counter_names(std::vector<std::string> names);
  std::vector<std::string> counter_names() const;
  ChunkedLog<CounterSample>& counter_log() noexcept { return counters_; }
  const ChunkedLog<CounterSample>& counter_log() const noexcept { return counters_; }

  // Snapshot of the registered thread buffers (they live as long as the recorder).
  std::vector<const ThreadBuffer*> threads() const;
  // Errors recorded from index `from` on.
  std::vector<std::pair<uint64_t, std::string>> errors(size_t from = 0) const;
  // Total events dropped because a bound was hit.
  uint64_t dropped() const;

  // The budget the trace's buffers count against (a run's, over its host allocator):
  // each chunk a log maps is charged first, and each thread buffer's fixed
  // part when it is made. Once a chunk is refused every later one is too
  // (their events are dropped and counted) and over_budget() turns true, so
  // the frontend's next push fails with the refusal (the engine checks). What
  // was recorded before stays readable. Call before other threads record;
  // buffers made earlier are charged now. Null: nothing is counted.
  void set_memory_budget(std::shared_ptr<MemoryAccount> budget);
  // The memory each recorded op reserves, with its enqueue chunk, for whoever
  // reads the trace (kReadReserveBytesPerOp unless set): the app, which keeps
  // a live model, its insight and the timeline's tables of a run, reserves
  // more. Call before anything is recorded (before set_memory_budget);
  // std::logic_error after.
  void set_read_reserve(size_t bytes_per_op);
  size_t read_reserve() const noexcept { return enqueue_account_.per_op; }
  // Any thread: whether the budget refused the trace a chunk (one relaxed load).
  bool over_budget() const noexcept { return account_.refused.load(std::memory_order_relaxed); }
  // Throws the budget's refusal (a MemoryBudgetError) if over_budget().
  void throw_if_over_budget() const;
  // Bytes the trace holds now: mapped chunks, buffers and chunk directories.
  size_t bytes() const;

 private:
  // Charges log chunks to the budget; refuses everything after its first refusal.
  struct Account final : LogMemory {
    bool charge(size_t bytes) noexcept override;
    void uncharge(size_t bytes) noexcept override;

    std::shared_ptr<MemoryAccount> budget;
    std::atomic<bool> refused{false};
    mutable std::mutex mutex;
    std::exception_ptr error;  // guarded by mutex; set once refused
  };
  // The enqueue logs' account: charges each chunk with the read reserve of its entries.
  struct ReservingAccount final : LogMemory {
    size_t with_reserve(size_t bytes) const noexcept { return bytes + bytes / sizeof(EnqueueEvent) * per_op; }
    bool charge(size_t bytes) noexcept override { return account->charge(with_reserve(bytes)); }
    void uncharge(size_t bytes) noexcept override { account->uncharge(with_reserve(bytes)); }
    explicit ReservingAccount(Account* a) noexcept : account(a) {}
    Account* const account;
    size_t per_op = kReadReserveBytesPerOp;  // set before any chunk is charged
  };

  struct CacheSlot {
    uint64_t uid = 0;
    ThreadBuffer* buffer = nullptr;
  };
  // Cache miss: finds the calling thread's buffer (or creates it on first use)
  // and caches it. A thread alternating between more recorders than the cache
  // holds misses often, but still keeps one buffer per recorder.
  ThreadBuffer& register_thread();

  static thread_local CacheSlot tls_cache_[4];
  static thread_local unsigned tls_next_slot_;

  Account account_;  // before the logs: they uncharge into it when destroyed
  ReservingAccount enqueue_account_{&account_};
  int64_t fixed_charged_ = 0;  // guarded by mutex_: thread buffers' fixed parts charged
  const uint64_t uid_;  // never reused, so a stale thread-local slot can never match
  const int64_t origin_ns_;
  const Options options_;
  std::atomic<bool> enabled_;
  std::atomic<uint64_t> first_op_id_{1};
  std::atomic<uint64_t> dropped_elsewhere_{0};

  mutable std::mutex mutex_;  // guards the registry below, never held while recording
  std::vector<std::unique_ptr<ThreadBuffer>> threads_;
  std::unordered_map<uint64_t, ThreadBuffer*> by_thread_;  // thread uid (never reused) -> its buffer
  std::vector<std::pair<uint64_t, std::string>> errors_;
  std::vector<std::string> counter_names_;
  ChunkedLog<CounterSample> counters_;
};

// While it lives, the calling thread is in the scope `name` on `recorder`'s
// trace (a layer's forward, a loss): enter_scope now, leave_scope at the
// end, even by an exception. Nothing when the recorder is null or off.
class TraceScope {
 public:
  TraceScope(Recorder* recorder, NameId name) : recorder_(recorder != nullptr && recorder->enabled() ? recorder : nullptr) {
    if (recorder_ != nullptr) recorder_->enter_scope(name);
  }
  ~TraceScope() {
    if (recorder_ != nullptr) recorder_->leave_scope();
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  Recorder* const recorder_;
};

}  // namespace asyncscope::trace
