// Var: one piece of state (an NDArray's buffer) that ops read and write.
//
// Each Var keeps the queue of ops waiting to use it. Invariants (guarded by
// lock_):
//   - num_reads_ / num_writes_ count the reads and writes that were granted
//     and have not completed. Normally never both, and at most one write.
//   - Waiting entries form a FIFO (head_..tail_) in push order. An entry waits
//     only behind a granted or waiting write, or (a write) behind granted
//     reads, so granting always proceeds from the head: consecutive reads
//     together, a write alone.
//   - Stream order (the exception): when every granted op has been launched
//     on the one in-order device stream (unlaunched_ == 0) and the next op
//     runs on that stream too (OpRecord::stream_ordered), the next op is
//     granted at once, beside them: the stream runs its work after theirs,
//     so the device never idles for a completion round trip between
//     dependent kernels. It counts as granted (reads or writes) until it
//     completes, so host ops and sync points still wait for the device; an
//     error that the earlier ops' completion finds is passed on when the
//     successor completes (ThreadedEngine's completer).
//   - unlaunched_ counts granted ops not (yet) launched on the stream: host
//     ops, sync markers and GPU ops before their launch.
// Grants decrement the op's wait count; the op that reaches zero is dispatched
// after the lock is released, never under it, and no thread ever holds two
// var locks, so there is no lock-order deadlock.
//
// Threading: created and deleted through an Engine; id() from any thread; the
// rest is engine-internal.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>

#include "engine/core/spin_lock.h"

namespace asyncscope {

struct OpRecord;

// One op's place in one var's queue; lives inside the op record.
struct VarLink {
  OpRecord* op = nullptr;
  class Var* var = nullptr;
  VarLink* next = nullptr;
  bool write = false;
  // Set under the var's lock when the grant came by stream order: the op
  // ahead of it on this var may still be on the device, and the completer
  // writes its error (Var::error) when it finishes, so the granted op reads
  // that error only on the completer, after it (never at launch).
  bool by_stream = false;
};

// Layout: the dependency queue and the error share one cache line, which the
// frontend and the workers both write on every op (a var that straddled two
// lines, or shared one with its neighbour, cost two transfers per lock). The
// id, read by the frontend to trace every push, sits on a second line that
// nobody writes while the var lives, so that read hits a shared copy.
class alignas(64) Var {
 public:
  explicit Var(uint64_t id) : id_(id) {}
  uint64_t id() const noexcept { return id_; }

  // Dependency tracking. Each returns the ops that became ready (wait count
  // reached zero), chained through OpRecord::next, for the caller to dispatch.
  // The completions take the finished op's traced end (0: untraced). Every
  // grant passes on the latest end of any op that completed on this var as
  // the granted op's earliest start (OpRecord::ready_ns): each end is read
  // before its completion is published, so that bound is never later than
  // the grant itself, and the trace shows every op starting after the ops it
  // depends on ended, however early its own worker's clock read ran.
  // `launched`: the completing op was launched on the device stream
  // (launched() was called for it), so it no longer counts in unlaunched_.
  OpRecord* append_read(VarLink* link);
  OpRecord* append_write(VarLink* link);
  OpRecord* complete_read(int64_t end_ns = 0, bool launched = false) { return complete(num_reads_, end_ns, launched); }
  OpRecord* complete_write(int64_t end_ns = 0, bool launched = false) { return complete(num_writes_, end_ns, launched); }
  // A stream-ordered op holding a grant here was launched (its work is on the
  // stream); returns the stream-ordered op next in line if that grants it.
  OpRecord* launched();

  // True when no write is granted or waiting: the value can be read now.
  bool ready_to_read();
  // True when no op holds a grant on this var or waits in its queue: nothing
  // pushed on it can still run, so a caller holding the last reference may
  // free it at once. A completion may still be returning from this var's
  // lock; its grants were all of ops on other vars' queues or none.
  bool idle();

  // Set by the op that wrote the var last (null on success); read by ops and
  // sync points holding a read grant, which orders them after that write.
  std::exception_ptr error;

 private:
  friend class VarPool;
  // A granted read or write (counted in `count`) finished.
  OpRecord* complete(int& count, int64_t end_ns, bool launched);
  // Under lock_: grants from the head of the queue (the completions' rule),
  // returning the links granted as [first, stop).
  void grant_from_head(VarLink*& first, VarLink*& stop);
  // Under lock_: whether `link` may be granted now by stream order.
  bool stream_successor(const VarLink* link) const;
  void count_grant(VarLink* link, bool by_stream = false) {
    link->by_stream = by_stream;
    (link->write ? num_writes_ : num_reads_) += 1;
    ++unlaunched_;
  }

  SpinLock lock_;
  int num_reads_ = 0;
  int num_writes_ = 0;
  int unlaunched_ = 0;
  VarLink* head_ = nullptr;
  VarLink* tail_ = nullptr;
  int64_t done_ns_ = 0;  // latest traced end of an op that completed here
  // The VarPool's, while the var is free: its link, and the depth of the
  // given stack from here down (a hint; atomic because a giver may read it
  // while a taker reuses the var). On this line, which the giver writes
  // anyway, not on the id's.
  Var* next_free_ = nullptr;
  std::atomic<uint32_t> free_depth_{0};
  alignas(64) uint64_t id_;
};
static_assert(sizeof(Var) == 128, "the queue, the error and the pool's link on one line, the id on the next");

}  // namespace asyncscope
