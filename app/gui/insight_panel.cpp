#include "app/gui/insight_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/panel_style.h"
#include "engine/base/format.h"
#include "engine/trace_record/counters.h"
#include "widgets/colors.h"
#include "widgets/time_axis.h"

namespace asyncscope::app {
namespace {

double frac(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0; }

void swatch(ImU32 color) {
  const float s = ImGui::GetTextLineHeight() * 0.7f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float pad = (ImGui::GetTextLineHeight() - s) * 0.5f;
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + pad), ImVec2(p.x + s, p.y + pad + s), color, 2.0f);
  ImGui::Dummy(ImVec2(s, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
}

// A memory holder's first cell: its op, and under it where it was made
// (scope, file:line; whole on hover), so the column stays as narrow as the
// op names at any window width.
void holder_cell(const trace::Holder& h) {
  swatch(widgets::OpColor(h.op));
  ImGui::TextUnformatted(h.op.c_str());
  // Where it was made, under the op and indented, so the column stays as narrow as the op names.
  if (!h.scope.empty() || !h.line.empty()) {
    ImGui::Indent();
    std::string where;
    if (!h.scope.empty()) where = "in " + std::string(trace::innermost_scope(h.scope));
    if (!h.line.empty()) {
      const size_t slash = h.line.rfind('/');
      where += (where.empty() ? "" : ", ") + (slash == std::string::npos ? h.line : h.line.substr(slash + 1));
    }
    ImGui::TextDisabled("%s", where.c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s%s%s", h.scope.empty() ? "" : ("pushed in " + h.scope).c_str(),
                        !h.scope.empty() && !h.line.empty() ? "\n" : "", h.line.c_str());
    }
    ImGui::Unindent();
  }
}

// One decimal, so a column of shares lines up.
std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * f);
  return buf;
}

}  // namespace

std::vector<StateRow> state_rows(const trace::RunInsight& insight, int64_t view_begin, int64_t view_end) {
  const trace::Verdict v = insight.verdict();
  const trace::Breakdown run = insight.breakdown(v.from, v.to);
  const trace::Breakdown view = insight.breakdown(view_begin, view_end);
  std::vector<StateRow> rows;
  const auto add = [&](trace::LaneState s, bool worker) {
    const trace::StateTimes& r = worker ? run.workers : run.frontends;
    const trace::StateTimes& w = worker ? view.workers : view.frontends;
    if (r[s] == 0 && w[s] == 0) return;
    rows.push_back(StateRow{s, worker, r[s], frac(r[s], worker ? run.worker_lane_ns : run.frontend_lane_ns), w[s],
                            frac(w[s], worker ? view.worker_lane_ns : view.frontend_lane_ns)});
  };
  for (const auto s : {trace::LaneState::busy, trace::LaneState::held, trace::LaneState::starved}) add(s, true);
  for (int s = static_cast<int>(trace::LaneState::running); s < trace::kLaneStateCount; ++s) {
    add(static_cast<trace::LaneState>(s), false);
  }
  return rows;
}

// The panel's tables are as wide as their columns: in a narrow panel their
// child window scrolls sideways instead of cutting the last column off.
constexpr ImGuiTableFlags kFitTable =
    ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_NoHostExtendX;

