// Append-only log with one writer and any number of concurrent readers: the
// building block of the per-thread trace buffers.
//
// Invariants: entries live in fixed-size chunks that never move, reached
// through a directory allocated up front, so a reader that has loaded size()
// can read entries [0, size) while the writer keeps appending. The writer
// publishes an entry by a release store of the size after writing it; readers
// load the size with acquire. When the capacity bound is reached, append()
// drops the entry and counts it in dropped() instead of growing without limit.
//
// Threading: append() from the owning thread only; size(), operator[] and
// dropped() from any thread.
//
// Memory: a log may count its chunks somewhere (the run's memory budget,
// through a LogMemory). A chunk is charged before it is mapped; a refused
// chunk drops the entry (counted in dropped()) instead of growing.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

namespace asyncscope::trace {

// Where logs count their memory. charge() is called before a chunk is
// mapped and returns false to refuse it; uncharge() when a chunk is unmapped.
// Threading: any thread (each log's writer, and whoever destroys a log).
class LogMemory {
 public:
  virtual bool charge(size_t bytes) noexcept = 0;
  virtual void uncharge(size_t bytes) noexcept = 0;

 protected:
  ~LogMemory() = default;
};

template <class T>
class ChunkedLog {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "log entries are plain records");

 public:
  static constexpr size_t kChunkShift = 12;
  static constexpr size_t kChunkSize = size_t{1} << kChunkShift;

  static constexpr size_t kChunkBytes = kChunkSize * sizeof(T);

  // capacity: the most entries ever kept (rounded up to whole chunks).
  // memory: where chunks are charged (null: nowhere); must outlive the log.
  explicit ChunkedLog(size_t capacity, LogMemory* memory = nullptr)
      : max_chunks_((capacity + kChunkSize - 1) / kChunkSize),
        chunks_(std::make_unique<std::atomic<T*>[]>(max_chunks_)),
        memory_(memory) {}

  ~ChunkedLog() {
    size_t mapped = 0;
    for (size_t i = 0; i < max_chunks_; ++i) {
      if (T* chunk = chunks_[i].load(std::memory_order_relaxed)) {
        ::munmap(chunk, kChunkBytes);
        ++mapped;
      }
    }
    if (memory_ != nullptr) memory_->uncharge(mapped * kChunkBytes);
  }

  ChunkedLog(const ChunkedLog&) = delete;
  ChunkedLog& operator=(const ChunkedLog&) = delete;

  // Returns false (and counts the drop) when the capacity bound is reached.
  bool append(const T& value) {
    const size_t n = size_.load(std::memory_order_relaxed);  // only this thread writes it
    const size_t chunk = n >> kChunkShift;
    if ((n & (kChunkSize - 1)) == 0) {
      if (chunk >= max_chunks_) {
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return false;
      }
      if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
        if (memory_ != nullptr && !memory_->charge(kChunkBytes)) {
          dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
          return false;
        }
        T* fresh = nullptr;
        try {
          fresh = allocate_chunk();
        } catch (...) {
          if (memory_ != nullptr) memory_->uncharge(kChunkBytes);
          throw;
        }
        chunks_[chunk].store(fresh, std::memory_order_relaxed);
      }
    }
    chunks_[chunk].load(std::memory_order_relaxed)[n & (kChunkSize - 1)] = value;
    // Release: the entry (and a new chunk pointer) become visible with the size.
    size_.store(n + 1, std::memory_order_release);
    return true;
  }

  // Appends n entries copied from `bytes` (n * sizeof(T) bytes, any
  // alignment), published a chunk at a time: for a log filled from
  // elsewhere (a stream of another process's events). Returns how many were
  // kept; the rest hit a bound and are counted as dropped.
  size_t append_bytes(const void* bytes, size_t n) {
    const auto* from = static_cast<const unsigned char*>(bytes);
    size_t size = size_.load(std::memory_order_relaxed);
    size_t kept = 0;
    while (kept < n) {
      const size_t chunk = size >> kChunkShift;
      if (chunk >= max_chunks_) break;
      if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
        if (memory_ != nullptr && !memory_->charge(kChunkBytes)) break;
        T* fresh = nullptr;
        try {
          fresh = allocate_chunk();
        } catch (...) {
          if (memory_ != nullptr) memory_->uncharge(kChunkBytes);
          throw;
        }
        chunks_[chunk].store(fresh, std::memory_order_relaxed);
      }
      const size_t at = size & (kChunkSize - 1);
      const size_t take = std::min(n - kept, kChunkSize - at);
      std::memcpy(chunks_[chunk].load(std::memory_order_relaxed) + at, from + kept * sizeof(T), take * sizeof(T));
      kept += take;
      size += take;
      size_.store(size, std::memory_order_release);
    }
    if (kept < n) dropped_.store(dropped_.load(std::memory_order_relaxed) + (n - kept), std::memory_order_relaxed);
    return kept;
  }

  // Calls visit(const T* first, size_t n) for the runs of entries [from, to)
  // that lie contiguous in memory (a chunk's), in order.
  template <class Visit>
  void for_each_run(size_t from, size_t to, Visit&& visit) const {
    while (from < to) {
      const size_t take = std::min(to - from, kChunkSize - (from & (kChunkSize - 1)));
      visit(&(*this)[from], take);
      from += take;
    }
  }

  size_t size() const noexcept { return size_.load(std::memory_order_acquire); }
  uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  size_t capacity() const noexcept { return max_chunks_ * kChunkSize; }
  // Bytes this log holds: its mapped chunks (a reader's view: chunks
  // are mapped when the first entry of each is written).
  size_t chunk_bytes() const noexcept { return (size() + kChunkSize - 1) / kChunkSize * kChunkBytes; }
  // The chunk directory, allocated up front.
  size_t directory_bytes() const noexcept { return max_chunks_ * sizeof(std::atomic<T*>); }

  // Valid for i < a size() value this thread has loaded.
  const T& operator[](size_t i) const {
    return chunks_[i >> kChunkShift].load(std::memory_order_relaxed)[i & (kChunkSize - 1)];
  }

 private:
  // Pre-faulted in one call (MAP_POPULATE): recording then never takes a page
  // fault per 4 KiB, which at a million ops a second is a visible cost.
  static T* allocate_chunk() {
    void* p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  const size_t max_chunks_;
  std::unique_ptr<std::atomic<T*>[]> chunks_;
  std::atomic<size_t> size_{0};
  std::atomic<uint64_t> dropped_{0};
  LogMemory* const memory_;
};

}  // namespace asyncscope::trace
