#include "engine/trace/run_compare.h"

#include <algorithm>
#include <cmath>

#include "engine/base/format.h"
#include "engine/trace_record/counters.h"

namespace asyncscope::trace {

RunSummary summarize(const TraceModel& model, const RunInsight& insight) {
  RunSummary s;
  const Verdict v = insight.verdict();
  s.duration_ns = insight.frontier();
  s.frontend_wait_ns = insight.breakdown(0, insight.frontier()).frontends.waiting();
  s.worker_busy_frac = v.worker_busy_frac;
  s.worker_starved_frac = v.worker_starved_frac;
  s.worker_held_frac = v.worker_held_frac;
  s.ops = v.ops;
  s.bound = v.bound;
  if (const auto rss = model.counter_peak(kRssCounter)) s.peak_rss_bytes = std::max<int64_t>(*rss, 0);
  const HolderTable peak = insight.peak_holders(model);
  if (peak.buffers > 0) {
    s.peak_live_bytes = static_cast<int64_t>(peak.live_bytes);
  } else if (const auto live = model.counter_peak(kLiveCounter)) {
    s.peak_live_bytes = std::max<int64_t>(*live, 0);
  }
  return s;
}

std::vector<DiffRow> diff(const RunSummary& a, const RunSummary& b) {
  std::vector<DiffRow> rows;
  const auto add = [&](std::string what, double x, double y, bool have_x, bool have_y, const char* unit,
                       double scale) {
    DiffRow row;
    row.what = std::move(what);
    row.a_value = x;
    row.b_value = y;
    row.a = have_x ? format_value(x * scale, unit) : "-";
    row.b = have_y ? format_value(y * scale, unit) : "-";
    if (have_x && have_y && x != 0 && std::isfinite(x) && std::isfinite(y)) row.factor = y / x;
    rows.push_back(std::move(row));
  };
  add("total time", static_cast<double>(a.duration_ns), static_cast<double>(b.duration_ns), true, true, "s", 1e-9);
  add("frontend waiting", static_cast<double>(a.frontend_wait_ns), static_cast<double>(b.frontend_wait_ns), true, true,
      "s", 1e-9);
  add("workers busy", a.worker_busy_frac, b.worker_busy_frac, true, true, "%", 100);
  add("workers starved", a.worker_starved_frac, b.worker_starved_frac, true, true, "%", 100);
  add("workers held", a.worker_held_frac, b.worker_held_frac, true, true, "%", 100);
  add("peak RSS", static_cast<double>(a.peak_rss_bytes), static_cast<double>(b.peak_rss_bytes), a.peak_rss_bytes >= 0,
      b.peak_rss_bytes >= 0, "B", 1);
  add("peak live bytes", static_cast<double>(a.peak_live_bytes), static_cast<double>(b.peak_live_bytes),
      a.peak_live_bytes >= 0, b.peak_live_bytes >= 0, "B", 1);
  add("ops", static_cast<double>(a.ops), static_cast<double>(b.ops), true, true, "", 1);
  return rows;
}

}  // namespace asyncscope::trace
