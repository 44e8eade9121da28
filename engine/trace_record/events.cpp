#include "engine/trace_record/events.h"

namespace asyncscope::trace {

const char* to_string(SyncKind kind) noexcept {
  switch (kind) {
    case SyncKind::wait_to_read: return "wait_to_read";
    case SyncKind::wait_all: return "wait_all";
    case SyncKind::to_host: return "to_host";
    case SyncKind::item: return "item";
    case SyncKind::print: return "print";
    case SyncKind::inflight_bound: return "inflight_bound";
  }
  return "unknown";
}

const char* to_string(OpStatus status) noexcept {
  switch (status) {
    case OpStatus::ok: return "ok";
    case OpStatus::failed: return "failed";
    case OpStatus::skipped: return "skipped";
    case OpStatus::cancelled: return "cancelled";
  }
  return "unknown";
}

}  // namespace asyncscope::trace
