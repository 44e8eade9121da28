#include "engine/trace/profile_analysis.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "engine/base/format.h"

namespace asyncscope::trace {

bool is_launch_call(std::string_view n) noexcept {
  return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cuLaunchKernel" || n == "cuLaunchKernelEx" ||
         n == "cudaMemcpyAsync" || n == "cudaMemsetAsync" || n == "hipLaunchKernel" ||
         n == "hipExtModuleLaunchKernel" || n == "hipMemcpyAsync" || n == "hipMemsetAsync" ||
         n == "hipMemcpyWithStream";
}

bool is_counted_launch(std::string_view n) noexcept {
  return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync";
}

bool is_compute_kernel(std::string_view n) noexcept {
  if (n.rfind("nccl", 0) == 0 && n.find("Kernel", 4) != std::string_view::npos) return false;
  if (n.rfind("Memcpy", 0) == 0 || n.rfind("Memset", 0) == 0 || n.rfind("dma", 0) == 0) return false;
  return n.find("Memcpy") == std::string_view::npos && n.find("Sync") == std::string_view::npos;
}

namespace {

// Which spans an analysis counts (all, or those of complete profiler steps).
struct Keep {
  std::vector<char> spans;  // empty: all
  bool operator()(size_t i) const noexcept { return spans.empty() || spans[i] != 0; }
};

double median_of(std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? static_cast<double>(v[n / 2]) : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

// Linear interpolation between order statistics (as NumPy's default percentile); v sorted.
double percentile_of(const std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return static_cast<double>(v[lo]) + (pos - static_cast<double>(lo)) * static_cast<double>(v[hi] - v[lo]);
}

int64_t launch_delay(const ProfileSpan& op, const ProfileSpan& launch) {
  return std::max<int64_t>(0, op.start - launch.end());
}

// Union length of intervals sorted by start.
template <typename Intervals>
int64_t union_length(const Intervals& v) {
  int64_t total = 0, cur_start = 0, cur_end = INT64_MIN;
  for (const auto& [s, e] : v) {
    if (s > cur_end) {
      if (cur_end != INT64_MIN) total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  if (cur_end != INT64_MIN) total += cur_end - cur_start;
  return total;
}

void stream_figures(const ProfileTrace& t, const Keep& keep, uint32_t lane, bool mxnet, ProfileFigures& f) {
  const ProfileLane& l = t.lanes[lane];
  StreamFigures s;
  s.lane = lane;
  s.device = l.device;
  s.stream = l.gpu ? l.stream : -1;
  std::vector<uint32_t> ops;
  const auto [first, last] = t.lane_spans(lane);
  for (size_t i = first; i < last; ++i) {
    const EventKind k = t.spans[i].kind;
    if (keep(i) && (mxnet ? k == EventKind::cpu_op : is_gpu_op(k))) ops.push_back(static_cast<uint32_t>(i));
  }
  if (ops.empty()) return;
  s.ops = ops.size();
  std::vector<std::pair<int64_t, int64_t>> busy;
  busy.reserve(ops.size());
  for (uint32_t i : ops) busy.emplace_back(t.spans[i].start, t.spans[i].end());
  s.busy_ns = union_length(busy);
  // Idle gaps, each from the previous op (in start order) to this one.
  for (size_t k = 1; k < ops.size(); ++k) {
    const ProfileSpan& prev = t.spans[ops[k - 1]];
    const ProfileSpan& op = t.spans[ops[k]];
    const int64_t gap = std::max<int64_t>(0, op.start - prev.end());
    if (op.link != kNoSpan && t.spans[op.link].start > prev.end()) {
      s.idle.host_wait += gap;
    } else if (gap < kKernelWaitNs) {
      s.idle.kernel_wait += gap;
    } else {
      s.idle.other += gap;
    }
  }
  // Queue length: +1 at each launch, -1 at the start of the op it launched.
  std::vector<std::pair<int64_t, int>> steps;
  std::vector<int64_t> delays;
  for (uint32_t i : ops) {
    const ProfileSpan& op = t.spans[i];
    if (op.link == kNoSpan) continue;
    const ProfileSpan& launch = t.spans[op.link];
    if (!is_launch_call(t.name(launch))) continue;
    steps.emplace_back(launch.start, +1);
    steps.emplace_back(op.start, -1);
    delays.push_back(launch_delay(op, launch));
  }
  s.launches = delays.size();
  s.launch_delay_median_ns = median_of(delays);
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second > b.second;  // a launch before a GPU op at the same time
  });
  std::vector<std::pair<int64_t, int64_t>> series;
  int64_t length = 0;
  double sum = 0;
  for (const auto& [time, delta] : steps) {
    length += delta;
    sum += static_cast<double>(length);
    s.queue_length_max = std::max(s.queue_length_max, length);
    if (!series.empty() && series.back().first == time) series.back().second = length;
    else series.emplace_back(time, length);
  }
  if (!steps.empty()) s.queue_length_mean = sum / static_cast<double>(steps.size());
  f.streams.push_back(s);
  f.queue.push_back(std::move(series));
}

void temporal(const ProfileTrace& t, const Keep& keep, ProfileFigures& f) {
  std::vector<std::pair<int64_t, int64_t>> all, compute;
  for (uint32_t lane = 0; lane < t.lanes.size(); ++lane) {
    if (!t.lanes[lane].gpu || t.lanes[lane].stream < 0) continue;
    const auto [first, last] = t.lane_spans(lane);
    for (size_t i = first; i < last; ++i) {
      const ProfileSpan& s = t.spans[i];
      // Annotations drawn over a stream's ops are not ops (HTA: no stream).
      if (!keep(i) || s.kind == EventKind::gpu_annotation) continue;
      all.emplace_back(s.start, s.end());
      if (is_compute_kernel(t.name(s))) compute.emplace_back(s.start, s.end());
    }
  }
  if (all.empty()) return;
  std::sort(all.begin(), all.end());
  std::sort(compute.begin(), compute.end());
  int64_t last_end = INT64_MIN;
  for (const auto& iv : all) last_end = std::max(last_end, iv.second);
  f.temporal.kernel = last_end - all.front().first;
  f.temporal.idle = f.temporal.kernel - union_length(all);
  f.temporal.compute = union_length(compute);
  f.temporal.non_compute = f.temporal.kernel - f.temporal.compute - f.temporal.idle;
}

void launch_stats(const ProfileTrace& t, const Keep& keep, ProfileFigures& f) {
  std::vector<int64_t> delays;
  LaunchStats& ls = f.launches;
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const ProfileSpan& op = t.spans[i];
    if (!keep(i) || !is_gpu_op(op.kind) || op.link == kNoSpan) continue;
    const ProfileSpan& launch = t.spans[op.link];
    if (!is_counted_launch(t.name(launch))) continue;
    const int64_t delay = launch_delay(op, launch);
    delays.push_back(delay);
    ls.delay_outliers += delay > 100'000;
    ls.long_launches += launch.dur > 50'000;
    ls.short_kernels += launch.dur <= 50'000 && op.dur < launch.dur;
  }
  ls.launches = delays.size();
  ls.delay_median_ns = median_of(delays);  // sorts
  ls.delay_p90_ns = percentile_of(delays, 0.9);
}

void op_table(const ProfileTrace& t, const Keep& keep, ProfileFigures& f) {
  std::unordered_map<uint64_t, size_t> index;  // (name << 1 | gpu) -> row
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const ProfileSpan& s = t.spans[i];
    if (!keep(i)) continue;
    if (s.kind == EventKind::gpu_annotation || s.kind == EventKind::python_function || s.kind == EventKind::profiler) {
      continue;
    }
    const bool gpu = t.lanes[s.lane].gpu;
    const uint64_t key = (uint64_t{s.name} << 1) | (gpu ? 1 : 0);
    const auto [it, added] = index.try_emplace(key, f.ops.size());
    if (added) f.ops.push_back(OpFigures{std::string(t.name(s)), gpu, 0, 0});
    OpFigures& row = f.ops[it->second];
    ++row.count;
    row.total_ns += s.dur;
  }
  std::stable_sort(f.ops.begin(), f.ops.end(), [](const OpFigures& a, const OpFigures& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    if (a.gpu != b.gpu) return a.gpu;
    return a.name < b.name;
  });
}

// "file.py(12): f" (a python_function span's name) to "file.py:12".
std::string source_line(std::string_view name) {
  const size_t open = name.find('(');
  const size_t close = name.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos || close == open + 1) return {};
  uint32_t line = 0;
  const auto [end, ec] = std::from_chars(name.data() + open + 1, name.data() + close, line);
  if (ec != std::errc() || end != name.data() + close) return {};
  return std::string(name.substr(0, open)) + ":" + std::to_string(line);
}

