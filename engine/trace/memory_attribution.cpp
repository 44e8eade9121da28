#include "engine/trace/memory_attribution.h"

#include <algorithm>
#include <limits>

namespace asyncscope::trace {

std::string_view innermost_scope(std::string_view path) noexcept {
  const size_t cut = path.rfind(" > ");
  return cut == std::string_view::npos ? path : path.substr(cut + 3);
}

std::string holder_label(const Holder& h) {
  const std::string_view scope = innermost_scope(h.scope);
  if (scope.empty()) return h.op;
  // Autograd pushes a gradient in its op's scopes inside "backward" (or
  // "grad"): "mul in backward of dense0".
  for (const std::string_view call : {"backward", "grad"}) {
    const std::string_view path(h.scope);
    if (path.size() > call.size() + 3 && path.starts_with(call) && path.substr(call.size(), 3) == " > ") {
      return h.op + " in " + std::string(call) + " of " + std::string(scope);
    }
  }
  return h.op + " in " + std::string(scope);
}

namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

uint16_t device_key(DeviceKind device, uint8_t index) {
  return static_cast<uint16_t>((static_cast<unsigned>(device) << 8) | index);
}

// Appends e to a list sorted by time, moving it back past later events
// (events come nearly in order); checkpoints from its place on are stale.
template <class Event>
void insert_sorted(std::vector<Event>& events, const Event& e, size_t& valid_checkpoints, size_t step) {
  size_t p = events.size();
  while (p > 0 && events[p - 1].t > e.t) --p;
  events.insert(events.begin() + static_cast<std::ptrdiff_t>(p), e);
  valid_checkpoints = std::min(valid_checkpoints, p / step + 1);
}

}  // namespace

void MemoryAttribution::update(const TraceModel& model, uint64_t settled) {
  for (; !free_name_known_ && names_searched_ < model.names.size(); ++names_searched_) {
    if (model.names[names_searched_] == "free") {
      free_name_ = static_cast<NameId>(names_searched_);
      free_name_known_ = true;
    }
  }
  for (; attributed_ < model.ops.size(); ++attributed_) {
    const OpInfo& op = model.ops[attributed_];
    // Ops are read in push order, so a var's first writer comes before its
    // free; stop at one whose events are not all read yet.
    if (!op.known()) {
      if (attributed_ < settled) continue;  // an id the trace never had (its events were not recorded)
      break;
    }
    if (op.enqueue == kNoTime || !op.executed()) break;
    if (op.num_writes == 0) continue;
    const uint64_t* writes = model.writes_of(op);
    if (op.internal) {
      if (!free_name_known_ || op.name != free_name_) continue;
      for (uint16_t w = 0; w < op.num_writes; ++w) {
        const auto it = live_var_.find(writes[w]);
        if (it == live_var_.end()) continue;
        const LiveVar& v = it->second;
        DeviceMemory& m = memory_[v.memory];
        insert_sorted(m.frees, MemEvent{std::max(op.start, v.alloc), v.bytes, v.holder}, m.free_valid, kStep);
        live_var_.erase(it);
        ++version_;
      }
      continue;
    }
    // An op that did not run allocated nothing; one that threw may not have.
    if (op.status != OpStatus::ok || op.out_bytes == 0) continue;
    for (uint16_t w = 0; w < op.num_writes; ++w) {
      if (live_var_.count(writes[w]) != 0) continue;  // written before: an update in place
      const uint32_t line = op.source == 0 ? 0 : model.source_points[op.source - 1].line + 1;
      const HolderKey hk{op.name, line, op.scope};
      auto [hit, fresh] = holder_index_.try_emplace(hk, static_cast<uint32_t>(holder_keys_.size()));
      if (fresh) holder_keys_.push_back(hk);
      LiveVar v;
      v.holder = hit->second;
      // Every op of the vocabulary writes one array; one writing several is
      // split evenly among them.
      v.bytes = op.out_bytes / op.num_writes;
      v.alloc = op.end;
      DeviceMemory& m = memory_of(device_key(op.device, op.device_index));
      v.memory = static_cast<uint32_t>(&m - memory_.data());
      insert_sorted(m.allocs, MemEvent{v.alloc, v.bytes, v.holder}, m.alloc_valid, kStep);
      live_var_.emplace(writes[w], v);
      ++version_;
    }
  }
}

MemoryAttribution::DeviceMemory& MemoryAttribution::memory_of(uint16_t device) {
  for (DeviceMemory& m : memory_) {
    if (m.device == device) return m;
  }
  memory_.emplace_back();
  memory_.back().device = device;
  return memory_.back();
}

const MemoryAttribution::DeviceMemory* MemoryAttribution::find_memory(uint16_t device) const {
  for (const DeviceMemory& m : memory_) {
    if (m.device == device) return &m;
  }
  return nullptr;
}

