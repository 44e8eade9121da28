#include "engine/trace/model_check.h"

#include <limits>
#include <string_view>
#include <tuple>

#include "engine/base/quote.h"

namespace asyncscope::trace {
namespace {

std::string ns(int64_t t) { return std::to_string(t) + " ns"; }
std::string op_text(const OpInfo& op) { return "op " + std::to_string(op.id); }

// Each check returns "" or the first broken rule; first_violation runs them in turn.
class Checker {
 public:
  explicit Checker(const TraceModel& m) : m_(m) {}

  std::string run() {
    for (auto check : {&Checker::indices, &Checker::worker_lanes, &Checker::op_times, &Checker::frontend_lanes,
                       &Checker::sources, &Checker::names_and_counters}) {
      if (std::string why = (this->*check)(); !why.empty()) return why;
    }
    return "";
  }

 private:
  std::string lane_text(const WorkerLane& w) const { return "worker lane " + quote(w.name, '"'); }
  std::string lane_text(const FrontendLane& f) const { return "frontend " + quote(f.name, '"'); }

  // Every index one part of the model keeps into another is in range.
  std::string indices() const {
    for (const WorkerLane& w : m_.workers) {
      for (uint32_t op : w.ops) {
        if (op >= m_.ops.size()) return lane_text(w) + " lists op index " + std::to_string(op) + " of " + std::to_string(m_.ops.size());
      }
    }
    for (const FrontendLane& f : m_.frontends) {
      for (uint32_t op : f.enqueues) {
        if (op >= m_.ops.size()) return lane_text(f) + " lists op index " + std::to_string(op) + " of " + std::to_string(m_.ops.size());
      }
      for (uint32_t s : f.syncs) {
        if (s >= m_.syncs.size()) return lane_text(f) + " lists wait " + std::to_string(s) + " of " + std::to_string(m_.syncs.size());
      }
      for (uint32_t p : f.sources) {
        if (p >= m_.source_points.size()) {
          return lane_text(f) + " lists source point " + std::to_string(p) + " of " + std::to_string(m_.source_points.size());
        }
      }
    }
    for (const OpInfo& op : m_.ops) {
      if ((op.enqueue != kNoTime && op.frontend >= m_.frontends.size()) ||
          (op.executed() && op.worker >= m_.workers.size()) ||
          (op.launched() && op.launch_worker >= m_.workers.size()) || op.source > m_.source_points.size()) {
        return op_text(op) + " names a lane or source point the trace does not have";
      }
    }
    for (const SyncSpan& s : m_.syncs) {
      if (s.frontend >= m_.frontends.size() || s.source > m_.source_points.size()) {
        return "a wait names a frontend or source point the trace does not have";
      }
    }
    for (const SourcePoint& p : m_.source_points) {
      if (p.line >= m_.source_lines.size() || p.frontend >= m_.frontends.size()) {
        return "a source point names a line or frontend the trace does not have";
      }
    }
    return "";
  }

  std::string worker_lanes() const {
    const auto key = [](const WorkerLane& w) {
      return std::tuple(w.device, w.device_index, w.worker, w.launches() ? 0 : 1);
    };
    for (size_t lane = 0; lane < m_.workers.size(); ++lane) {
      const WorkerLane& w = m_.workers[lane];
      if (lane > 0 && !(key(m_.workers[lane - 1]) < key(w))) {
        return lane_text(w) + " comes after " + lane_text(m_.workers[lane - 1]) +
               " (lanes are ordered by device, device index, worker, launch before execution, each once)";
      }
      const OpInfo* prev = nullptr;
      for (uint32_t index : w.ops) {
        const OpInfo& op = m_.ops[index];
        const bool on_lane = w.launches() ? op.launched() && op.launch_worker == lane : op.executed() && op.worker == lane;
        if (!on_lane) return lane_text(w) + " lists " + op_text(op) + ", which has no span on it";
        if (prev != nullptr && w.start_of(op) < w.end_of(*prev)) {
          return "on " + lane_text(w) + ", " + op_text(op) + " starts at " + ns(w.start_of(op)) + ", before " +
                 op_text(*prev) + " ends at " + ns(w.end_of(*prev)) + " (spans on one lane never overlap)";
        }
        prev = &op;
      }
      if (std::string why = help_spans(w, lane); !why.empty()) return why;
    }
    return "";
  }

  // Help spans: on an execution lane, of an op another lane executed, in
  // time order, overlapping neither each other nor the lane's own ops.
  std::string help_spans(const WorkerLane& w, size_t lane) const {
    if (!w.helps.empty() && w.launches()) return lane_text(w) + " is a launch lane with help spans";
    size_t next_op = 0;
    int64_t prev_end = std::numeric_limits<int64_t>::min();
    for (const HelpSpan& h : w.helps) {
      if (h.op >= m_.ops.size()) return lane_text(w) + " helps with op index " + std::to_string(h.op) + " of " + std::to_string(m_.ops.size());
      const OpInfo& op = m_.ops[h.op];
      if (!op.executed() || op.worker == lane) {
        return "on " + lane_text(w) + ", a help span of " + op_text(op) + ", which no other lane executed";
      }
      if (h.end < h.start) return "on " + lane_text(w) + ", a help span of " + op_text(op) + " ends before it starts";
      if (h.start < prev_end) {
        return "on " + lane_text(w) + ", a help span of " + op_text(op) + " starts at " + ns(h.start) +
               ", before the span ahead of it ends at " + ns(prev_end) + " (spans on one lane never overlap)";
      }
      while (next_op < w.ops.size() && m_.ops[w.ops[next_op]].end <= h.start) ++next_op;
      if (next_op < w.ops.size() && m_.ops[w.ops[next_op]].start < h.end) {
        return "on " + lane_text(w) + ", a help span of " + op_text(op) + " (" + ns(h.start) + " to " + ns(h.end) +
               ") overlaps " + op_text(m_.ops[w.ops[next_op]]) + " (spans on one lane never overlap)";
      }
      prev_end = h.end;
    }
    return "";
  }