// Which op (and script line) made each allocation: the innermost CPU op
// enclosing it on its thread, found by sweeping each thread's spans in time
// order alongside the (time-sorted) memory events.
struct HolderOf {
  std::string op, line;
};

std::vector<uint32_t> holders(const ProfileTrace& t, std::vector<HolderOf>& keys) {
  std::vector<uint32_t> out(t.memory.size(), 0);
  std::map<std::pair<std::string, std::string>, uint32_t> ids;
  struct Sweep {
    size_t next = 0;
    std::vector<uint32_t> open;  // spans containing the sweep time, outermost first
  };
  std::vector<Sweep> sweeps(t.lanes.size());
  for (size_t m = 0; m < t.memory.size(); ++m) {
    const ProfileMemoryEvent& e = t.memory[m];
    if (e.bytes <= 0) continue;
    Sweep& sw = sweeps[e.lane];
    const auto [first, last] = t.lane_spans(e.lane);
    if (sw.next < first) sw.next = first;
    while (sw.next < last && t.spans[sw.next].start <= e.t) {
      const ProfileSpan& s = t.spans[sw.next];
      while (!sw.open.empty() && t.spans[sw.open.back()].end() < s.start) sw.open.pop_back();
      sw.open.push_back(static_cast<uint32_t>(sw.next));
      ++sw.next;
    }
    while (!sw.open.empty() && t.spans[sw.open.back()].end() < e.t) sw.open.pop_back();
    std::string op = "(no op)", line;
    bool op_found = false;
    for (auto it = sw.open.rbegin(); it != sw.open.rend(); ++it) {
      const ProfileSpan& s = t.spans[*it];
      if (s.end() < e.t) continue;
      if (!op_found && s.kind == EventKind::cpu_op) {
        op = std::string(t.name(s));
        op_found = true;
      }
      if (line.empty() && s.kind == EventKind::python_function) line = source_line(t.name(s));
      if (op_found && !line.empty()) break;
    }
    const auto [it, added] = ids.try_emplace({op, line}, static_cast<uint32_t>(keys.size()));
    if (added) keys.push_back(HolderOf{op, line});
    out[m] = it->second;
  }
  return out;
}

