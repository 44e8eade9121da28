#include "engine/trace/model.h"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace asyncscope::trace {

const OpInfo* TraceModel::find_op(uint64_t id) const noexcept {
  if (id < first_op_id || id - first_op_id >= ops.size()) return nullptr;
  const OpInfo& op = ops[id - first_op_id];
  return op.known() ? &op : nullptr;
}

std::string_view TraceModel::name(NameId id) const noexcept {
  return id < names.size() ? std::string_view(names[id]) : std::string_view();
}

int TraceModel::counter_index(std::string_view counter) const noexcept {
  for (size_t i = 0; i < counter_names.size(); ++i) {
    if (counter_names[i] == counter) return static_cast<int>(i);
  }
  return -1;
}

std::optional<int64_t> TraceModel::counter_peak(std::string_view counter) const noexcept {
  const int c = counter_index(counter);
  if (c < 0 || counters.empty()) return std::nullopt;
  int64_t peak = counters.front().values[c];
  for (const CounterSample& s : counters) peak = std::max(peak, s.values[c]);
  return peak;
}

std::optional<int64_t> TraceModel::counter_at(std::string_view counter, int64_t t) const noexcept {
  const int c = counter_index(counter);
  if (c < 0) return std::nullopt;
  // Samples are time-sorted: the last one at or before t.
  const auto after = std::upper_bound(counters.begin(), counters.end(), t,
                                      [](int64_t at, const CounterSample& s) { return at < s.t; });
  if (after == counters.begin()) return std::nullopt;
  return std::prev(after)->values[c];
}

std::string TraceModel::source_text(uint32_t source) const {
  const SourceLine* line = source_of(source);
  if (line == nullptr) return "";
  return std::string(name(line->file)) + ":" + std::to_string(line->line);
}

uint32_t TraceModel::intern_source_line(SourceLine line) {
  const auto key = [](const SourceLine& l) { return uint64_t{l.file} << 32 | l.line; };
  if (source_line_index.size() != source_lines.size()) {
    source_line_index.clear();
    for (size_t i = 0; i < source_lines.size(); ++i) source_line_index.emplace(key(source_lines[i]), static_cast<uint32_t>(i));
  }
  const auto [it, added] = source_line_index.emplace(key(line), static_cast<uint32_t>(source_lines.size()));
  if (added) source_lines.push_back(line);
  return it->second;
}

uint32_t TraceModel::intern_scope(std::string_view path) {
  if (path.empty()) return 0;
  if (scope_index.size() != scopes.size()) {
    scope_index.clear();
    for (size_t i = 0; i < scopes.size(); ++i) scope_index.emplace(scopes[i], static_cast<uint32_t>(i + 1));
  }
  const auto [it, added] = scope_index.emplace(std::string(path), static_cast<uint32_t>(scopes.size() + 1));
  if (added) scopes.emplace_back(path);
  return it->second;
}

int64_t TraceModel::end_time() const noexcept {
  int64_t t = 0;
  // A lane's spans never overlap, so its last one ends last.
  for (const WorkerLane& lane : workers) {
    if (!lane.ops.empty()) t = std::max(t, lane.end_of(ops[lane.ops.back()]));
    if (!lane.helps.empty()) t = std::max(t, lane.helps.back().end);
  }
  for (const FrontendLane& lane : frontends) {
    if (!lane.enqueues.empty()) t = std::max(t, ops[lane.enqueues.back()].enqueue);
    if (!lane.syncs.empty()) t = std::max(t, syncs[lane.syncs.back()].end);
  }
  if (!counters.empty()) t = std::max(t, counters.back().t);
  return t;
}

OpInfo& TraceReader::op_slot(TraceModel& model, uint64_t id) {
  const uint64_t index = id - model.first_op_id;
  if (index >= model.ops.size()) {
    const size_t old = model.ops.size();
    model.ops.resize(index + 1);
    for (size_t i = old; i < model.ops.size(); ++i) model.ops[i].id = model.first_op_id + i;
  }
  return model.ops[index];
}

