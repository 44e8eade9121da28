// Structural checks of an exported Chrome trace, shared by the exporter's
// tests and the tests that export every demo: spans nest per thread, flows
// pair up in both styles, times are exact whichever way a viewer rounds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace asyncscope::trace::checks {

using json = nlohmann::json;

// What a viewer computes from a µs double: older Perfetto truncates, newer rounds.
inline int64_t truncated_ns(const json& us) { return static_cast<int64_t>(us.get<double>() * 1000.0); }
inline int64_t rounded_ns(const json& us) { return std::llround(us.get<double>() * 1000.0); }

struct Span {
  int64_t start, end;
};

// X spans per tid, in exact ns; checks each against what viewers read: ts
// truncated or rounded is exact, dur rounded is exact and truncated at most
// 1 ns short (the price of ts + dur never passing the end, below).
inline std::map<int64_t, std::vector<Span>> spans_by_tid(const json& doc) {
  std::map<int64_t, std::vector<Span>> out;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t start = truncated_ns(e["ts"]);
    const int64_t dur = rounded_ns(e["dur"]);
    EXPECT_EQ(e["cat"], "asyncscope") << e.dump();
    EXPECT_TRUE(e["args"].contains("event")) << e.dump();
    EXPECT_EQ(start, rounded_ns(e["ts"])) << e.dump();
    EXPECT_EQ(start, e["args"]["ns_ts"].get<int64_t>()) << e.dump();
    EXPECT_EQ(dur, e["args"].value("ns_dur", int64_t{0})) << e.dump();
    EXPECT_GE(truncated_ns(e["dur"]), dur - 1) << e.dump();
    EXPECT_LE(truncated_ns(e["dur"]), dur) << e.dump();
    out[e["tid"].get<int64_t>()].push_back(Span{start, start + dur});
  }
  return out;
}

// What DevTools and JS viewers compute: end = ts + dur in µs doubles. For
// spans of one thread that touch or are apart in exact ns, that end must not
// pass the next one's ts, or the viewer sees an overlap and drops a span.
inline void expect_touching_spans_stay_apart(const json& doc) {
  struct Read {
    int64_t start_ns, end_ns;
    double ts, end_us;
  };
  std::map<int64_t, std::vector<Read>> by_tid;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int64_t start = e["args"]["ns_ts"].get<int64_t>();
    const double ts = e["ts"].get<double>();
    by_tid[e["tid"].get<int64_t>()].push_back(
        Read{start, start + e["args"].value("ns_dur", int64_t{0}), ts, ts + e["dur"].get<double>()});
  }
  for (auto& [tid, reads] : by_tid) {
    std::stable_sort(reads.begin(), reads.end(), [](const Read& a, const Read& b) { return a.start_ns < b.start_ns; });
    for (size_t i = 1; i < reads.size(); ++i) {
      const Read& prev = reads[i - 1];
      const Read& next = reads[i];
      if (prev.end_ns > next.start_ns) continue;  // nested in exact ns
      EXPECT_LE(prev.end_us, next.ts) << "tid " << tid << ": span [" << prev.start_ns << ", " << prev.end_ns
                                      << "] ns ends at " << prev.end_us << " µs, after the next one starts";
    }
  }
}

// Spans on one thread must nest or be disjoint, never overlap partially.
inline void expect_spans_nest(const std::map<int64_t, std::vector<Span>>& by_tid) {
  for (auto [tid, spans] : by_tid) {
    std::sort(spans.begin(), spans.end(),
              [](const Span& a, const Span& b) { return std::tie(a.start, b.end) < std::tie(b.start, a.end); });
    std::vector<Span> open;
    for (const Span& s : spans) {
      while (!open.empty() && open.back().end <= s.start) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(s.end, open.back().end) << "tid " << tid << ": [" << s.start << ", " << s.end
                                          << "] overlaps [" << open.back().start << ", " << open.back().end << "]";
      }
      open.push_back(s);
    }
  }
}

// v1: every `s` has exactly one `f` (same id, cat and name), not earlier, and
// both sit inside a span of their thread (what they bind to). v2: taking the
// X events of one bind_id in the order a viewer does (by start), every
// flow_in has a flow_out before it and every flow_out a flow_in after it.
inline void expect_flows_pair_up(const json& doc, const std::map<int64_t, std::vector<Span>>& spans) {
  std::map<std::tuple<uint64_t, std::string, std::string>, std::pair<std::vector<int64_t>, std::vector<int64_t>>> v1;
  struct Bound {
    int64_t start;
    bool out, in;
  };
  std::map<uint64_t, std::vector<Bound>> v2;
  for (const json& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "s" || ph == "f") {
      auto& [starts, ends] = v1[{e["id"].get<uint64_t>(), e["cat"], e["name"]}];
      const int64_t t = truncated_ns(e["ts"]);
      (ph == "s" ? starts : ends).push_back(t);
      if (ph == "f") {
        EXPECT_EQ(e["bp"], "e");
      }
      const auto& lane = spans.at(e["tid"].get<int64_t>());
      EXPECT_TRUE(std::any_of(lane.begin(), lane.end(), [t](const Span& s) { return s.start <= t && t <= s.end; }))
          << "flow event outside every span of its thread: " << e.dump();
      // DevTools binds a flow event to a slice with the same ts, pid, tid and cat.
      EXPECT_TRUE(std::any_of(doc["traceEvents"].begin(), doc["traceEvents"].end(), [&](const json& x) {
        return x["ph"] == "X" && x["ts"] == e["ts"] && x["tid"] == e["tid"] && x["pid"] == e["pid"] &&
               x["cat"] == e["cat"];
      })) << "flow event with no slice of its ts, thread and category: " << e.dump();
    }
    if (ph == "X" && e.contains("bind_id")) {
      v2[e["bind_id"].get<uint64_t>()].push_back(
          Bound{truncated_ns(e["ts"]), e.value("flow_out", false), e.value("flow_in", false)});
    }
  }
  for (const auto& [key, flow] : v1) {
    ASSERT_EQ(flow.first.size(), 1u) << std::get<0>(key) << " " << std::get<2>(key);
    ASSERT_EQ(flow.second.size(), 1u) << std::get<0>(key) << " " << std::get<2>(key);
    EXPECT_LE(flow.first[0], flow.second[0]);
  }
  for (auto [id, chain] : v2) {
    std::stable_sort(chain.begin(), chain.end(), [](const Bound& a, const Bound& b) { return a.start < b.start; });
    bool open = false;  // a flow_out not yet followed by a flow_in
    bool any_out = false;
    for (const Bound& b : chain) {
      if (b.in) {
        EXPECT_TRUE(any_out) << "bind_id " << id << ": flow_in before any flow_out";
        open = false;
      }
      if (b.out) open = any_out = true;
    }
    EXPECT_FALSE(open) << "bind_id " << id << ": flow_out that nothing flows into";
  }
}

}  // namespace asyncscope::trace::checks