void InsightPanel::draw(const RunRecord* run, const RunRecord* other) {
  if (run == nullptr) {
    centred_hint("Who was the bottleneck, what held the memory and what changed between runs appear here.");
    return;
  }
  const int columns = other != nullptr ? 3 : 2;
  if (!ImGui::BeginTable("insight", columns, ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable)) return;
  // The state table has the most columns, and the comparison four narrow
  // ones: they get the most width.
  ImGui::TableSetupColumn("bottleneck", ImGuiTableColumnFlags_WidthStretch, 1.3f);
  ImGui::TableSetupColumn("memory", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  if (other != nullptr) ImGui::TableSetupColumn("compared", ImGuiTableColumnFlags_WidthStretch, 1.2f);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::BeginChild("bottleneck", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  draw_bottleneck(*run);
  ImGui::EndChild();
  ImGui::TableNextColumn();
  ImGui::BeginChild("memory", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  draw_memory(*run);
  ImGui::EndChild();
  if (other != nullptr) {
    ImGui::TableNextColumn();
    ImGui::BeginChild("compared", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    draw_compared(*run, *other);
    ImGui::EndChild();
  }
  ImGui::EndTable();
}

// A profiler's trace: its verdict and HTA's stream figures instead of the lane states.
// Whether a profile has two or more ProfilerStep ranges (HTA then counts the complete ones only).
static bool has_steps(const trace::ProfileTrace& p) {
  int steps = 0;
  for (const std::string& name : p.names) steps += name.rfind("ProfilerStep#", 0) == 0;
  return steps >= 2;
}

static void draw_profile_bottleneck(const RunRecord& run, const trace::ProfileFigures& f, bool* complete_steps) {
  ImGui::TextDisabled("WHO IS THE BOTTLENECK");
  ImGui::SameLine();
  ImGui::TextDisabled("(%s)", trace::to_string(run.profile->format));
  if (complete_steps != nullptr) {
    ImGui::SameLine();
    ImGui::Checkbox("complete ProfilerSteps only, as HTA counts", complete_steps);
  }
  const ImU32 color = widgets::StateColor(f.verdict.bound == trace::Bound::frontend ? trace::LaneState::starved
                                                                                   : trace::LaneState::busy);
  if (f.verdict.bound != trace::Bound::unknown) ImGui::PushStyleColor(ImGuiCol_Text, color);
  words_wrapped(f.verdict.text);
  if (f.verdict.bound != trace::Bound::unknown) ImGui::PopStyleColor();
  for (const std::string& note : run.notes) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    words_wrapped(note);
    ImGui::PopStyleColor();
  }
  if (!f.streams.empty() && ImGui::BeginTable("streams", 8, kFitTable)) {
    ImGui::TableSetupColumn(f.queue_estimated ? "operator thread" : "stream");
    ImGui::TableSetupColumn("ops");
    ImGui::TableSetupColumn("busy");
    ImGui::TableSetupColumn("host wait");
    ImGui::TableSetupColumn("kernel wait");
    ImGui::TableSetupColumn("other idle");
    ImGui::TableSetupColumn("queue max");
    ImGui::TableSetupColumn("launch delay");
    ImGui::TableHeadersRow();
    for (const trace::StreamFigures& st : f.streams) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(run.profile->lanes[st.lane].name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_count(st.ops).c_str());
      for (const int64_t ns : {st.busy_ns, st.idle.host_wait, st.idle.kernel_wait, st.idle.other}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_duration(ns).c_str());
      }
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(st.queue_length_max));
      ImGui::TableNextColumn();
      if (st.launches > 0) {
        ImGui::TextUnformatted(format_duration(static_cast<int64_t>(st.launch_delay_median_ns)).c_str());
      } else {
        ImGui::TextDisabled("-");
      }
    }
    ImGui::EndTable();
  }
  if (f.temporal.kernel > 0) {
    words_wrapped("GPU time " + format_duration(f.temporal.kernel) + ": compute " + format_duration(f.temporal.compute) +
                  ", other GPU work " + format_duration(f.temporal.non_compute) + ", idle " +
                  format_duration(f.temporal.idle));
  }
  if (f.launches.launches > 0) {
    words_wrapped(format_count(f.launches.launches) + " launches: delay median " +
                  format_duration(static_cast<int64_t>(f.launches.delay_median_ns)) + ", p90 " +
                  format_duration(static_cast<int64_t>(f.launches.delay_p90_ns)) + "; " +
                  std::to_string(f.launches.delay_outliers) + " over 100 µs");
  }
  if (!f.ops.empty() && ImGui::BeginTable("ops", 5, kFitTable)) {
    ImGui::TableSetupColumn("top ops by time");
    ImGui::TableSetupColumn("on");
    ImGui::TableSetupColumn("count");
    ImGui::TableSetupColumn("total");
    ImGui::TableSetupColumn("mean");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < f.ops.size() && i < 12; ++i) {
      const trace::OpFigures& o = f.ops[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      swatch(widgets::OpColor(o.name));
      ImGui::TextUnformatted(o.name.size() > 60 ? (o.name.substr(0, 57) + "...").c_str() : o.name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(o.gpu ? "GPU" : "CPU");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_count(o.count).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_duration(o.total_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_duration(static_cast<int64_t>(o.mean_ns())).c_str());
    }
    ImGui::EndTable();
  }
}

// A profiler's memory: each device's peak and what held it.
static void draw_profile_memory(const RunRecord& run) {
  const trace::ProfileFigures& f = *run.figures;
  ImGui::TextDisabled("WHAT HOLDS THE MEMORY");
  if (f.memory.empty()) {
    ImGui::TextDisabled("the trace has no memory events (PyTorch: profile_memory=True)");
    return;
  }
  for (const trace::DeviceMemorySeries& d : f.memory) {
    words_wrapped(d.label + " at its peak: " + format_bytes(d.peak_bytes) + ", t = " + format_duration(d.peak_t));
    if (d.peak.rows.empty()) continue;
    if (!ImGui::BeginTable(("holders " + d.label).c_str(), 3, kFitTable)) continue;
    ImGui::TableSetupColumn("allocated in");
    ImGui::TableSetupColumn("bytes");
    ImGui::TableSetupColumn("buffers");
    ImGui::TableHeadersRow();
    for (const trace::Holder& h : d.peak.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      holder_cell(h);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_bytes(static_cast<int64_t>(h.bytes)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_count(h.count).c_str());
    }
    ImGui::EndTable();
  }
}

void InsightPanel::draw_bottleneck(const RunRecord& run) {
  if (run.figures) {
    const bool steps = has_steps(*run.profile);
    const trace::ProfileFigures* f = run.figures.get();
    if (steps && complete_steps_) {
      if (steps_run_ != run.number) {
        trace::AnalysisOptions options;
        options.complete_steps_only = true;
        steps_figures_ = std::make_shared<trace::ProfileFigures>(trace::analyze_profile(*run.profile, options));
        steps_run_ = run.number;
      }
      f = steps_figures_.get();
    }
    return draw_profile_bottleneck(run, *f, steps ? &complete_steps_ : nullptr);
  }
  const trace::Verdict v = run.insight.verdict();
  ImGui::TextDisabled("WHO IS THE BOTTLENECK%s", run.live ? " (so far)" : "");
  if (v.bound == trace::Bound::unknown) {
    ImGui::TextDisabled("no ops have run yet");
    return;
  }
  const ImU32 color = widgets::StateColor(v.bound == trace::Bound::frontend ? trace::LaneState::starved
                                                                           : trace::LaneState::busy);
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  words_wrapped(v.text());
  ImGui::PopStyleColor();
  const widgets::TimeView& view = run.timeline.view;
  const std::vector<StateRow> rows = state_rows(run.insight, view.begin_ns, view.end_ns);
  if (!ImGui::BeginTable("states", 3, kFitTable)) return;
  ImGui::TableSetupColumn("share of lane time");
  ImGui::TableSetupColumn(("run (" + format_duration(v.duration_ns) + ")").c_str());
  ImGui::TableSetupColumn(("view (" + format_duration(view.span()) + ")").c_str());
  ImGui::TableHeadersRow();
  for (const StateRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    swatch(widgets::StateColor(r.state));
    ImGui::Text("%s %s", r.worker ? "workers" : "frontend", trace::to_string(r.state));
    ImGui::TableNextColumn();
    ImGui::Text("%6s %s", percent(r.run_frac).c_str(), format_duration(r.run_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%6s %s", percent(r.view_frac).c_str(), format_duration(r.view_ns).c_str());
  }
  ImGui::EndTable();
}

void InsightPanel::draw_memory(const RunRecord& run) {
  if (run.figures) return draw_profile_memory(run);
  if (peak_run_ != run.number || peak_frontier_ != run.insight.frontier()) {
    peak_ = run.insight.peak_holders(run.model);
    peak_run_ = run.number;
    peak_frontier_ = run.insight.frontier();
    // RSS beside it: the pool and everything else are resident too.
    peak_rss_ = pooled_at_peak_ = -1;
    const auto rss = run.model.counter_peak(trace::kRssCounter);
    if (rss && run.model.counter_index(trace::kPooledCounter) >= 0) {
      peak_rss_ = std::max<int64_t>(*rss, 0);
      pooled_at_peak_ = run.model.counter_at(trace::kPooledCounter, peak_.t).value_or(0);
    }
  }
  ImGui::TextDisabled("WHAT HOLDS THE MEMORY%s", run.live ? " (so far)" : "");
  if (peak_.buffers == 0) {
    ImGui::TextDisabled("no array was allocated");
    return;
  }
  words_wrapped("at the peak: " + format_bytes(static_cast<int64_t>(peak_.live_bytes)) + " in " +
                format_count(peak_.buffers) + " buffers, t = " + format_duration(peak_.t));
  if (peak_rss_ >= 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    words_wrapped("pooled then " + format_bytes(pooled_at_peak_) + " (freed, kept for reuse); peak RSS " +
                  format_bytes(peak_rss_));
    ImGui::PopStyleColor();
  }
  if (!ImGui::BeginTable("holders", 3, kFitTable)) return;
  ImGui::TableSetupColumn("allocated by");
  ImGui::TableSetupColumn("bytes");
  ImGui::TableSetupColumn("buffers");
  ImGui::TableHeadersRow();
  for (const trace::Holder& h : peak_.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    holder_cell(h);
    ImGui::TableNextColumn();
    ImGui::Text("%s  %s", format_bytes(static_cast<int64_t>(h.bytes)).c_str(),
                percent(frac(static_cast<int64_t>(h.bytes), static_cast<int64_t>(peak_.live_bytes))).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_count(h.count).c_str());
  }
  ImGui::EndTable();
}

void InsightPanel::draw_compared(const RunRecord& run, const RunRecord& other) {
  ImGui::TextDisabled("WHAT CHANGED");
  ImGui::SameLine();
  ImGui::TextDisabled("(run %d vs run %d)", run.number, other.number);
  if (diff_run_ != run.number || diff_other_ != other.number || diff_frontiers_[0] != run.insight.frontier() ||
      diff_frontiers_[1] != other.insight.frontier()) {
    trace::TraceDiff d = trace::diff_traces({&other.model, &other.insight, other.figures.get()},
                                            {&run.model, &run.insight, run.figures.get()});
    diff_ = std::move(d.summary);
    op_deltas_ = std::move(d.ops);
    diff_run_ = run.number;
    diff_other_ = other.number;
    diff_frontiers_[0] = run.insight.frontier();
    diff_frontiers_[1] = other.insight.frontier();
  }
  const std::vector<trace::DiffRow>& rows = diff_;
  if (!ImGui::BeginTable("diff", 4, kFitTable)) return;
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn(("run " + std::to_string(other.number)).c_str());
  ImGui::TableSetupColumn(("run " + std::to_string(run.number)).c_str());
  ImGui::TableSetupColumn("\xC3\x97");  // the factor, run b / run a
  ImGui::TableHeadersRow();
  for (const trace::DiffRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.what.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.a.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.b.c_str());
    ImGui::TableNextColumn();
    if (r.factor) {
      ImGui::Text("%s", format_value(*r.factor, "x").c_str());
    } else {
      ImGui::TextDisabled("-");
    }
  }
  ImGui::EndTable();
  // Profilers' traces: which ops changed most.
  if ((run.figures == nullptr && other.figures == nullptr) || op_deltas_.empty()) return;
  if (!ImGui::BeginTable("op deltas", 4, kFitTable)) return;
  ImGui::TableSetupColumn("ops that changed most");
  ImGui::TableSetupColumn(("run " + std::to_string(other.number)).c_str());
  ImGui::TableSetupColumn(("run " + std::to_string(run.number)).c_str());
  ImGui::TableSetupColumn("count");
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < op_deltas_.size() && i < 10; ++i) {
    const trace::OpDelta& o = op_deltas_[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    swatch(widgets::OpColor(o.name));
    ImGui::TextUnformatted(o.name.size() > 48 ? (o.name.substr(0, 45) + "...").c_str() : o.name.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_duration(o.total_a_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_duration(o.total_b_ns).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu -> %llu", static_cast<unsigned long long>(o.count_a), static_cast<unsigned long long>(o.count_b));
  }
  ImGui::EndTable();
}

}  // namespace asyncscope::app
