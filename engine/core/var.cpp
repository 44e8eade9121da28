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

OpRecord* Var::complete_read(int64_t end_ns) {
  OpRecord* ready = nullptr;
  std::lock_guard lock(lock_);
  done_ns_ = std::max(done_ns_, end_ns);
  // A waiting head can only be a write here: reads never wait behind reads.
  if (--num_reads_ == 0 && head_ != nullptr) {
    VarLink* link = head_;
    head_ = link->next;
    if (head_ == nullptr) tail_ = nullptr;
    write_active_ = true;
    grant(link, ready, done_ns_);
  }
  return ready;
}

OpRecord* Var::complete_write(int64_t end_ns) {
  OpRecord* ready = nullptr;
  std::lock_guard lock(lock_);
  done_ns_ = std::max(done_ns_, end_ns);
  write_active_ = false;
  while (head_ != nullptr && !head_->write) {
    VarLink* link = head_;
    head_ = link->next;
    ++num_reads_;
    grant(link, ready, done_ns_);
  }
  if (head_ != nullptr && num_reads_ == 0) {
    VarLink* link = head_;
    head_ = link->next;
    write_active_ = true;
    grant(link, ready, done_ns_);
  }
  if (head_ == nullptr) tail_ = nullptr;
  return ready;
}

bool Var::ready_to_read() {
  std::lock_guard lock(lock_);
  return !write_active_ && head_ == nullptr;
}

}  // namespace asyncscope
