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

bool Var::stream_successor(const VarLink* link) const {
  return unlaunched_ == 0 && num_reads_ + num_writes_ > 0 && link->op->stream_ordered;
}

OpRecord* Var::append_read(VarLink* link) {
  OpRecord* ready = nullptr;
  link->next = nullptr;
  std::lock_guard lock(lock_);
  if (head_ == nullptr && num_writes_ == 0) {
    count_grant(link);
    grant(link, ready, done_ns_);
  } else if (head_ == nullptr && stream_successor(link)) {
    count_grant(link, true);
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
  if (head_ == nullptr && num_writes_ == 0 && num_reads_ == 0) {
    count_grant(link);
    grant(link, ready, done_ns_);
  } else if (head_ == nullptr && stream_successor(link)) {
    count_grant(link, true);
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

void Var::grant_from_head(VarLink*& first, VarLink*& stop) {
  first = head_;
  while (num_writes_ == 0 && head_ != nullptr && !head_->write) {
    count_grant(head_);
    head_ = head_->next;
  }
  if (num_writes_ == 0 && head_ != nullptr && num_reads_ == 0) {
    count_grant(head_);
    head_ = head_->next;
  }
  if (head_ == nullptr) tail_ = nullptr;
  stop = head_;
  // Nothing granted the usual way: the next op may still follow by stream order.
  if (first == stop && head_ != nullptr && stream_successor(head_)) {
    count_grant(head_, true);
    head_ = head_->next;
    if (head_ == nullptr) tail_ = nullptr;
    stop = head_;
  }
}

namespace {

OpRecord* grant_links(VarLink* first, VarLink* stop, int64_t at) {
  OpRecord* ready = nullptr;
  for (VarLink* link = first; link != stop;) {
    VarLink* next = link->next;  // before the grant: once granted, the op may finish and be recycled
    grant(link, ready, at);
    link = next;
  }
  return ready;
}

}  // namespace

OpRecord* Var::complete(int& count, int64_t end_ns, bool launched) {
  VarLink* first = nullptr;
  VarLink* stop = nullptr;
  int64_t at = 0;
  {
    std::lock_guard lock(lock_);
    done_ns_ = std::max(done_ns_, end_ns);
    at = done_ns_;
    --count;
    if (!launched) --unlaunched_;
    grant_from_head(first, stop);
  }
  return grant_links(first, stop, at);
}

OpRecord* Var::launched() {
  VarLink* granted = nullptr;
  int64_t at = 0;
  {
    std::lock_guard lock(lock_);
    --unlaunched_;
    if (head_ != nullptr && stream_successor(head_)) {
      granted = head_;
      head_ = granted->next;
      if (head_ == nullptr) tail_ = nullptr;
      count_grant(granted, true);
      at = done_ns_;
    }
  }
  OpRecord* ready = nullptr;
  if (granted != nullptr) grant(granted, ready, at);
  return ready;
}

bool Var::ready_to_read() {
  std::lock_guard lock(lock_);
  return num_writes_ == 0 && head_ == nullptr;
}

bool Var::idle() {
  std::lock_guard lock(lock_);
  return num_writes_ == 0 && num_reads_ == 0 && head_ == nullptr;
}

}  // namespace asyncscope
