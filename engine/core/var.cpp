#include "engine/core/var.h"

#include <algorithm>
#include <mutex>

#include "engine/core/op_record.h"

namespace asyncscope {
namespace {

// Appends op to a chain of ready ops when its last dependency was granted.
inline void grant(VarLink* link, OpRecord*& ready, int64_t at) {
  if (link->op->grant(at)) {
    link->op->next = ready;
    ready = link->op;
  }
}

}  // namespace

OpRecord* Var::append_read(VarLink* link) {
  OpRecord* ready = nullptr;
  link->next = nullptr;
  std::lock_guard lock(lock_);
  if (!write_active_ && head_ == nullptr) {
    ++num_reads_;
    grant(link, ready, done_ns_);
  } else if (tail_) {
    tail_ = tail_->next = link;
  } else {
    head_ = tail_ = link;
  }
  return ready;
}

OpRecord* Var::append_write(VarLink* link) {
  OpRecord* ready = nullptr;
  link->next = nullptr;
  std::lock_guard lock(lock_);
  if (!write_active_ && head_ == nullptr && num_reads_ == 0) {
    write_active_ = true;
    grant(link, ready, done_ns_);
  } else if (tail_) {
    tail_ = tail_->next = link;
  } else {
    head_ = tail_ = link;
  }
  return ready;
}

// The completions update the queue under the lock but grant outside it: a
// grant writes the granted op's record, a line the pushing thread wrote last,
// and waiting for it while holding the lock kept the frontend spinning on it.
// The links taken off the queue are never written again by the var, and each
// stays valid until it is granted (its op cannot run before that).

OpRecord* Var::complete_read(int64_t end_ns) {
  VarLink* granted = nullptr;
  int64_t at = 0;
  {
    std::lock_guard lock(lock_);
    done_ns_ = std::max(done_ns_, end_ns);
    at = done_ns_;
    // A waiting head can only be a write here: reads never wait behind reads.
    if (--num_reads_ == 0 && head_ != nullptr) {
      granted = head_;
      head_ = granted->next;
      if (head_ == nullptr) tail_ = nullptr;
      write_active_ = true;
    }
  }
  OpRecord* ready = nullptr;
  if (granted != nullptr) grant(granted, ready, at);
  return ready;
}

OpRecord* Var::complete_write(int64_t end_ns) {
  VarLink* first = nullptr;  // the links granted: first up to (not including) stop
  VarLink* stop = nullptr;
  int64_t at = 0;
  {
    std::lock_guard lock(lock_);
    done_ns_ = std::max(done_ns_, end_ns);
    at = done_ns_;
    write_active_ = false;
    first = head_;
    while (head_ != nullptr && !head_->write) {
      head_ = head_->next;
      ++num_reads_;
    }
    if (head_ != nullptr && num_reads_ == 0) {
      head_ = head_->next;
      write_active_ = true;
    }
    if (head_ == nullptr) tail_ = nullptr;
    stop = head_;
  }
  OpRecord* ready = nullptr;
  for (VarLink* link = first; link != stop;) {
    VarLink* next = link->next;  // before the grant: once granted, the op may finish and be recycled
    grant(link, ready, at);
    link = next;
  }
  return ready;
}

bool Var::ready_to_read() {
  std::lock_guard lock(lock_);
  return !write_active_ && head_ == nullptr;
}

bool Var::idle() {
  std::lock_guard lock(lock_);
  return !write_active_ && num_reads_ == 0 && head_ == nullptr;
}

}  // namespace asyncscope