uint16_t TraceReader::worker_lane(TraceModel& model, const ExecEvent& e, const ThreadBuffer& buffer) {
  // Lanes stay sorted by (device, device index, worker, launch before execute)
  // so they draw in a stable order, a stream's launch lane above its GPU lane.
  const auto key = [](DeviceKind d, uint8_t index, uint16_t worker, SpanKind span) {
    return std::tuple(d, index, worker, span == SpanKind::launch ? 0 : 1);
  };
  const SpanKind span = e.span == SpanKind::launch ? SpanKind::launch : SpanKind::execute;
  const auto wanted = key(e.device, e.device_index, e.worker, span);
  const auto key_of = [&](const WorkerLane& lane) { return key(lane.device, lane.device_index, lane.worker, lane.span); };
  auto it = std::lower_bound(model.workers.begin(), model.workers.end(), wanted,
                             [&](const WorkerLane& lane, const auto& k) { return key_of(lane) < k; });
  const auto pos = static_cast<size_t>(it - model.workers.begin());
  if (it != model.workers.end() && key_of(*it) == wanted) return static_cast<uint16_t>(pos);
  model.workers.insert(it, WorkerLane{buffer.name, e.device, e.device_index, e.worker, span, {}, {}});
  // Ops already placed on the lanes that moved down point at their new index.
  for (size_t i = pos + 1; i < model.workers.size(); ++i) {
    const bool launches = model.workers[i].launches();
    for (uint32_t op : model.workers[i].ops) {
      (launches ? model.ops[op].launch_worker : model.ops[op].worker) = static_cast<uint16_t>(i);
    }
  }
  return static_cast<uint16_t>(pos);
}

uint32_t TraceReader::frontend_lane(TraceModel& model, Cursor& cursor, const ThreadBuffer& buffer) {
  if (cursor.frontend < 0) {
    cursor.frontend = static_cast<int>(model.frontends.size());
    model.frontends.push_back(FrontendLane{buffer.name, {}, {}, {}});
  }
  return static_cast<uint32_t>(cursor.frontend);
}

