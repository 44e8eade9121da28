#include "engine/trace/profile_model.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include "engine/base/quote.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace_record/counters.h"
#include "engine/trace/model_slice.h"
#include "engine/trace/trace_file.h"

namespace asyncscope::trace {

bool sync_call_kind(std::string_view n, SyncKind& kind) noexcept {
  if (n == "cudaDeviceSynchronize" || n == "hipDeviceSynchronize" || n == "MXNDArrayWaitAll") {
    kind = SyncKind::wait_all;
  } else if (n == "cudaStreamSynchronize" || n == "cudaEventSynchronize" || n == "hipStreamSynchronize" ||
             n == "hipEventSynchronize" || n == "MXNDArrayWaitToRead" || n == "MXNDArrayWaitToWrite") {
    kind = SyncKind::wait_to_read;
  } else if (n == "cudaMemcpy" || n == "hipMemcpy" || n == "MXNDArraySyncCopyToCPU") {
    kind = SyncKind::to_host;
  } else {
    return false;
  }
  return true;
}

namespace {

struct LaneBuild {
  DeviceKind device = DeviceKind::cpu;
  uint8_t device_index = 0;
  uint16_t worker = 0;
  uint32_t profile_lane = 0;
  uint32_t row = 0;
  std::string name;
};

// The device an MXNet operator thread works for, from its process ("gpu/0").
bool mxnet_gpu(const ProfileTrace& p, const ProfileLane& l, uint8_t& index) {
  if (p.format != ProfileFormat::mxnet || l.process.rfind("gpu/", 0) != 0) return false;
  int v = 0;
  for (size_t i = 4; i < l.process.size() && l.process[i] >= '0' && l.process[i] <= '9'; ++i) {
    v = std::min(255, v * 10 + (l.process[i] - '0'));
  }
  index = static_cast<uint8_t>(v);
  return true;
}

// Adds step changes of a series (t, value) to `deltas` as (t, counter, change).
void add_deltas(const std::vector<std::pair<int64_t, int64_t>>& series, int counter,
                std::vector<std::tuple<int64_t, int, int64_t>>& deltas) {
  int64_t last = 0;
  for (const auto& [t, v] : series) {
    if (v != last) deltas.emplace_back(t, counter, v - last);
    last = v;
  }
}

}  // namespace

ProfileModel model_of(const ProfileTrace& p, const ProfileFigures& figures) {
  ProfileModel out;
  TraceModel& m = out.model;
  m.names = p.names;
  m.first_op_id = 1;

  // Lanes: one per sub-row of each profile lane, ordered by the model's key.
  std::vector<LaneBuild> builds;
  std::map<std::pair<DeviceKind, uint8_t>, uint32_t> next_worker;
  uint64_t lanes_dropped = 0;
  for (uint32_t l = 0; l < p.lanes.size(); ++l) {
    const ProfileLane& lane = p.lanes[l];
    if (lane.spans == 0) continue;
    LaneBuild b;
    b.profile_lane = l;
    uint8_t index = 0;
    if (lane.gpu) {
      b.device = DeviceKind::cuda;
      b.device_index = static_cast<uint8_t>(std::min<uint32_t>(lane.device, 255));
    } else if (mxnet_gpu(p, lane, index)) {
      b.device = DeviceKind::cuda;
      b.device_index = index;
    }
    for (uint32_t r = 0; r < lane.rows; ++r) {
      uint32_t& w = next_worker[{b.device, b.device_index}];
      if (w > std::numeric_limits<uint16_t>::max()) {
        ++lanes_dropped;
        continue;
      }
      b.worker = static_cast<uint16_t>(w++);
      b.row = r;
      // Sub-rows named by their row, so the lane column's width shows what they are.
      b.name = r == 0 ? lane.name : "  row " + std::to_string(r + 1) + " of " + lane.name;
      builds.push_back(b);
    }
  }
  std::stable_sort(builds.begin(), builds.end(), [](const LaneBuild& a, const LaneBuild& b) {
    return std::tie(a.device, a.device_index, a.worker) < std::tie(b.device, b.device_index, b.worker);
  });
  std::map<std::pair<uint32_t, uint32_t>, uint16_t> lane_of;  // (profile lane, row) -> worker lane
  for (const LaneBuild& b : builds) {
    WorkerLane w;
    w.name = b.name;
    w.device = b.device;
    w.device_index = b.device_index;
    w.worker = b.worker;
    w.span = SpanKind::execute;
    lane_of[{b.profile_lane, b.row}] = static_cast<uint16_t>(m.workers.size());
    m.workers.push_back(std::move(w));
  }

  // Frontends: threads that launched GPU work or waited.
  std::vector<int> frontend_of(p.lanes.size(), -1);
  const auto frontend = [&](uint32_t lane) {
    if (frontend_of[lane] < 0) {
      frontend_of[lane] = static_cast<int>(m.frontends.size());
      m.frontends.push_back(FrontendLane{p.lanes[lane].name, {}, {}, {}});
    }
    return static_cast<uint32_t>(frontend_of[lane]);
  };

  // Ops: every span, in span order (lane, start), so each lane's ops come sorted.
  m.ops.resize(p.spans.size());
  uint64_t skewed = 0;
  for (size_t i = 0; i < p.spans.size(); ++i) {
    const ProfileSpan& s = p.spans[i];
    OpInfo& op = m.ops[i];
    op.id = m.first_op_id + i;
    op.start = s.start;
    op.end = s.end();
    op.name = s.name;
    const auto it = lane_of.find({s.lane, s.row});
    if (it == lane_of.end()) continue;  // a lane past the model's limit: its spans stay unknown
    const WorkerLane& w = m.workers[it->second];
    op.worker = it->second;
    op.device = w.device;
    op.device_index = w.device_index;
    m.workers[it->second].ops.push_back(static_cast<uint32_t>(i));
    if (is_gpu_op(s.kind) && s.link != kNoSpan) {
      const ProfileSpan& launch = p.spans[s.link];
      if (p.lanes[launch.lane].gpu) continue;
      if (launch.start > s.start) {
        ++skewed;
        continue;
      }
      op.enqueue = launch.start;
      // Saturated as the recorder saturates it (the call's whole span is on the thread's lane).
      op.push_ns = static_cast<uint32_t>(std::min<int64_t>(launch.dur, static_cast<int64_t>(kMaxPushNs)));
      op.frontend = frontend(launch.lane);
    }
  }
  // Waits: each thread's synchronising calls, outermost only.
  std::vector<int64_t> wait_end(p.lanes.size(), std::numeric_limits<int64_t>::min());
  for (const ProfileSpan& s : p.spans) {
    SyncKind kind{};
    if (p.lanes[s.lane].gpu || !sync_call_kind(p.name(s), kind)) continue;
    if (s.start < wait_end[s.lane]) continue;  // inside the previous wait
    wait_end[s.lane] = s.end();
    SyncSpan w;
    w.begin = s.start;
    w.end = s.end();
    w.kind = kind;
    w.frontend = frontend(s.lane);
    m.syncs.push_back(w);
  }
  std::stable_sort(m.syncs.begin(), m.syncs.end(), [](const SyncSpan& a, const SyncSpan& b) {
    return std::tie(a.frontend, a.begin) < std::tie(b.frontend, b.begin);
  });
  for (uint32_t k = 0; k < m.syncs.size(); ++k) m.frontends[m.syncs[k].frontend].syncs.push_back(k);
  // Enqueues in time order; one strictly inside a wait of its thread (no such
  // call returns while it blocks) is not drawn as an enqueue.
  uint64_t inside_waits = 0;
  for (uint32_t i = 0; i < m.ops.size(); ++i) {
    OpInfo& op = m.ops[i];
    if (op.enqueue == kNoTime) continue;
    const FrontendLane& f = m.frontends[op.frontend];
    const auto after = std::upper_bound(f.syncs.begin(), f.syncs.end(), op.enqueue,
                                        [&m](int64_t t, uint32_t k) { return t < m.syncs[k].begin; });
    if (after != f.syncs.begin()) {
      const SyncSpan& w = m.syncs[*std::prev(after)];
      if (op.enqueue > w.begin && op.enqueue < w.end) {
        op.enqueue = kNoTime;
        op.push_ns = 0;
        ++inside_waits;
        continue;
      }
    }
    m.frontends[op.frontend].enqueues.push_back(i);
  }
  for (FrontendLane& f : m.frontends) {
    std::stable_sort(f.enqueues.begin(), f.enqueues.end(),
                     [&m](uint32_t a, uint32_t b) { return m.ops[a].enqueue < m.ops[b].enqueue; });
  }

  // Counters: queue depth, host and GPU live bytes.
  std::vector<std::tuple<int64_t, int, int64_t>> deltas;
  std::vector<std::string> names;
  const auto counter = [&names](const char* name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<int>(it - names.begin());
    names.emplace_back(name);
    return static_cast<int>(names.size() - 1);
  };
  if (figures.queue_estimated) {
    if (!figures.estimated_queue.empty()) add_deltas(figures.estimated_queue, counter(kQueueCounter), deltas);
  } else {
    for (const auto& series : figures.queue) {
      if (!series.empty()) add_deltas(series, counter(kQueueCounter), deltas);
    }
  }
  for (const DeviceMemorySeries& d : figures.memory) {
    if (d.live.empty()) continue;
    add_deltas(d.live, counter(d.device_type == 1 ? kDeviceLiveCounter : kLiveCounter), deltas);
  }
  if (names.size() <= static_cast<size_t>(kMaxCounters)) {
    m.counter_names = names;
    std::stable_sort(deltas.begin(), deltas.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    CounterSample current;
    for (size_t k = 0; k < deltas.size();) {
      const int64_t t = std::get<0>(deltas[k]);
      for (; k < deltas.size() && std::get<0>(deltas[k]) == t; ++k) current.values[std::get<1>(deltas[k])] += std::get<2>(deltas[k]);
      current.t = t;
      m.counters.push_back(current);
    }
  }

  if (skewed > 0) {
    out.notes.push_back(std::to_string(skewed) +
                        " GPU ops start before their launch call began (the host's and the GPU's clocks disagree): "
                        "drawn without their enqueue");
  }
  if (inside_waits > 0) {
    out.notes.push_back(std::to_string(inside_waits) + " launches fall inside a synchronising call of their thread: "
                                                       "drawn as spans, not as enqueues");
  }
  if (lanes_dropped > 0) {
    out.notes.push_back(std::to_string(lanes_dropped) + " sub-rows past 65,536 lanes of one device are not drawn");
  }
  return out;
}

std::string OpenedTrace::format_key() const { return profile ? key_of(profile->format) : "asyncscope"; }

std::string OpenedTrace::format_text() const { return profile ? to_string(profile->format) : "asyncscope export"; }

namespace {

// A profiler's trace as an opened one: its figures, its model, and the notes of both.
OpenedTrace opened_profile(std::shared_ptr<const ProfileTrace> profile, const AnalysisOptions& options) {
  OpenedTrace out;
  out.profile = std::move(profile);
  const ProfileTrace& p = *out.profile;
  auto figures = std::make_shared<ProfileFigures>(analyze_profile(p, options));
  ProfileModel pm = model_of(p, *figures);
  out.model = std::move(pm.model);
  out.figures = std::move(figures);
  out.notes = p.notes;
  for (const SkippedEvents& s : p.skipped) {
    out.notes.push_back("skipped " + std::to_string(s.count) + (s.count == 1 ? " event: " : " events: ") + s.reason +
                        " (first: event " + std::to_string(s.first_event) +
                        (s.first_name.empty() ? "" : ", " + quote(s.first_name)) + ")");
  }
  for (std::string& n : pm.notes) out.notes.push_back(std::move(n));
  if (!out.figures->steps_note.empty()) out.notes.push_back(out.figures->steps_note);
  return out;
}

}  // namespace

OpenedTrace open_trace(const std::string& path, const AnalysisOptions& options) {
  std::shared_ptr<const ProfileTrace> profile;
  bool ours = false;
  {
    TraceFile file(path);
    try {
      // Our exports name their version in the first bytes (otherData comes first).
      ours = file.head(4096).find("\"asyncscope_version\"") != std::string_view::npos;
      if (ours) {
        OpenedTrace out;
        out.model = parse_chrome_trace(file.stream(), quote(path));
        return out;
      }
      profile = std::make_shared<const ProfileTrace>(parse_profile(file.stream(), quote(path)));
    } catch (const TraceReadError& e) {
      throw file.error(e.what());
    } catch (const AsyncscopeExport&) {
      ours = true;  // our own, with its metadata after the events: read it as ours
    }
  }
  if (ours) {
    OpenedTrace out;
    out.model = read_chrome_trace(path);
    return out;
  }
  return opened_profile(std::move(profile), options);
}

OpenedTrace window_of(const OpenedTrace& trace, int64_t from, int64_t to, const AnalysisOptions& options) {
  if (!trace.foreign()) {
    OpenedTrace out;
    out.model = slice(trace.model, from, to);
    out.notes = trace.notes;
    return out;
  }
  return opened_profile(std::make_shared<const ProfileTrace>(window_of(*trace.profile, from, to)), options);
}

}  // namespace asyncscope::trace