void memory(const ProfileTrace& t, int64_t until, ProfileFigures& f) {
  if (t.memory.empty()) return;
  std::vector<HolderOf> keys;
  const std::vector<uint32_t> holder = holders(t, keys);
  std::map<std::pair<int, int>, size_t> device_index;
  std::vector<int64_t> running;
  for (const ProfileMemoryEvent& e : t.memory) {
    if (e.t >= until) break;
    const auto [it, added] = device_index.try_emplace({e.device_type, e.device_id}, f.memory.size());
    if (added) {
      DeviceMemorySeries d;
      d.device_type = e.device_type;
      d.device_id = e.device_id;
      d.label = e.device_type == 0   ? std::string("cpu")
                : e.device_type == 1 ? "cuda:" + std::to_string(std::max<int>(0, e.device_id))
                                     : "device type " + std::to_string(e.device_type) + ":" + std::to_string(e.device_id);
      d.from_totals = e.total_allocated >= 0;
      f.memory.push_back(std::move(d));
      running.push_back(0);
    }
    DeviceMemorySeries& d = f.memory[it->second];
    running[it->second] += e.bytes;
    const int64_t live = d.from_totals && e.total_allocated >= 0 ? e.total_allocated : running[it->second];
    d.live.emplace_back(e.t, live);
    if (live > d.peak_bytes || d.live.size() == 1) {
      d.peak_bytes = live;
      d.peak_t = e.t;
    }
  }
  // The allocations live at each device's peak: replay up to it.
  for (size_t di = 0; di < f.memory.size(); ++di) {
    DeviceMemorySeries& d = f.memory[di];
    std::unordered_map<uint64_t, std::pair<uint32_t, int64_t>> live;  // addr -> holder, bytes
    for (size_t m = 0; m < t.memory.size(); ++m) {
      const ProfileMemoryEvent& e = t.memory[m];
      if (e.t > d.peak_t) break;
      if (e.device_type != d.device_type || e.device_id != d.device_id) continue;
      if (e.bytes > 0) live[e.addr] = {holder[m], e.bytes};
      else live.erase(e.addr);
    }
    std::vector<std::pair<uint64_t, uint64_t>> sums(keys.size());
    HolderTable& table = d.peak;
    table.t = d.peak_t;
    for (const auto& [addr, hb] : live) {
      sums[hb.first].first += static_cast<uint64_t>(hb.second);
      ++sums[hb.first].second;
      table.live_bytes += static_cast<uint64_t>(hb.second);
      ++table.buffers;
    }
    for (size_t k = 0; k < keys.size(); ++k) {
      if (sums[k].second > 0) table.rows.push_back(Holder{keys[k].op, keys[k].line, {}, sums[k].first, sums[k].second});
    }
    std::sort(table.rows.begin(), table.rows.end(), [](const Holder& a, const Holder& b) {
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      return a.op < b.op;
    });
    if (table.rows.size() > 8) table.rows.resize(8);
  }
}