bool TraceReader::update(TraceModel& model) {
  bool changed = false;
  if (model.ops.empty()) {
    model.origin_ns = recorder_->origin_ns();
    model.first_op_id = recorder_->first_op_id();
  }
  const int64_t origin = recorder_->origin_ns();
  const auto rel = [origin](int64_t t) { return t - origin; };

  // Names first: events read below may use names interned just before them.
  std::vector<std::string> names = all_names();
  if (names.size() != names_read_) {
    model.names = std::move(names);
    names_read_ = model.names.size();
  }

  const std::vector<const ThreadBuffer*> buffers = recorder_->threads();
  if (cursors_.size() < buffers.size()) cursors_.resize(buffers.size());
  for (const ThreadBuffer* buffer : buffers) {
    Cursor& cursor = cursors_[buffer->index];

    // Enqueues and waits are counted before the source events: a source
    // event is appended before the enqueues and waits it accounts for, so
    // every one counted here has its source among those read below.
    const size_t num_enqueues = buffer->enqueues.size();
    const size_t num_syncs = buffer->syncs.size();
    const size_t num_sources = buffer->sources.size();
    const size_t num_scope_events = buffer->scopes.size();
    for (; cursor.scope_events < num_scope_events; ++cursor.scope_events) {
      const ScopeEvent& e = buffer->scopes[cursor.scope_events];
      if (e.enter != 0) {
        cursor.scope_stack.push_back(e.name);
      } else if (!cursor.scope_stack.empty()) {
        cursor.scope_stack.pop_back();
      }
      std::string path;
      for (const NameId n : cursor.scope_stack) {
        if (!path.empty()) path += " > ";
        path += model.name(n);
      }
      cursor.scope_marks.push_back(SourceMark{rel(e.t), model.intern_scope(path)});
      changed = true;
    }
    if (cursor.sources < num_sources) {
      const uint32_t lane = frontend_lane(model, cursor, *buffer);
      for (; cursor.sources < num_sources; ++cursor.sources) {
        const SourceEvent& e = buffer->sources[cursor.sources];
        uint32_t source = 0;  // line 0: the frontend left the script
        if (e.line != 0) {
          const uint32_t line = model.intern_source_line(SourceLine{e.file, e.line});
          model.frontends[lane].sources.push_back(static_cast<uint32_t>(model.source_points.size()));
          model.source_points.push_back(SourcePoint{rel(e.t), line, lane});
          source = static_cast<uint32_t>(model.source_points.size());
        }
        cursor.marks.push_back(SourceMark{rel(e.t), source});
      }
      changed = true;
    }
    // The source of an event at time t: the lane's latest source mark at or before t.
    const auto mark_at = [](const std::vector<SourceMark>& marks, size_t& position, int64_t t) -> uint32_t {
      while (position < marks.size() && marks[position].t <= t) ++position;
      return position == 0 ? 0 : marks[position - 1].source;
    };
    const auto source_at = [&](size_t& position, int64_t t) { return mark_at(cursor.marks, position, t); };

    const size_t num_vars = buffer->vars.size();
    for (; cursor.enqueues < num_enqueues; ++cursor.enqueues) {
      const EnqueueEvent& e = buffer->enqueues[cursor.enqueues];
      if (e.op < model.first_op_id) continue;
      const uint32_t lane = frontend_lane(model, cursor, *buffer);
      OpInfo& op = op_slot(model, e.op);
      op.enqueue = rel(e.t);
      op.out_bytes = e.out_bytes;
      op.push_ns = static_cast<uint32_t>(e.push_ns);
      op.iteration = e.iteration;
      op.name = e.name;
      op.frontend = lane;
      op.device = e.device;
      op.device_index = e.device_index;
      op.internal = e.internal != 0;
      op.source = source_at(cursor.enqueue_source, op.enqueue);
      op.scope = mark_at(cursor.scope_marks, cursor.enqueue_scope, op.enqueue);
      op.vars_begin = static_cast<uint32_t>(model.var_ids.size());
      const size_t num_ids = size_t{e.num_reads} + e.num_writes;
      if (num_ids <= static_cast<size_t>(kInlineVarIds)) {
        op.num_reads = e.num_reads;
        op.num_writes = e.num_writes;
        model.var_ids.insert(model.var_ids.end(), e.inline_vars, e.inline_vars + num_ids);
      } else if (e.vars_offset <= num_vars && num_ids <= num_vars - e.vars_offset) {
        // (else the var log hit its bound, counted in dropped; written so no sum can wrap)
        op.num_reads = e.num_reads;
        op.num_writes = e.num_writes;
        for (size_t i = 0; i < num_ids; ++i) model.var_ids.push_back(buffer->vars[e.vars_offset + i]);
      }
      model.frontends[lane].enqueues.push_back(static_cast<uint32_t>(e.op - model.first_op_id));
      changed = true;
    }

    const size_t num_execs = buffer->execs.size();
    for (; cursor.execs < num_execs; ++cursor.execs) {
      const ExecEvent& e = buffer->execs[cursor.execs];
      if (e.op < model.first_op_id) continue;
      const uint16_t lane = worker_lane(model, e, *buffer);
      OpInfo& op = op_slot(model, e.op);
      if (e.span == SpanKind::help) {
        model.workers[lane].helps.push_back(HelpSpan{static_cast<uint32_t>(e.op - model.first_op_id), rel(e.start), rel(e.end)});
        changed = true;
        continue;
      }
      if (model.workers[lane].launches()) {
        op.launch_start = rel(e.start);
        op.launch_end = rel(e.end);
        op.launch_worker = lane;
        // The execution's status wins, whichever span is read first.
        if (!op.executed()) op.status = e.status;
      } else {
        op.start = rel(e.start);
        op.end = rel(e.end);
        op.worker = lane;
        op.status = e.status;
      }
      model.workers[lane].ops.push_back(static_cast<uint32_t>(e.op - model.first_op_id));
      changed = true;
    }

    for (; cursor.syncs < num_syncs; ++cursor.syncs) {
      const SyncEvent& e = buffer->syncs[cursor.syncs];
      const uint32_t lane = frontend_lane(model, cursor, *buffer);
      model.frontends[lane].syncs.push_back(static_cast<uint32_t>(model.syncs.size()));
      model.syncs.push_back(SyncSpan{rel(e.begin), rel(e.end), e.target, e.last_op, lane, e.kind,
                                     source_at(cursor.sync_source, rel(e.begin))});
      changed = true;
    }

    const size_t num_markers = buffer->markers.size();
    for (; cursor.markers < num_markers; ++cursor.markers) {
      const MarkerEvent& e = buffer->markers[cursor.markers];
      const uint32_t lane = frontend_lane(model, cursor, *buffer);
      model.markers.push_back(Marker{rel(e.t), e.value, e.name, lane});
      changed = true;
    }
  }

  const ChunkedLog<CounterSample>& counters = recorder_->counter_log();
  const size_t num_counters = counters.size();
  if (num_counters > counters_read_ && model.counter_names.empty()) model.counter_names = recorder_->counter_names();
  for (; counters_read_ < num_counters; ++counters_read_) {
    CounterSample s = counters[counters_read_];
    s.t = rel(s.t);
    model.counters.push_back(s);
    changed = true;
  }

  for (auto& [op, text] : recorder_->errors(errors_read_)) {
    model.errors[op] = std::move(text);
    ++errors_read_;
    changed = true;
  }
  // Once a log is full, new events only raise this count: still a change to show.
  if (const uint64_t dropped = recorder_->dropped(); dropped != model.dropped) {
    model.dropped = dropped;
    changed = true;
  }
  return changed;
}

TraceModel snapshot(const Recorder& recorder) {
  TraceModel model;
  TraceReader reader(recorder);
  reader.update(model);
  return model;
}

}  // namespace asyncscope::trace
