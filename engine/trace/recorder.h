// Recorder: the write side of the trace. Every thread that records gets its own
// ThreadBuffer (append-only logs), so writers never share a lock on the hot
// path; readers on other threads (the GUI at 60 fps, exporters, tests) read a
// consistent, growing prefix of each log without blocking the writers.
//
// Threading: record_*() and local() from any thread, each thread writing only
// its own buffer; threads(), counter_log() and errors() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/trace/chunked_log.h"
#include "engine/trace/clock.h"
#include "engine/trace/events.h"

namespace asyncscope::trace {

// One thread's logs. Entries of each log are published independently; an
// enqueue's var ids are appended to `vars` before the enqueue itself, so a
// reader that sees the enqueue also sees its var ids. Aligned to a cache
// line: each thread writes its logs' sizes on every event, and buffers of two
// threads allocated side by side would otherwise share a line.
struct alignas(64) ThreadBuffer {
  explicit ThreadBuffer(size_t capacity, uint32_t index, std::string name)
      : enqueues(capacity), vars(capacity * 2), execs(capacity), syncs(capacity),
        markers(capacity), sources(capacity), index(index), name(std::move(name)) {}

  ChunkedLog<EnqueueEvent> enqueues;
  ChunkedLog<uint64_t> vars;
  ChunkedLog<ExecEvent> execs;
  ChunkedLog<SyncEvent> syncs;
  ChunkedLog<MarkerEvent> markers;
  ChunkedLog<SourceEvent> sources;
  const uint32_t index;
  const std::string name;

  uint64_t dropped() const noexcept {
    return enqueues.dropped() + vars.dropped() + execs.dropped() + syncs.dropped() + markers.dropped() +
           sources.dropped();
  }
};

// Names the calling thread in every recorder it later writes to (e.g. "CPU
// worker 0"). Threads that never call this are named "frontend".
// Threading: any thread, about itself.
void set_thread_name(std::string name);

class Recorder {
 public:
  struct Options {
    bool enabled = true;
    // Per thread and per log: beyond this, events are dropped and counted.
    size_t max_events_per_thread = size_t{1} << 24;
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

 private:
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

  const uint64_t uid_;  // never reused, so a stale thread-local slot can never match
  const int64_t origin_ns_;
  const Options options_;
  std::atomic<bool> enabled_;
  std::atomic<uint64_t> first_op_id_{1};

  mutable std::mutex mutex_;  // guards the registry below, never held while recording
  std::vector<std::unique_ptr<ThreadBuffer>> threads_;
  std::unordered_map<uint64_t, ThreadBuffer*> by_thread_;  // thread uid (never reused) -> its buffer
  std::vector<std::pair<uint64_t, std::string>> errors_;
  std::vector<std::string> counter_names_;
  ChunkedLog<CounterSample> counters_;
};

}  // namespace asyncscope::trace