std::string percent(double frac) { return std::to_string(static_cast<int>(std::lround(frac * 100))) + "%"; }

void verdict(const ProfileTrace& t, const Keep& keep, ProfileFigures& f) {
  ProfileVerdict& v = f.verdict;
  if (f.streams.empty()) {
    v.text = t.spans.empty() ? "no verdict: the trace has no spans"
                             : "no verdict: no GPU ops; every op ran on the CPU thread that called it";
    return;
  }
  int64_t first = INT64_MAX, last = INT64_MIN;
  std::vector<std::pair<int64_t, int64_t>> busy;
  IdleSplit idle;
  // MXNet: over the whole traced span, the frontend's calls included (operators wait on them).
  if (f.queue_estimated) {
    for (size_t i = 0; i < t.spans.size(); ++i) {
      const ProfileSpan& sp = t.spans[i];
      if (!keep(i) || sp.kind == EventKind::profiler) continue;
      first = std::min(first, sp.start);
      last = std::max(last, sp.end());
    }
  }
  for (const StreamFigures& s : f.streams) {
    const auto [a, b] = t.lane_spans(s.lane);
    for (size_t i = a; i < b; ++i) {
      const ProfileSpan& sp = t.spans[i];
      if (!keep(i)) continue;
      const bool op = f.queue_estimated ? sp.kind == EventKind::cpu_op : is_gpu_op(sp.kind);
      if (!op) continue;
      busy.emplace_back(sp.start, sp.end());
      first = std::min(first, sp.start);
      last = std::max(last, sp.end());
    }
    idle.host_wait += s.idle.host_wait;
    idle.kernel_wait += s.idle.kernel_wait;
    idle.other += s.idle.other;
  }
  std::sort(busy.begin(), busy.end());
  v.span_ns = last - first;
  v.idle_ns = v.span_ns - union_length(busy);
  v.idle_frac = v.span_ns > 0 ? static_cast<double>(v.idle_ns) / static_cast<double>(v.span_ns) : 0;
  v.host_wait_frac = idle.total() > 0 ? static_cast<double>(idle.host_wait) / static_cast<double>(idle.total()) : 0;
  const std::string where = f.queue_estimated ? "the operator threads" : "the GPU";
  const std::string span = format_duration(v.span_ns);
  if (f.queue_estimated) {
    // MXNet: no launch links, so no host-wait split: idle workers wait for the frontend.
    v.bound = v.idle_frac > 0.25 ? Bound::frontend : Bound::backend;
    v.text = v.bound == Bound::frontend
                 ? "frontend-bound: " + where + " are idle " + percent(v.idle_frac) + " of the " + span +
                       " traced, waiting for the frontend's calls"
                 : "backend-bound: " + where + " are busy " + percent(1 - v.idle_frac) + " of the " + span + " traced";
    return;
  }
  const bool launch_bound = v.idle_frac > 0.25 && v.host_wait_frac > 0.5;
  v.bound = launch_bound ? Bound::frontend : Bound::backend;
  if (launch_bound) {
    v.text = "launch-bound: the GPU is idle " + percent(v.idle_frac) + " of its " + span + " span, and " +
             percent(v.host_wait_frac) + " of the streams' idle time waits on the host to launch";
  } else {
    v.text = "device-bound: the GPU is busy " + percent(1 - v.idle_frac) + " of its " + span + " span";
    if (v.idle_frac > 0.25) v.text += "; its idle time is mostly not waiting on launches";
  }
}

