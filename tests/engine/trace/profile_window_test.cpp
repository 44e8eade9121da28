// A window of a profiler's trace is a trace of its own: spans clipped to it,
// launches linked only to GPU ops inside it, memory starting at the bytes
// live then; its figures are the window's, computed by hand here from the
// real trace's raw spans.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/trace/profile.h"
#include "engine/trace/profile_analysis.h"
#include "real_traces.h"

namespace asyncscope::trace {
namespace {

// Two lanes: a thread launching two kernels, a stream running them.
ProfileTrace two_launches() {
  ProfileTrace t;
  t.format = ProfileFormat::kineto;
  t.names = {"cudaLaunchKernel", "k"};
  t.lanes = {ProfileLane{"thread 1", "", false, 0, -1, 1, 0}, ProfileLane{"stream 7", "", true, 0, 7, 1, 0}};
  const auto span = [](int64_t start, int64_t dur, uint32_t name, uint32_t lane, EventKind kind, uint32_t link) {
    ProfileSpan s;
    s.start = start;
    s.dur = dur;
    s.name = name;
    s.lane = lane;
    s.kind = kind;
    s.link = link;
    return s;
  };
  t.spans = {span(0, 10, 0, 0, EventKind::runtime, 2), span(100, 10, 0, 0, EventKind::runtime, 3),
             span(20, 50, 1, 1, EventKind::kernel, 0), span(120, 50, 1, 1, EventKind::kernel, 1)};
  t.lane_begin = {0, 2, 4};
  assign_rows(t);
  t.memory = {ProfileMemoryEvent{5, 0, 1, 0, 0x10, 1000, -1, -1}, ProfileMemoryEvent{130, 0, 1, 0, 0x20, 500, -1, -1}};
  t.end_ns = 170;
  return t;
}

TEST(ProfileWindow, SpansAreClippedAndLinksFollowTheirSpans) {
  const ProfileTrace w = window_of(two_launches(), 50, 150);
  ASSERT_EQ(w.spans.size(), 3u);  // the first launch ended before the window
  const auto [first, last] = w.lane_spans(0);
  ASSERT_EQ(last - first, 1u);
  const ProfileSpan& launch = w.spans[first];
  EXPECT_EQ(launch.start, 100);
  ASSERT_NE(launch.link, kNoSpan);
  EXPECT_EQ(w.spans[launch.link].start, 120);  // its kernel, whose index moved
  const auto [k0, k1] = w.lane_spans(1);
  ASSERT_EQ(k1 - k0, 2u);
  EXPECT_EQ(w.spans[k0].start, 50);  // the first kernel, clipped at the window's start
  EXPECT_EQ(w.spans[k0].dur, 20);
  EXPECT_EQ(w.spans[k0].link, kNoSpan);  // its launch is not in the window
  EXPECT_EQ(w.spans[k0 + 1].end(), 150);  // the second, clipped at its end
  // Memory: what was live at the window's start, then what happened in it.
  ASSERT_EQ(w.memory.size(), 2u);
  EXPECT_EQ(w.memory[0].t, 50);
  EXPECT_EQ(w.memory[0].bytes, 1000);
  EXPECT_EQ(w.memory[1].t, 130);
  const ProfileFigures f = analyze_profile(w);
  ASSERT_EQ(f.streams.size(), 1u);
  EXPECT_EQ(f.streams[0].busy_ns, 20 + 30);
  EXPECT_EQ(f.streams[0].ops, 2u);
}

// On a real Kineto trace: each window's busy time per stream is the union
// of its GPU ops clipped to the window, as the raw spans give it.
TEST(ProfileWindow, ARealTracesWindowHasItsOwnFigures) {
  ASYNCSCOPE_REAL_TRACE(path, "sampled_training.json.gz");
  const ProfileTrace whole = read_profile(path);
  const ProfileFigures all = analyze_profile(whole);
  for (const auto& [a, b] : {std::pair{0.0, 0.3}, std::pair{0.3, 0.7}, std::pair{0.5, 1.0}}) {
    const int64_t from = static_cast<int64_t>(a * static_cast<double>(whole.end_ns));
    const int64_t to = static_cast<int64_t>(b * static_cast<double>(whole.end_ns));
    const ProfileFigures f = analyze_profile(window_of(whole, from, to));
    EXPECT_LE(f.streams.size(), all.streams.size());  // a stream idle all through the window has no figures
    uint64_t ops = 0;
    for (const StreamFigures& s : f.streams) {
      SCOPED_TRACE(whole.lanes[s.lane].name);
      std::vector<std::pair<int64_t, int64_t>> spans;
      const auto [first, last] = whole.lane_spans(s.lane);
      for (size_t i = first; i < last; ++i) {
        const ProfileSpan& x = whole.spans[i];
        if (!is_gpu_op(x.kind) || x.end() <= from || x.start >= to) continue;
        spans.emplace_back(std::max(x.start, from), std::min(x.end(), to));
      }
      std::sort(spans.begin(), spans.end());
      int64_t busy = 0, reach = INT64_MIN;
      for (const auto& [s0, s1] : spans) {
        const int64_t begin = std::max(s0, reach);
        if (s1 > begin) busy += s1 - begin;
        reach = std::max(reach, s1);
      }
      EXPECT_EQ(s.busy_ns, busy);
      EXPECT_EQ(s.ops, spans.size());
      ops += s.ops;
    }
    uint64_t in_window = 0;  // every GPU op of the window is on one of them
    for (const ProfileSpan& x : whole.spans) in_window += is_gpu_op(x.kind) && x.end() > from && x.start < to;
    EXPECT_EQ(ops, in_window);
    EXPECT_LE(f.verdict.span_ns, to - from);
  }
}

}  // namespace
}  // namespace asyncscope::trace
