#include "engine/trace/source_lines.h"

#include <algorithm>
#include <cstdio>

#include "engine/trace_record/names.h"

namespace asyncscope::trace {

std::vector<LineFigures> line_figures(const TraceModel& model) {
  const size_t num_points = model.source_points.size();
  if (num_points == 0) return {};
  std::vector<LineFigures> by_line(model.source_lines.size());
  for (size_t i = 0; i < by_line.size(); ++i) {
    by_line[i].line_index = static_cast<uint32_t>(i);
    by_line[i].file = std::string(model.name(model.source_lines[i].file));
    by_line[i].line = model.source_lines[i].line;
  }
  for (const SourcePoint& p : model.source_points) ++by_line[p.line].runs;

  // Per execution: when its last op entered the engine, and how much of the
  // time before that it spent waiting (a line may push, wait and push again).
  std::vector<int64_t> last_enqueue(num_points, kNoTime);
  std::vector<int64_t> waited_before(num_points, 0);
  for (const OpInfo& op : model.ops) {
    if (op.source == 0 || op.source > num_points) continue;
    LineFigures& row = by_line[model.source_points[op.source - 1].line];
    row.bytes += op.out_bytes;
    if (op.internal) continue;
    ++row.ops;
    if (op.enqueue != kNoTime) last_enqueue[op.source - 1] = std::max(last_enqueue[op.source - 1], op.enqueue);
  }
  for (const SyncSpan& s : model.syncs) {
    if (s.source == 0 || s.source > num_points) continue;
    LineFigures& row = by_line[model.source_points[s.source - 1].line];
    ++row.waits;
    row.wait_ns += s.end - s.begin;
    const int64_t last = last_enqueue[s.source - 1];
    if (last != kNoTime && s.end <= last) waited_before[s.source - 1] += s.end - s.begin;
  }
  for (size_t i = 0; i < num_points; ++i) {
    if (last_enqueue[i] == kNoTime) continue;
    const int64_t spent = last_enqueue[i] - model.source_points[i].t - waited_before[i];
    by_line[model.source_points[i].line].enqueue_ns += std::max<int64_t>(spent, 0);
  }

  std::sort(by_line.begin(), by_line.end(), [](const LineFigures& a, const LineFigures& b) {
    return a.file != b.file ? a.file < b.file : a.line < b.line;
  });
  return by_line;
}

namespace {

std::string trimmed(std::string text, size_t width) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  text.erase(0, first);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  return text;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string format_line_table(const std::vector<LineFigures>& rows,
                              const std::function<std::string(const LineFigures&)>& line_text) {
  if (rows.empty()) return "";
  size_t where_width = 4;
  for (const LineFigures& r : rows) {
    where_width = std::max(where_width, base_name(r.file).size() + 1 + std::to_string(r.line).size());
  }
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s %8s %8s %11s %7s %11s %12s", static_cast<int>(where_width), "line", "runs",
                "ops", "enqueue ms", "waits", "wait ms", "bytes");
  out += buf;
  if (line_text) out += "  source";
  out += '\n';
  for (const LineFigures& r : rows) {
    const std::string where = base_name(r.file) + ":" + std::to_string(r.line);
    std::snprintf(buf, sizeof buf, "%-*s %8llu %8llu %11.3f %7llu %11.3f %12llu", static_cast<int>(where_width),
                  where.c_str(), static_cast<unsigned long long>(r.runs), static_cast<unsigned long long>(r.ops),
                  static_cast<double>(r.enqueue_ns) / 1e6, static_cast<unsigned long long>(r.waits),
                  static_cast<double>(r.wait_ns) / 1e6, static_cast<unsigned long long>(r.bytes));
    out += buf;
    if (line_text) {
      const std::string text = trimmed(line_text(r), 60);
      if (!text.empty()) out += "  " + text;
    }
    out += '\n';
  }
  return out;
}

std::string op_source_text(const Recorder& recorder, uint64_t op_id) {
  for (const ThreadBuffer* thread : recorder.threads()) {
    // A thread's enqueues are in the order it pushed, so their ids increase.
    const ChunkedLog<EnqueueEvent>& enqueues = thread->enqueues;
    size_t lo = 0, hi = enqueues.size();
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (enqueues[mid].op < op_id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == enqueues.size() || enqueues[lo].op != op_id) continue;
    // The line is the thread's last source event at or before the enqueue.
    const int64_t t = enqueues[lo].t;
    const ChunkedLog<SourceEvent>& sources = thread->sources;
    size_t before = 0, after = sources.size();
    while (before < after) {
      const size_t mid = before + (after - before) / 2;
      if (sources[mid].t <= t) {
        before = mid + 1;
      } else {
        after = mid;
      }
    }
    if (before == 0) return "";
    const SourceEvent& source = sources[before - 1];
    if (source.line == 0) return "";  // the thread had left the script
    return name_of(source.file) + ":" + std::to_string(source.line);
  }
  return "";
}

}  // namespace asyncscope::trace
