// HelpBoard: an op running on a CPU worker splits its work into parts and
// hands them to the idle workers of its pool, so that one large op (a matrix
// product) uses every core while nothing else is ready, and only its own core
// while other ops are.
//
// Protocol. The owner (the worker running the op) posts a job of `parts`
// parts and runs parts itself; an idle worker of the pool (spinning, or
// woken from sleep for it) joins and claims parts until none is left or an
// op appears in its queue. The owner takes the job off the board once every
// part is claimed, waits for the parts that helpers are still running, and
// returns; an exception from any part is rethrown on the owner. One job is
// posted per pool at a time: an owner that finds the board taken runs all of
// its parts itself. A part never waits for another part.
//
// Helpers record their time on the job in the trace as help spans
// (trace::SpanKind::help) of the owner's op, so a helping worker shows as
// busy with that op.
//
// Threading: run_parts() from the op's function on a worker thread; the rest
// is engine-internal (the pool's workers).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <utility>

#include "engine/core/op.h"
#include "engine/core/spin_lock.h"

namespace asyncscope {

class HelpBoard {
 public:
  using PartFn = void (*)(void* context, int part);

  using WakeFn = void (*)(void* arg);
  // helpers: how many other workers may join a job (the pool's size - 1);
  // wake(arg) is called when a job is posted, to wake sleeping workers.
  HelpBoard(int helpers, WakeFn wake, void* arg) : helpers_(helpers), wake_(wake), wake_arg_(arg) {}

  // The most workers besides the owner that can join: 0 means no help.
  int helpers() const noexcept { return helpers_; }

  // Owner: runs parts [0, parts) here and on joining workers; returns when
  // all ran; rethrows the first exception a part threw.
  void run(int parts, PartFn fn, void* context, uint64_t op);

  // Idle workers: whether a job is posted now (a hint; may be stale).
  bool posted() const noexcept { return job_.load(std::memory_order_relaxed) != nullptr; }

  // Idle workers: joins the posted job, if any, running parts while `leave()`
  // is false. Returns the job's op id if at least one part ran here, else 0.
  template <class Leave>
  uint64_t help(Leave leave);

 private:
  struct Job {
    PartFn fn = nullptr;
    void* context = nullptr;
    int parts = 0;
    uint64_t op = 0;
    std::atomic<int> next{0};  // the next part to claim
    std::atomic<int> done{0};  // parts finished (futex word for the owner)
    SpinLock error_lock;
    std::exception_ptr error;  // the first part's exception
  };
  // Claims and runs parts while leave() is false; returns how many ran.
  template <class Leave>
  static int work(Job& job, Leave leave);
  // One part, its exception kept on the job.
  static void run_part(Job& job, int part) noexcept;

  const int helpers_;
  const WakeFn wake_;
  void* const wake_arg_;
  alignas(64) std::atomic<Job*> job_{nullptr};
  std::atomic<int> users_{0};  // workers between looking at job_ and leaving it
};

// For op functions: runs body(part) for every part in [0, parts), spread over
// the idle workers of the op's pool when the engine offers them (rc.helpers),
// else in order on this thread. Returns when every part ran; rethrows the
// first exception a part threw.
template <class Body>
void run_parts(const RunContext& rc, int parts, Body&& body);

// How many workers besides this one could run parts of the op now or later
// (0 off the engine's CPU workers): an op sizes its parts with it.
inline int help_capacity(const RunContext& rc) noexcept { return rc.helpers ? rc.helpers->helpers() : 0; }

// ---- implementation ----

template <class Leave>
int HelpBoard::work(Job& job, Leave leave) {
  int ran = 0;
  while (!leave()) {
    const int part = job.next.fetch_add(1, std::memory_order_relaxed);
    if (part >= job.parts) break;
    run_part(job, part);
    ++ran;
    job.done.fetch_add(1, std::memory_order_release);
    job.done.notify_one();
  }
  return ran;
}

template <class Leave>
uint64_t HelpBoard::help(Leave leave) {
  if (!posted()) return 0;
  users_.fetch_add(1, std::memory_order_seq_cst);
  uint64_t op = 0;
  if (Job* job = job_.load(std::memory_order_seq_cst)) {
    if (work(*job, leave) > 0) op = job->op;
    // Every part claimed: off the board now, so idle workers stop looking at
    // it while the last parts run (the owner would only do it after its own).
    if (job->next.load(std::memory_order_relaxed) >= job->parts) {
      Job* expected = job;
      job_.compare_exchange_strong(expected, nullptr, std::memory_order_seq_cst);
    }
  }
  users_.fetch_sub(1, std::memory_order_seq_cst);
  return op;
}

template <class Body>
void run_parts(const RunContext& rc, int parts, Body&& body) {
  if (parts <= 0) return;
  using B = std::remove_reference_t<Body>;
  const HelpBoard::PartFn fn = [](void* context, int part) { (*static_cast<B*>(context))(part); };
  if (rc.helpers == nullptr) {
    for (int part = 0; part < parts; ++part) body(part);
    return;
  }
  rc.helpers->run(parts, fn, const_cast<void*>(static_cast<const void*>(&body)), rc.op_id);
}

}  // namespace asyncscope