// Per holder, the bytes and buffers of events at or before t.
MemoryAttribution::HolderSums MemoryAttribution::live_at(const DeviceMemory& m, int64_t t) const {
  const size_t holders = holder_keys_.size();
  const auto sums_up_to = [&](const std::vector<MemEvent>& events, std::vector<HolderSums>& sums, size_t& valid) {
    // Bring the checkpoints up to date (only those after an insertion point).
    const size_t want = events.size() / kStep + 1;
    sums.resize(want);
    if (valid == 0) {
      sums[0].assign(holders, {0, 0});
      valid = 1;
    }
    for (size_t k = valid; k < want; ++k) {
      sums[k] = sums[k - 1];
      sums[k].resize(holders, {0, 0});
      for (size_t i = (k - 1) * kStep; i < k * kStep; ++i) {
        sums[k][events[i].holder].first += events[i].bytes;
        ++sums[k][events[i].holder].second;
      }
    }
    valid = want;
    const size_t n = static_cast<size_t>(
        std::upper_bound(events.begin(), events.end(), t, [](int64_t x, const MemEvent& e) { return x < e.t; }) -
        events.begin());
    HolderSums out = sums[n / kStep];
    out.resize(holders, {0, 0});
    for (size_t i = n / kStep * kStep; i < n; ++i) {
      out[events[i].holder].first += events[i].bytes;
      ++out[events[i].holder].second;
    }
    return out;
  };
  HolderSums live = sums_up_to(m.allocs, m.alloc_sums, m.alloc_valid);
  const HolderSums freed = sums_up_to(m.frees, m.free_sums, m.free_valid);
  for (size_t h = 0; h < holders; ++h) {
    live[h].first -= freed[h].first;
    live[h].second -= freed[h].second;
  }
  return live;
}

HolderTable MemoryAttribution::table(const TraceModel& model, int64_t t, uint16_t device, size_t top) const {
  HolderTable out;
  out.t = t;
  const DeviceMemory* m = find_memory(device);
  if (m == nullptr) return out;
  const HolderSums per_holder = live_at(*m, t);
  std::vector<uint32_t> order;
  for (size_t h = 0; h < per_holder.size(); ++h) {
    if (per_holder[h].second == 0) continue;
    order.push_back(static_cast<uint32_t>(h));
    out.live_bytes += per_holder[h].first;
    out.buffers += per_holder[h].second;
  }
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    if (per_holder[x].first != per_holder[y].first) return per_holder[x].first > per_holder[y].first;
    return per_holder[x].second > per_holder[y].second;
  });
  if (order.size() > top) order.resize(top);
  for (uint32_t h : order) {
    const HolderKey& k = holder_keys_[h];
    Holder row;
    row.op = std::string(model.name(k.name));
    if (k.source_line != 0 && k.source_line - 1 < model.source_lines.size()) {
      const SourceLine& line = model.source_lines[k.source_line - 1];
      row.line = std::string(model.name(line.file)) + ":" + std::to_string(line.line);
    }
    row.scope = std::string(model.scope_text(k.scope));
    row.bytes = per_holder[h].first;
    row.count = per_holder[h].second;
    out.rows.push_back(std::move(row));
  }
  return out;
}

HolderTable MemoryAttribution::holders_at(const TraceModel& model, int64_t t, DeviceKind device, uint8_t device_index,
                                   size_t top) const {
  return table(model, t, device_key(device, device_index), top);
}

HolderTable MemoryAttribution::peak_holders(const TraceModel& model, DeviceKind device, uint8_t device_index,
                                     size_t top) const {
  const uint16_t key = device_key(device, device_index);
  auto& [version, at] = peak_cache_[key];
  if (version != version_ + 1) {
    // The live bytes as a step function over both sorted lists: at one
    // instant, frees first (a buffer freed and another allocated at the
    // same ns never both count).
    at = 0;
    if (const DeviceMemory* m = find_memory(key)) {
      int64_t live = 0, peak = 0;
      size_t i = 0, j = 0;
      while (i < m->allocs.size()) {
        const int64_t t = std::min(m->allocs[i].t, j < m->frees.size() ? m->frees[j].t : kForever);
        for (; j < m->frees.size() && m->frees[j].t == t; ++j) live -= static_cast<int64_t>(m->frees[j].bytes);
        for (; i < m->allocs.size() && m->allocs[i].t == t; ++i) live += static_cast<int64_t>(m->allocs[i].bytes);
        if (live > peak) {
          peak = live;
          at = t;
        }
      }
    }
    version = version_ + 1;  // 0 stays "never computed"
  }
  return table(model, at, key, top);
}

}  // namespace asyncscope::trace
