#include "engine/trace/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "engine/base/format.h"
#include "engine/trace_record/counters.h"

namespace asyncscope::trace {

std::vector<OpFigures> op_figures(const TraceModel& model) {
  std::map<std::pair<NameId, bool>, size_t> index;
  std::vector<OpFigures> out;
  for (const OpInfo& op : model.ops) {
    if (!op.executed() || op.internal) continue;
    const bool gpu = op.device == DeviceKind::cuda;
    const auto [it, added] = index.try_emplace({op.name, gpu}, out.size());
    if (added) out.push_back(OpFigures{std::string(model.op_name(op)), gpu, 0, 0});
    ++out[it->second].count;
    out[it->second].total_ns += op.end - op.start;
  }
  std::stable_sort(out.begin(), out.end(), [](const OpFigures& a, const OpFigures& b) { return a.total_ns > b.total_ns; });
  return out;
}

namespace {

// The figures both kinds of trace have.
struct Summary {
  int64_t duration_ns = 0;
  int64_t wait_ns = 0;           // the frontends' synchronising waits
  std::optional<double> busy;    // the execution lanes' (GPU streams', or workers') busy share
  std::optional<int64_t> gpu_time, gpu_idle;  // profilers' traces with GPU ops
  std::optional<int64_t> queue_max;
  std::optional<uint64_t> launches;
  std::optional<double> delay_median_ns;
  int64_t peak_live = -1;
  uint64_t ops = 0;
  std::string verdict;
};

Summary summary_of(const TraceSide& side) {
  Summary s;
  const TraceModel& m = *side.model;
  s.duration_ns = m.end_time();
  for (const SyncSpan& w : m.syncs) s.wait_ns += w.end - w.begin;
  if (const ProfileFigures* f = side.figures) {
    s.verdict = f->verdict.text;
    if (f->verdict.span_ns > 0) s.busy = 1.0 - f->verdict.idle_frac;
    if (f->temporal.kernel > 0) {
      s.gpu_time = f->temporal.kernel;
      s.gpu_idle = f->temporal.idle;
    }
    if (!f->streams.empty()) {
      int64_t q = 0;
      for (const StreamFigures& st : f->streams) q = std::max(q, st.queue_length_max);
      s.queue_max = q;
    }
    if (f->launches.launches > 0) {
      s.launches = f->launches.launches;
      s.delay_median_ns = f->launches.delay_median_ns;
    }
    for (const DeviceMemorySeries& d : f->memory) s.peak_live = std::max(s.peak_live, d.peak_bytes);
    for (const OpFigures& o : f->ops) s.ops += o.count;
  } else {
    const RunSummary r = summarize(m, *side.insight);
    s.verdict = side.insight->verdict().text();
    s.busy = r.worker_busy_frac;
    s.peak_live = r.peak_live_bytes;
    s.ops = r.ops;
  }
  return s;
}

}  // namespace

TraceDiff diff_traces(const TraceSide& a, const TraceSide& b) {
  TraceDiff d;
  if (a.figures == nullptr && b.figures == nullptr) {
    d.summary = diff(summarize(*a.model, *a.insight), summarize(*b.model, *b.insight));
  } else {
    const Summary x = summary_of(a), y = summary_of(b);
    const auto add = [&d](std::string what, std::optional<double> p, std::optional<double> q, const char* unit,
                          double scale) {
      if (!p && !q) return;
      DiffRow row;
      row.what = std::move(what);
      row.a_value = p.value_or(0);
      row.b_value = q.value_or(0);
      row.a = p ? format_value(*p * scale, unit) : "-";
      row.b = q ? format_value(*q * scale, unit) : "-";
      if (p && q && *p != 0 && std::isfinite(*p) && std::isfinite(*q)) row.factor = *q / *p;
      d.summary.push_back(std::move(row));
    };
    const auto opt = [](auto v) -> std::optional<double> {
      if (!v) return std::nullopt;
      return static_cast<double>(*v);
    };
    add("total time", static_cast<double>(x.duration_ns), static_cast<double>(y.duration_ns), "s", 1e-9);
    add("frontend waiting", static_cast<double>(x.wait_ns), static_cast<double>(y.wait_ns), "s", 1e-9);
    add("execution lanes busy", x.busy, y.busy, "%", 100);
    add("GPU time (first op to last)", opt(x.gpu_time), opt(y.gpu_time), "s", 1e-9);
    add("GPU idle", opt(x.gpu_idle), opt(y.gpu_idle), "s", 1e-9);
    add("longest launch queue", opt(x.queue_max), opt(y.queue_max), "", 1);
    add("launches", opt(x.launches), opt(y.launches), "", 1);
    add("launch delay (median)", x.delay_median_ns, y.delay_median_ns, "s", 1e-9);
    add("peak live bytes", x.peak_live >= 0 ? std::optional<double>(static_cast<double>(x.peak_live)) : std::nullopt,
        y.peak_live >= 0 ? std::optional<double>(static_cast<double>(y.peak_live)) : std::nullopt, "B", 1);
    add("ops", static_cast<double>(x.ops), static_cast<double>(y.ops), "", 1);
  }
  d.verdict_a = summary_of(a).verdict;
  d.verdict_b = summary_of(b).verdict;
  const std::vector<OpFigures> oa = a.figures ? a.figures->ops : op_figures(*a.model);
  const std::vector<OpFigures> ob = b.figures ? b.figures->ops : op_figures(*b.model);
  std::map<std::pair<std::string, bool>, OpDelta> by_name;
  for (const OpFigures& o : oa) {
    OpDelta& r = by_name[{o.name, o.gpu}];
    r.name = o.name;
    r.gpu = o.gpu;
    r.count_a = o.count;
    r.total_a_ns = o.total_ns;
  }
  for (const OpFigures& o : ob) {
    OpDelta& r = by_name[{o.name, o.gpu}];
    r.name = o.name;
    r.gpu = o.gpu;
    r.count_b = o.count;
    r.total_b_ns = o.total_ns;
  }
  for (auto& [key, r] : by_name) d.ops.push_back(std::move(r));
  std::stable_sort(d.ops.begin(), d.ops.end(), [](const OpDelta& p, const OpDelta& q) {
    const int64_t dp = std::llabs(p.delta_ns()), dq = std::llabs(q.delta_ns());
    if (dp != dq) return dp > dq;
    return p.name < q.name;
  });
  return d;
}

std::string diff_json(const TraceDiff& d, const std::string& label_a, const std::string& label_b) {
  using nlohmann::json;
  json doc;
  doc["a"] = label_a;
  doc["b"] = label_b;
  doc["verdict_a"] = d.verdict_a;
  doc["verdict_b"] = d.verdict_b;
  json rows = json::array();
  for (const DiffRow& r : d.summary) {
    rows.push_back({{"what", r.what},
                    {"a", r.a},
                    {"b", r.b},
                    {"a_value", r.a == "-" ? json(nullptr) : json(r.a_value)},
                    {"b_value", r.b == "-" ? json(nullptr) : json(r.b_value)},
                    {"factor", r.factor ? json(*r.factor) : json(nullptr)}});
  }
  doc["summary"] = rows;
  json ops = json::array();
  for (const OpDelta& o : d.ops) {
    ops.push_back({{"name", o.name},
                   {"device", o.gpu ? "gpu" : "cpu"},
                   {"count_a", o.count_a},
                   {"count_b", o.count_b},
                   {"total_us_a", static_cast<double>(o.total_a_ns) / 1000.0},
                   {"total_us_b", static_cast<double>(o.total_b_ns) / 1000.0},
                   {"delta_us", static_cast<double>(o.delta_ns()) / 1000.0}});
  }
  doc["ops"] = ops;
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace asyncscope::trace