  std::string op_times() const {
    for (const OpInfo& op : m_.ops) {
      if (op.enqueue != kNoTime && op.executed() && op.start < op.enqueue) {
        return op_text(op) + " starts executing at " + ns(op.start) + ", before it was enqueued at " + ns(op.enqueue);
      }
      if (op.enqueue != kNoTime && op.launched() && op.launch_start < op.enqueue) {
        return op_text(op) + " starts its launch at " + ns(op.launch_start) + ", before it was enqueued at " +
               ns(op.enqueue);
      }
      if (op.launched() && op.executed() && op.start < op.launch_start) {
        return op_text(op) + " starts executing at " + ns(op.start) + ", before its launch began at " +
               ns(op.launch_start);
      }
    }
    return "";
  }

  std::string frontend_lanes() const {
    for (const FrontendLane& f : m_.frontends) {
      for (size_t k = 1; k < f.enqueues.size(); ++k) {
        const OpInfo& prev = m_.ops[f.enqueues[k - 1]];
        const OpInfo& op = m_.ops[f.enqueues[k]];
        if (op.enqueue < prev.enqueue) {
          return "on " + lane_text(f) + ", " + op_text(op) + " is enqueued at " + ns(op.enqueue) + ", before " +
                 op_text(prev) + " listed ahead of it (" + ns(prev.enqueue) + ")";
        }
      }
      for (size_t k = 1; k < f.syncs.size(); ++k) {
        const SyncSpan& prev = m_.syncs[f.syncs[k - 1]];
        const SyncSpan& s = m_.syncs[f.syncs[k]];
        if (s.begin < prev.end) {
          return "on " + lane_text(f) + ", wait " + std::to_string(f.syncs[k]) + " begins at " + ns(s.begin) +
                 ", before wait " + std::to_string(f.syncs[k - 1]) + " ends at " + ns(prev.end) +
                 " (a thread waits for one thing at a time)";
        }
      }
      // Both lists are time-sorted: walk them together.
      size_t s = 0;
      for (uint32_t index : f.enqueues) {
        const OpInfo& op = m_.ops[index];
        while (s < f.syncs.size() && m_.syncs[f.syncs[s]].end <= op.enqueue) ++s;
        if (s < f.syncs.size() && m_.syncs[f.syncs[s]].begin < op.enqueue) {
          const SyncSpan& w = m_.syncs[f.syncs[s]];
          return "on " + lane_text(f) + ", " + op_text(op) + " is enqueued at " + ns(op.enqueue) + ", inside wait " +
                 std::to_string(f.syncs[s]) + " [" + ns(w.begin) + ", " + ns(w.end) +
                 "] (a thread cannot push while it waits)";
        }
      }
      for (size_t k = 1; k < f.sources.size(); ++k) {
        if (m_.source_points[f.sources[k]].t < m_.source_points[f.sources[k - 1]].t) {
          return "on " + lane_text(f) + ", source point " + std::to_string(f.sources[k]) + " comes before source point " +
                 std::to_string(f.sources[k - 1]) + " in time";
        }
      }
    }
    return "";
  }

  // A source point attributes what its own frontend did after it.
  std::string source_of(uint32_t source, uint32_t frontend, int64_t t, const std::string& what) const {
    if (source == 0) return "";
    const SourcePoint& p = m_.source_points[source - 1];
    if (p.frontend != frontend) {
      return what + " has source point " + std::to_string(source - 1) + " of frontend " + std::to_string(p.frontend) +
             ", not of its own frontend " + std::to_string(frontend);
    }
    if (p.t > t) {
      return what + " at " + ns(t) + " has source point " + std::to_string(source - 1) + ", which is later (" + ns(p.t) + ")";
    }
    return "";
  }

  std::string sources() const {
    for (const OpInfo& op : m_.ops) {
      if (op.source != 0 && op.enqueue == kNoTime) return op_text(op) + " has a source point but no enqueue";
      if (std::string why = source_of(op.source, op.frontend, op.enqueue, op_text(op)); !why.empty()) return why;
    }
    for (size_t i = 0; i < m_.syncs.size(); ++i) {
      const SyncSpan& s = m_.syncs[i];
      if (std::string why = source_of(s.source, s.frontend, s.begin, "wait " + std::to_string(i)); !why.empty()) return why;
    }
    return "";
  }

  std::string names_and_counters() const {
    const auto named = [&](NameId name) { return name < m_.names.size(); };
    for (const OpInfo& op : m_.ops) {
      if (op.known() && !named(op.name)) return op_text(op) + " has name id " + std::to_string(op.name) + ", which is not in names";
    }
    for (const Marker& mk : m_.markers) {
      if (!named(mk.name)) return "a marker has name id " + std::to_string(mk.name) + ", which is not in names";
    }
    for (const SourceLine& line : m_.source_lines) {
      if (!named(line.file)) return "a source line has file name id " + std::to_string(line.file) + ", which is not in names";
    }
    for (size_t i = 1; i < m_.counters.size(); ++i) {
      if (m_.counters[i].t < m_.counters[i - 1].t) {
        return "counter sample " + std::to_string(i) + " at " + ns(m_.counters[i].t) + " comes after one at " +
               ns(m_.counters[i - 1].t) + " (samples are in time order)";
      }
    }
    return "";
  }

  const TraceModel& m_;
};

}  // namespace

std::string first_violation(const TraceModel& model) { return Checker(model).run(); }

}  // namespace asyncscope::trace