// MXNet: an operator call has pushed its operator by the time it returns;
// each operator start takes the earliest call not yet matched (one that
// starts before the call returned is matched all the same).
void mxnet_queue(const ProfileTrace& t, const Keep& keep, ProfileFigures& f) {
  std::vector<std::pair<int64_t, int>> steps;
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const ProfileSpan& s = t.spans[i];
    if (!keep(i)) continue;
    const std::string_view n = t.name(s);
    if (s.kind == EventKind::runtime && (n.rfind("MXImperativeInvoke", 0) == 0 || n.rfind("MXInvokeCachedOp", 0) == 0)) {
      steps.emplace_back(s.end(), +1);
    } else if (s.kind == EventKind::cpu_op) {
      steps.emplace_back(s.start, -1);
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second > b.second;
  });
  int64_t depth = 0, early = 0;  // early: operator starts whose call had not returned yet
  for (const auto& [time, delta] : steps) {
    if (delta > 0) {
      if (early > 0) {
        --early;
      } else {
        ++depth;
      }
    } else if (depth > 0) {
      --depth;
    } else {
      ++early;
    }
    if (!f.estimated_queue.empty() && f.estimated_queue.back().first == time) f.estimated_queue.back().second = depth;
    else f.estimated_queue.emplace_back(time, depth);
  }
}

// HTA's default: with two or more ProfilerStep#N ranges, only the steps
// before the last one (which may be cut short) count: CPU-side spans that
// start before it, and the GPU ops their launches queued.
int64_t complete_steps(const ProfileTrace& t, Keep& keep, ProfileFigures& f) {
  int64_t last_start = INT64_MIN;
  std::string last_name;
  std::vector<std::string> names;
  for (const ProfileSpan& s : t.spans) {
    const std::string_view n = t.name(s);
    if (t.lanes[s.lane].gpu || n.rfind("ProfilerStep#", 0) != 0) continue;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.emplace_back(n);
    if (s.start > last_start) {
      last_start = s.start;
      last_name = n;
    }
  }
  if (names.size() < 2) return INT64_MAX;
  keep.spans.assign(t.spans.size(), 0);
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const ProfileSpan& s = t.spans[i];
    if (!t.lanes[s.lane].gpu) keep.spans[i] = s.start < last_start;
  }
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const ProfileSpan& s = t.spans[i];
    if (t.lanes[s.lane].gpu) keep.spans[i] = s.link != kNoSpan && keep.spans[s.link];
  }
  f.steps_note = "complete profiler steps only: " + std::to_string(names.size() - 1) + " of " +
                 std::to_string(names.size()) + " (" + last_name + " and what follows it left out)";
  return last_start;
}

// MXNet's memory counters ("Memory: gpu/0"): live bytes without allocation events, so no holders.
void counter_memory(const ProfileTrace& t, int64_t until, ProfileFigures& f) {
  for (const ProfileCounter& c : t.counters) {
    const size_t at = c.name.find("Memory: ");
    if (at == std::string::npos || c.samples.empty()) continue;
    DeviceMemorySeries d;
    d.label = c.name.substr(at + 8);
    d.device_type = d.label.rfind("gpu", 0) == 0 ? 1 : 0;
    d.from_totals = true;
    for (const auto& [time, value] : c.samples) {
      if (time >= until) break;
      const auto bytes = static_cast<int64_t>(std::llround(value));
      d.live.emplace_back(time, bytes);
      if (d.live.size() == 1 || bytes > d.peak_bytes) {
        d.peak_bytes = bytes;
        d.peak_t = time;
      }
    }
    d.peak.t = d.peak_t;
    d.peak.live_bytes = static_cast<uint64_t>(std::max<int64_t>(0, d.peak_bytes));
    f.memory.push_back(std::move(d));
  }
}

}  // namespace

ProfileFigures analyze_profile(const ProfileTrace& t, const AnalysisOptions& options) {
  ProfileFigures f;
  Keep keep;
  int64_t until = INT64_MAX;
  if (options.complete_steps_only) until = complete_steps(t, keep, f);
  const bool mxnet = t.format == ProfileFormat::mxnet;
  f.queue_estimated = mxnet;
  for (uint32_t lane = 0; lane < t.lanes.size(); ++lane) {
    const ProfileLane& l = t.lanes[lane];
    if (mxnet || (l.gpu && l.stream >= 0)) stream_figures(t, keep, lane, mxnet, f);
  }
  if (mxnet) mxnet_queue(t, keep, f);
  temporal(t, keep, f);
  launch_stats(t, keep, f);
  op_table(t, keep, f);
  memory(t, until, f);
  counter_memory(t, until, f);
  verdict(t, keep, f);
  return f;
}

}  // namespace asyncscope::trace
