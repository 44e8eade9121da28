#include "engine/trace/profile_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/base/format.h"
#include "engine/base/quote.h"

namespace asyncscope::trace {
namespace {

using nlohmann::json;

double us(double ns) { return ns / 1000.0; }

json us_or_null(double ns, bool have) { return have ? json(us(ns)) : json(nullptr); }

// The device whose memory the run's keys (peak_live_*) describe: the GPU's where the trace has one.
const DeviceMemorySeries* main_memory(const ProfileFigures& f) {
  const DeviceMemorySeries* best = nullptr;
  for (const DeviceMemorySeries& d : f.memory) {
    if (best == nullptr || (d.device_type == 1 && best->device_type != 1) ||
        (d.device_type == best->device_type && d.peak_bytes > best->peak_bytes)) {
      best = &d;
    }
  }
  return best;
}

json holders_json(const HolderTable& table) {
  json rows = json::array();
  for (const Holder& h : table.rows) {
    rows.push_back({{"op", h.op},
                    {"line", h.line.empty() ? json(nullptr) : json(h.line)},
                    {"bytes", h.bytes},
                    {"count", h.count}});
  }
  return rows;
}

}  // namespace

std::string profile_json(const OpenedTrace& t) {
  const ProfileTrace& p = *t.profile;
  const ProfileFigures& f = *t.figures;
  json doc;
  doc["format"] = key_of(p.format);
  doc["format_text"] = to_string(p.format);
  doc["events"] = p.events;
  doc["spans"] = p.spans.size();
  doc["duration_s"] = static_cast<double>(p.end_ns) * 1e-9;
  doc["bound"] = f.verdict.bound == Bound::unknown ? json(nullptr) : json(to_string(f.verdict.bound));
  doc["verdict"] = f.verdict.text;
  doc["idle_frac"] = f.verdict.idle_frac;
  doc["host_wait_frac"] = f.verdict.host_wait_frac;
  doc["span_us"] = us(static_cast<double>(f.verdict.span_ns));
  json streams = json::array();
  for (const StreamFigures& s : f.streams) {
    streams.push_back({{"device", s.device},
                       {"stream", s.stream},
                       {"lane", p.lanes[s.lane].name},
                       {"ops", s.ops},
                       {"busy_us", us(static_cast<double>(s.busy_ns))},
                       {"idle_us",
                        {{"host_wait", us(static_cast<double>(s.idle.host_wait))},
                         {"kernel_wait", us(static_cast<double>(s.idle.kernel_wait))},
                         {"other", us(static_cast<double>(s.idle.other))}}},
                       {"queue_length_max", s.queue_length_max},
                       {"queue_length_mean", s.queue_length_mean},
                       {"launches", s.launches},
                       {"launch_delay_median_us", us_or_null(s.launch_delay_median_ns, s.launches > 0)}});
  }
  doc["streams"] = streams;
  doc["queue_estimated"] = f.queue_estimated;
  if (f.queue_estimated) {
    int64_t max = 0;
    for (const auto& [time, depth] : f.estimated_queue) max = std::max(max, depth);
    doc["estimated_queue_max"] = max;
  }
  doc["temporal_us"] = {{"kernel", us(static_cast<double>(f.temporal.kernel))},
                        {"idle", us(static_cast<double>(f.temporal.idle))},
                        {"compute", us(static_cast<double>(f.temporal.compute))},
                        {"non_compute", us(static_cast<double>(f.temporal.non_compute))}};
  const LaunchStats& ls = f.launches;
  doc["launch_stats"] = {{"launches", ls.launches},
                         {"delay_median_us", us_or_null(ls.delay_median_ns, ls.launches > 0)},
                         {"delay_p90_us", us_or_null(ls.delay_p90_ns, ls.launches > 0)},
                         {"delay_outliers", ls.delay_outliers},
                         {"long_launches", ls.long_launches},
                         {"short_kernels", ls.short_kernels}};
  json ops = json::array();
  for (const OpFigures& o : f.ops) {
    ops.push_back({{"name", o.name},
                   {"device", o.gpu ? "gpu" : "cpu"},
                   {"count", o.count},
                   {"total_us", us(static_cast<double>(o.total_ns))},
                   {"mean_us", us(o.mean_ns())}});
  }
  doc["ops"] = ops;
  json memory = json::array();
  for (const DeviceMemorySeries& d : f.memory) {
    memory.push_back({{"device", d.label},
                      {"peak_bytes", d.peak_bytes},
                      {"peak_t_s", static_cast<double>(d.peak_t) * 1e-9},
                      {"from_totals", d.from_totals},
                      {"holders", holders_json(d.peak)}});
  }
  doc["memory"] = memory;
  if (const DeviceMemorySeries* d = main_memory(f)) {
    doc["peak_live_bytes"] = d->peak_bytes;
    doc["peak_live_t_s"] = static_cast<double>(d->peak_t) * 1e-9;
    doc["peak_live_holders"] = holders_json(d->peak);
  } else {
    doc["peak_live_bytes"] = nullptr;
    doc["peak_live_t_s"] = nullptr;
    doc["peak_live_holders"] = json::array();
  }
  json lanes = json::array();
  for (const ProfileLane& l : p.lanes) {
    if (l.spans == 0) continue;
    lanes.push_back({{"name", l.name},
                     {"kind", l.gpu ? "stream" : "thread"},
                     {"device", l.gpu ? json(l.device) : json(nullptr)},
                     {"stream", l.gpu ? json(l.stream) : json(nullptr)},
                     {"spans", l.spans},
                     {"rows", l.rows}});
  }
  doc["lanes"] = lanes;
  doc["notes"] = t.notes;
  // Text from the file (names) may hold invalid UTF-8: replaced, never a throw.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

void describe_profile(const OpenedTrace& t, const std::string& path, std::ostream& out) {
  const ProfileTrace& p = *t.profile;
  const ProfileFigures& f = *t.figures;
  size_t threads = 0, streams = 0;
  for (const ProfileLane& l : p.lanes) {
    if (l.spans == 0) continue;
    (l.gpu ? streams : threads) += 1;
  }
  out << escape_controls(path) << ": " << to_string(p.format) << ", " << format_count(p.spans.size()) << " spans on "
      << threads << (threads == 1 ? " thread and " : " threads and ") << streams
      << (streams == 1 ? " GPU stream over " : " GPU streams over ") << format_duration(p.end_ns) << "\n";
  for (const std::string& n : t.notes) out << "  note: " << escape_controls(n) << "\n";
  out << "  " << f.verdict.text << "\n";
  if (!f.streams.empty()) {
    out << "\n  " << std::left << std::setw(34) << (f.queue_estimated ? "operator thread" : "stream") << std::right
        << std::setw(7) << "ops" << std::setw(11) << "busy" << std::setw(11) << "host wait" << std::setw(12)
        << "kernel wait" << std::setw(11) << "other idle" << std::setw(7) << "queue" << std::setw(9) << "launches"
        << std::setw(10) << "delay" << "\n";
    for (const StreamFigures& s : f.streams) {
      std::string name = escape_controls(p.lanes[s.lane].name);
      if (name.size() > 33) name = name.substr(0, 30) + "...";
      out << "  " << std::left << std::setw(34) << name << std::right << std::setw(7) << s.ops << std::setw(11)
          << format_duration(s.busy_ns) << std::setw(11) << format_duration(s.idle.host_wait) << std::setw(12)
          << format_duration(s.idle.kernel_wait) << std::setw(11) << format_duration(s.idle.other) << std::setw(7)
          << s.queue_length_max << std::setw(9) << s.launches << std::setw(10)
          << (s.launches > 0 ? format_duration(std::llround(s.launch_delay_median_ns)) : "-") << "\n";
    }
    out << "  (queue: the most launches waiting on a stream; delay: median from a launch call's return to its GPU "
           "op's start)\n";
  }
  if (f.temporal.kernel > 0) {
    out << "  GPU time: " << format_duration(f.temporal.kernel) << " from the first GPU op to the last: compute "
        << format_duration(f.temporal.compute) << ", other GPU work " << format_duration(f.temporal.non_compute)
        << ", idle " << format_duration(f.temporal.idle) << "\n";
  }
  if (f.launches.launches > 0) {
    out << "  launches: " << format_count(f.launches.launches) << ", delay median "
        << format_duration(std::llround(f.launches.delay_median_ns)) << ", p90 "
        << format_duration(std::llround(f.launches.delay_p90_ns)) << "; " << f.launches.delay_outliers
        << " over 100 µs, " << f.launches.long_launches << " launch calls over 50 µs\n";
  }
  if (!f.ops.empty()) {
    out << "\n  top ops by total time (side, count, total, mean):\n";
    for (size_t i = 0; i < f.ops.size() && i < 10; ++i) {
      const OpFigures& o = f.ops[i];
      std::string name = escape_controls(o.name);
      if (name.size() > 48) name = name.substr(0, 45) + "...";
      out << "    " << std::left << std::setw(50) << name << std::right << std::setw(4) << (o.gpu ? "GPU" : "CPU")
          << std::setw(8) << o.count << std::setw(11) << format_duration(o.total_ns) << std::setw(11)
          << format_duration(std::llround(o.mean_ns())) << "\n";
    }
  }
  for (const DeviceMemorySeries& d : f.memory) {
    out << "\n  " << escape_controls(d.label) << " memory peaks at " << format_bytes(d.peak_bytes) << " (t = "
        << format_duration(d.peak_t) << ")";
    if (d.peak.rows.empty()) {
      out << "\n";
      continue;
    }
    out << ", held by:\n";
    for (const Holder& h : d.peak.rows) {
      out << "    " << std::left << std::setw(30) << escape_controls(h.op) << std::setw(22) << escape_controls(h.line)
          << std::right << std::setw(12) << format_bytes(static_cast<int64_t>(h.bytes)) << "  in " << h.count << "\n";
    }
  }
}

}  // namespace asyncscope::trace
