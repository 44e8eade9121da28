// CPU cost of one timeline frame (headless ImGui frame + Timeline + render to
// draw lists, no GL) over a trace of one million ops on four workers, with
// frontend enqueues, sync waits and counters sampled at 1 kHz.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cfloat>
#include <random>

#include "support/paired.h"
#include "support/synthetic_ops.h"
#include "engine/trace/insight.h"
#include "widgets/imgui_context.h"
#include "widgets/lanes/counter_lane.h"
#include "widgets/lanes/frontend_lane.h"
#include "widgets/lanes/op_span_lane.h"
#include "widgets/timeline.h"

namespace asyncscope::widgets {
namespace {

constexpr uint32_t kOps = 1'000'000;
constexpr int kWorkers = 4;

// Ops enqueued every 0.6-1.8 µs, run 2-8 µs each on the first free worker;
// every 100,000 ops the frontend waits for all of them (wait_all).
const trace::TraceModel& million_op_model() {
  static const trace::TraceModel model = [] {
    trace::TraceModel m;
    m.names = {"", "add", "mul", "dot", "sum", "free", "sync loop", "async loop"};
    m.frontends.push_back(trace::FrontendLane{"frontend", {}, {}, {}});
    for (uint16_t w = 0; w < kWorkers; ++w) {
      m.workers.push_back(trace::WorkerLane{"CPU worker " + std::to_string(w), trace::DeviceKind::cpu, 0, w, trace::SpanKind::execute, {}, {}});
    }
    m.ops.reserve(kOps);
    m.var_ids.reserve(size_t{kOps} * 3);
    m.frontends[0].enqueues.reserve(kOps);
    std::mt19937_64 rng(42);
    int64_t front = 0;
    int64_t free_at[kWorkers] = {};
    for (uint32_t i = 0; i < kOps; ++i) {
      front += 600 + static_cast<int64_t>(rng() % 1200);
      if (i > 0 && i % 100'000 == 0) {
        const int64_t done = *std::max_element(free_at, free_at + kWorkers);
        m.frontends[0].syncs.push_back(static_cast<uint32_t>(m.syncs.size()));
        m.syncs.push_back(trace::SyncSpan{front, done, 0, i, 0, trace::SyncKind::wait_all});
        front = done + 500;
      }
      trace::OpInfo op;
      op.id = i + 1;
      op.name = static_cast<trace::NameId>(1 + rng() % 5);
      op.internal = op.name == 5;
      op.enqueue = front;
      const auto w = static_cast<uint16_t>(std::min_element(free_at, free_at + kWorkers) - free_at);
      op.worker = w;
      op.start = std::max(front + 200, free_at[w] + 50);
      op.end = op.start + 2000 + static_cast<int64_t>(rng() % 6000);
      free_at[w] = op.end;
      bench::add_synthetic_vars(m, op, i, rng);
      m.frontends[0].enqueues.push_back(i);
      m.workers[w].ops.push_back(i);
      m.ops.push_back(op);
    }
    m.counter_names = {"rss_bytes", "live_bytes", "pooled_bytes", "queue_depth", "running_ops"};
    const int64_t end = m.end_time();
    for (int64_t t = 0; t <= end; t += 1'000'000) {
      trace::CounterSample s;
      s.t = t;
      s.values[0] = 200'000'000 + t / 10 + static_cast<int64_t>(rng() % 5'000'000);
      s.values[1] = 50'000'000 + (t / 1000) % 40'000'000;
      s.values[3] = static_cast<int64_t>(rng() % 64);
      s.values[4] = kWorkers;
      m.counters.push_back(s);
    }
    m.markers.push_back(trace::Marker{0, 0, 6, 0});
    m.markers.push_back(trace::Marker{end / 2, 0, 7, 0});
    return m;
  }();
  return model;
}

// One frame per iteration. mouse_lane >= 0 puts the mouse over that lane (a
// hover and its tooltip); -1 keeps it away.
void run_frames(benchmark::State& st, TimeView view, int mouse_lane) {
  const trace::TraceModel& model = million_op_model();
  HeadlessContext ctx(1600, 900);
  // The OpenGL3 backend sets this: draw lists may pass 64K vertices.
  ImGui::GetIO().BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  TimelineState state;
  state.follow_live = false;
  state.view = view;
  ctx.begin_frame();
  Timeline("timeline", model, state);
  ctx.end_frame();
  const ImVec2 mouse =
      mouse_lane >= 0 ? ImVec2(1000.0f, (state.frame.lanes[static_cast<size_t>(mouse_lane)].y0 +
                                         state.frame.lanes[static_cast<size_t>(mouse_lane)].y1) * 0.5f)
                      : ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::GetIO().MousePos = mouse;
  int vertices = 0;
  for (auto _ : st) {
    ctx.begin_frame();
    Timeline("timeline", model, state);
    vertices = ctx.end_frame()->TotalVtxCount;
  }
  size_t boxes = 0;
  for (const PlacedLane& placed : state.frame.lanes) {
    if (const auto* spans = dynamic_cast<const OpSpanLane*>(placed.lane)) boxes += spans->boxes().size();
    if (const auto* frontend = dynamic_cast<const FrontendLane*>(placed.lane)) {
      boxes += frontend->waits().size() + frontend->ticks().size();
    }
  }
  st.counters["vertices"] = vertices;
  st.counters["boxes"] = static_cast<double>(boxes);
  st.counters["hover"] = static_cast<double>(state.hover.kind);
}

TimeView middle_ms() {
  const int64_t mid = million_op_model().end_time() / 2;
  return TimeView{mid - 500'000, mid + 500'000};
}

void BM_TimelineFrame_ZoomedOut(benchmark::State& st) {
  run_frames(st, fit_view(million_op_model().end_time()), -1);
}
void BM_TimelineFrame_ZoomedOutHover(benchmark::State& st) {
  run_frames(st, fit_view(million_op_model().end_time()), 2);  // a worker lane: a folded box's tooltip
}
void BM_TimelineFrame_Zoomed1ms(benchmark::State& st) { run_frames(st, middle_ms(), -1); }
void BM_TimelineFrame_Zoomed1msHover(benchmark::State& st) { run_frames(st, middle_ms(), 2); }

// The lanes' states and the memory attribution beside the same frames
// without them, alternating frame by frame (the machine's speed may drift).
// The insight is built once, as the app keeps it; the hover variant keeps
// the mouse on the live-bytes lane, whose tooltip lists the holders there.
void paired_insight_frames(benchmark::State& st, TimeView view, bool hover_live_bytes) {
  const trace::TraceModel& model = million_op_model();
  static const trace::RunInsight insight = [&model] {
    trace::RunInsight i;
    i.update(model, true);
    return i;
  }();
  HeadlessContext ctx(1600, 900);
  ImGui::GetIO().BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  TimelineState plain, with;
  for (TimelineState* s : {&plain, &with}) {
    s->follow_live = false;
    s->view = view;
  }
  with.insight = &insight;
  const auto frame = [&](TimelineState& state) {
    ctx.begin_frame();
    Timeline("timeline", model, state);
    ctx.end_frame();
  };
  frame(plain);
  frame(with);
  const auto mouse_on_live_bytes = [&](const TimelineState& state) {
    if (!hover_live_bytes) return ImVec2(-FLT_MAX, -FLT_MAX);
    for (const PlacedLane& p : state.frame.lanes) {
      const auto* c = dynamic_cast<const CounterLane*>(p.lane);
      if (c != nullptr && std::string_view(c->spec().name) == trace::kLiveCounter) {
        return ImVec2(1000.0f, (p.y0 + p.y1) * 0.5f);
      }
    }
    return ImVec2(-FLT_MAX, -FLT_MAX);
  };
  const ImVec2 mouse_plain = mouse_on_live_bytes(plain), mouse_with = mouse_on_live_bytes(with);
  const bench::PairedSeconds t = bench::run_paired(
      st,
      [&] {
        ImGui::GetIO().MousePos = mouse_plain;
        frame(plain);
      },
      [&] {
        ImGui::GetIO().MousePos = mouse_with;
        frame(with);
      });
  const auto n = static_cast<double>(st.iterations());
  st.counters["ms_without"] = t.a * 1e3 / n;
  st.counters["ms_with"] = t.b * 1e3 / n;
  st.counters["added_ms"] = (t.b - t.a) * 1e3 / n;
}

void BM_TimelineFrameInsightPaired_ZoomedOut(benchmark::State& st) {
  paired_insight_frames(st, fit_view(million_op_model().end_time()), false);
}
void BM_TimelineFrameInsightPaired_Zoomed1ms(benchmark::State& st) { paired_insight_frames(st, middle_ms(), false); }
void BM_TimelineFrameInsightPaired_HoverLiveBytes(benchmark::State& st) {
  paired_insight_frames(st, fit_view(million_op_model().end_time()), true);
}
// The whole insight of the million-op trace in one update (what opening a
// saved trace costs; a live run pays it in per-frame slices).
void BM_RunInsightWholeMillionOps(benchmark::State& st) {
  const trace::TraceModel& model = million_op_model();
  for (auto _ : st) {
    trace::RunInsight insight;
    insight.update(model, true);
    benchmark::DoNotOptimize(insight.frontier());
  }
}

BENCHMARK(BM_TimelineFrame_ZoomedOut)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrameInsightPaired_ZoomedOut)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrameInsightPaired_Zoomed1ms)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrameInsightPaired_HoverLiveBytes)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RunInsightWholeMillionOps)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrame_ZoomedOutHover)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrame_Zoomed1ms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelineFrame_Zoomed1msHover)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace asyncscope::widgets
