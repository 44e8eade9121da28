// Chrome trace export/import: the file is well-formed for Perfetto and
// chrome://tracing (spans nest per thread, every flow start has its end,
// names and sort order present, exact times), reads back into the model it
// was written from, and bad input or a failed write gives a clear error.
#include "engine/trace/chrome_trace.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/trace_record/counter_sampler.h"
#include "engine/trace/chrome_trace_checks.h"
#include "engine/trace/model_checks.h"
#include "support/help_trace_model.h"
#include "support/model_vars.h"
#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_with_timeout;
using namespace checks;  // NOLINT: the shared structural checks

// A scratch folder per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("asyncscope_chrome_trace_" + std::to_string(::getpid()) + "_" + (info ? info->name() : "test"));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

size_t count_events(const json& doc, const std::string& ph, const std::string& name) {
  return static_cast<size_t>(std::count_if(doc["traceEvents"].begin(), doc["traceEvents"].end(),
                                           [&](const json& e) { return e["ph"] == ph && e.value("name", "") == name; }));
}

const json* find_event(const json& doc, const std::function<bool(const json&)>& pred) {
  for (const json& e : doc["traceEvents"]) {
    if (pred(e)) return &e;
  }
  return nullptr;
}

// --- a real run --------------------------------------------------------------

struct Traced {
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
  std::shared_ptr<Engine> engine;
  Traced(int workers, int64_t max_inflight) {
    EngineOptions options;
    options.cpu_workers = workers;
    options.max_inflight = max_inflight;
    options.recorder = recorder;
    engine = make_engine(options);
  }
};

OpFn spin(int iterations = 20000) {
  return [iterations](const RunContext&) {
    volatile uint64_t x = 0;
    for (int i = 0; i < iterations; ++i) x = x + static_cast<uint64_t>(i);
  };
}

struct RealRun {
  TraceModel model;
  uint64_t last_writer_of_b = 0;  // what the wait_for_var(b) waited for
  uint64_t last_pushed = 0;       // what the final wait_all waited for
};

RealRun real_run() {
  RealRun run;
  Traced t(3, 8);  // the bound makes pushes wait too: inflight_bound spans just before enqueues
  Engine& engine = *t.engine;
  CounterSampler sampler(t.recorder, {rss_counter(), Counter{"pending", [&engine] {
                                        return static_cast<int64_t>(engine.stats().pending);
                                      }},
                                      Counter{"running", [&engine] {
                                        return static_cast<int64_t>(engine.stats().running);
                                      }}});
  sampler.start();
  Var* a = engine.new_var();
  Var* b = engine.new_var();
  Var* c = engine.new_var();
  Var* bad = engine.new_var();
  t.recorder->record_marker(intern("chrome_trace_test.phase"), 1);
  for (int i = 0; i < 60; ++i) {
    OpMeta meta(i % 2 == 0 ? "chrome_trace_test.even" : "chrome_trace_test.odd");
    meta.iteration = static_cast<uint32_t>(i);
    meta.out_bytes = 1024u * static_cast<uint64_t>(i);
    Var* w = i % 3 == 0 ? b : (i % 3 == 1 ? c : a);
    const uint64_t id = engine.push(spin(), {i % 2 == 0 ? a : c}, {w}, meta);
    if (w == b) run.last_writer_of_b = id;
  }
  engine.push([](const RunContext&) { throw std::runtime_error("chrome_trace_test: \"boom\"\nsecond line"); }, {a},
              {bad}, OpMeta("chrome_trace_test.fails"));
  engine.wait_for_var(b);
  for (int i = 0; i < 20; ++i) engine.push(spin(), {b}, {c}, OpMeta("chrome_trace_test.after"));
  EXPECT_THROW(engine.wait_for_var(bad, SyncKind::to_host), OpError);
  t.recorder->record_marker(intern("chrome_trace_test.phase"), 2);
  run.last_pushed = engine.push(spin(), {c}, {a}, OpMeta("chrome_trace_test.last"));
  EXPECT_THROW(engine.wait_all(), OpError);
  sampler.stop();
  run.model = snapshot(*t.recorder);
  return run;
}

TEST(ChromeTrace, RealRunExportIsAWellFormedTraceAndReadsBackExactly) {
  run_with_timeout([] {
    const RealRun run = real_run();
    const TraceModel& m = run.model;
    ASSERT_GE(m.workers.size(), 1u);
    ASSERT_EQ(m.frontends.size(), 1u);
    ASSERT_GE(m.syncs.size(), 3u);
    EXPECT_TRUE(std::any_of(m.syncs.begin(), m.syncs.end(),
                            [](const SyncSpan& s) { return s.kind == SyncKind::inflight_bound; }));
    ASSERT_FALSE(m.counters.empty());
    ScratchDir dir;
    const std::string path = dir.file("run.json");
    write_chrome_trace(m, path, ExportOptions{"real run"});
    const std::string text = read_text(path);
    EXPECT_EQ(text, to_chrome_trace_json(m, ExportOptions{"real run"}));
    const json doc = json::parse(text);

    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["displayTimeUnit"], "ns");
    EXPECT_EQ(doc["otherData"]["asyncscope_version"], kChromeTraceVersion);
    ASSERT_TRUE(doc["traceEvents"].is_array());

    // Names and order of the lanes.
    EXPECT_EQ(count_events(doc, "M", "process_name"), 1u);
    EXPECT_EQ(find_event(doc, [](const json& e) { return e["name"] == "process_name"; })->at("args")["name"],
              "asyncscope: real run");
    std::map<int64_t, std::string> thread_names;
    std::map<int64_t, int64_t> sort_index;
    for (const json& e : doc["traceEvents"]) {
      if (e["ph"] != "M") continue;
      if (e["name"] == "thread_name") thread_names[e["tid"]] = e["args"]["name"];
      if (e["name"] == "thread_sort_index") sort_index[e["tid"]] = e["args"]["sort_index"];
    }
    ASSERT_EQ(thread_names.size(), m.frontends.size() + m.workers.size() + 1);
    ASSERT_EQ(sort_index.size(), thread_names.size());
    std::vector<std::pair<int64_t, std::string>> by_sort;
    for (const auto& [tid, name] : thread_names) by_sort.emplace_back(sort_index.at(tid), name);
    std::sort(by_sort.begin(), by_sort.end());
    EXPECT_EQ(by_sort.front().second, "frontend");
    for (size_t i = 0; i < m.workers.size(); ++i) EXPECT_EQ(by_sort[1 + i].second, m.workers[i].name);
    EXPECT_EQ(by_sort.back().second, "counters");

    const auto spans = spans_by_tid(doc);
    expect_spans_nest(spans);
    expect_flows_pair_up(doc, spans);

    // One enqueue flow per executed op that started after it was enqueued (an
    // op that started the same nanosecond keeps only its v2 link); one wait
    // flow per sync that waited for an op.
    size_t executed = 0;
    for (const OpInfo& op : m.ops) {
      const int64_t first = op.launched() ? op.launch_start : op.start;
      executed += op.executed() && op.enqueue != kNoTime && op.enqueue < first;
    }
    EXPECT_EQ(count_events(doc, "s", "enqueue"), executed);
    EXPECT_EQ(count_events(doc, "f", "enqueue"), executed);
    // A wait gets an arrow from the op it waited for when it began after the op started.
    size_t later_waits = 0;
    for (const SyncSpan& s : m.syncs) {
      const json* e = find_event(doc, [&](const json& x) {
        return x["ph"] == "X" && x["args"]["event"] == "sync" && x["args"]["ns_ts"] == s.begin &&
               x["args"]["kind"] == to_string(s.kind);
      });
      ASSERT_NE(e, nullptr);
      if (!e->at("args").contains("waited_for")) continue;
      const OpInfo* op = m.find_op(e->at("args")["waited_for"].get<uint64_t>());
      ASSERT_NE(op, nullptr);
      later_waits += op->start < s.begin;
    }
    EXPECT_GT(later_waits, 0u);
    EXPECT_EQ(count_events(doc, "s", "wait"), later_waits);
    EXPECT_EQ(count_events(doc, "f", "wait"), later_waits);
    expect_touching_spans_stay_apart(doc);
    const json* wait_b = find_event(doc, [](const json& e) { return e["ph"] == "X" && e["name"] == "wait_to_read"; });
    ASSERT_NE(wait_b, nullptr);
    EXPECT_EQ(wait_b->at("args")["waited_for"], run.last_writer_of_b);
    const json* wait_all = find_event(doc, [](const json& e) { return e["ph"] == "X" && e["name"] == "wait_all"; });
    ASSERT_NE(wait_all, nullptr);
    EXPECT_EQ(wait_all->at("args")["waited_for"], run.last_pushed);

    // The failed op carries its status and error text.
    const json* failed = find_event(
        doc, [](const json& e) { return e["ph"] == "X" && e["name"] == "chrome_trace_test.fails"; });
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->at("args")["event"], "enqueue");  // the enqueue comes first in the file
    failed = find_event(doc, [](const json& e) {
      return e["ph"] == "X" && e["args"]["event"] == "op" && e["name"] == "chrome_trace_test.fails";
    });
    ASSERT_NE(failed, nullptr);
    EXPECT_EQ(failed->at("args")["status"], "failed");
    EXPECT_EQ(failed->at("args")["error"], "chrome_trace_test: \"boom\"\nsecond line");

    // Every counter column, every sample; markers as instants.
    for (const std::string& name : m.counter_names) EXPECT_EQ(count_events(doc, "C", name), m.counters.size()) << name;
    EXPECT_EQ(count_events(doc, "i", "chrome_trace_test.phase"), 2u);

    const TraceModel back = read_chrome_trace(path);
    expect_same_model(m, back);
    EXPECT_EQ(back.names, m.names);
    expect_worker_lanes_consistent(back, 0);
  });
}

// --- hand-built models: every corner of the model, exactly ----------------------

TraceModel hand_model() {
  TraceModel m;
  m.origin_ns = 987654321012;
  m.first_op_id = 10;
  m.names = {"", "op \"quoted\"", "back\\slash\nnew line\ttab", "unicode naïve ✓ 日本 🎉", "marker \"m\" \\ \x01",
             "dir/script \"a\".py"};
  m.frontends = {FrontendLane{"frontend", {}, {}, {}}, FrontendLane{"thread \"two\"\n", {}, {}, {}}};
  m.workers = {WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}},
               WorkerLane{"cuda:1 launch 3", DeviceKind::cuda, 1, 3, SpanKind::launch, {}, {}},
               WorkerLane{"CUDA \\ stream ✓", DeviceKind::cuda, 1, 3, SpanKind::execute, {}, {}}};
  m.counter_names = {"rss_bytes", "queue \"depth\"", "device_live_bytes"};
  m.ops.resize(8);
  for (size_t i = 0; i < m.ops.size(); ++i) m.ops[i].id = m.first_op_id + i;
  OpInfo& a = m.ops[0];  // enqueued and executed
  a.enqueue = 100, a.start = 200, a.end = 300, a.name = 1, a.out_bytes = 4096, a.iteration = 3;
  asyncscope::testing::set_vars(m, a, {1}, {2});
  // m.ops[1]: never seen, a hole.
  OpInfo& b = m.ops[2];  // on the second frontend, launched, zero-length on the GPU, failed
  b.enqueue = 150, b.start = 250, b.end = 250, b.name = 3, b.frontend = 1, b.worker = 2;
  b.launch_start = 160, b.launch_end = 240, b.launch_worker = 1;
  b.device = DeviceKind::cuda, b.device_index = 1, b.status = OpStatus::failed, b.internal = true;
  b.out_bytes = UINT64_MAX, b.iteration = UINT32_MAX;
  asyncscope::testing::set_vars(m, b, {2}, {3});
  OpInfo& c = m.ops[3];  // executed, its enqueue never read; starts when a ends
  c.start = 300, c.end = 400;
  OpInfo& d = m.ops[4];  // enqueued, never executed; more vars than fit inline
  d.enqueue = 500, d.name = 2;
  asyncscope::testing::set_vars(m, d, {5, 6, 7, 8, 9}, {10, UINT64_MAX});
  OpInfo& e = m.ops[5];  // enqueued right when a backpressure wait ended
  e.enqueue = 600, e.start = 700, e.end = 1700, e.name = 1, e.status = OpStatus::skipped;
  asyncscope::testing::set_vars(m, e, {}, {2});
  OpInfo& f = m.ops[6];  // a GPU op launched (and failed at that) but never finished on the GPU
  f.enqueue = 800, f.launch_start = 810, f.launch_end = 900, f.launch_worker = 1, f.name = 1;
  f.device = DeviceKind::cuda, f.device_index = 1, f.status = OpStatus::failed;
  asyncscope::testing::set_vars(m, f, {3}, {11});
  OpInfo& g = m.ops[7];  // a GPU op whose enqueue was never read; the GPU starts it after the launch returned
  g.launch_start = 900, g.launch_end = 950, g.launch_worker = 1, g.start = 960, g.end = 1000, g.worker = 2;
  g.status = OpStatus::cancelled;
  m.frontends[0].enqueues = {0, 4, 5, 6};
  m.frontends[1].enqueues = {2};
  m.workers[0].ops = {0, 3, 5};
  m.workers[1].ops = {2, 6, 7};
  m.workers[2].ops = {2, 7};
  m.syncs = {SyncSpan{160, 310, 2, 10, 0, SyncKind::wait_to_read}, SyncSpan{320, 330, 0, 13, 1, SyncKind::wait_all},
             SyncSpan{590, 600, 0, 14, 0, SyncKind::inflight_bound}, SyncSpan{1800, 1800, 2, 15, 0, SyncKind::item}};
  m.frontends[0].syncs = {0, 2, 3};
  m.frontends[1].syncs = {1};
  m.markers = {Marker{50, -7, 4, 1}, Marker{55, INT64_MAX, 0, 0}, Marker{55, INT64_MIN, 4, 0}};
  CounterSample s0{0, {1000, 0, 0}}, s1{1000, {2000, 3, 1 << 20}}, s2{1000, {-2001, INT64_MAX, 3 << 20}};
  m.counters = {s0, s1, s2};
  m.errors = {{12, "boom \"quoted\" \\ back\nline ✓ 🎉"}, {11, "error of an op never seen"}, {99, "orphan"},
              {16, "launch failed: only its launch span carries this"}};
  // Lines of a script: ops and waits of both frontends, one point with no event.
  m.source_lines = {SourceLine{5, 3}, SourceLine{5, 12}};
  m.source_points = {SourcePoint{90, 0, 0}, SourcePoint{140, 0, 1}, SourcePoint{495, 1, 0}, SourcePoint{1790, 0, 0},
                     SourcePoint{1795, 1, 0}};
  m.frontends[0].sources = {0, 2, 3, 4};
  m.frontends[1].sources = {1};
  a.source = 1, b.source = 2, d.source = 3;
  m.syncs[1].source = 2, m.syncs[3].source = 4;
  m.dropped = 17;
  return m;
}

TEST(ChromeTrace, HelpSpansAreSlicesOnTheHelpersLaneAndReadBackExactly) {
  const TraceModel m = asyncscope::testing::help_test_model();
  const std::string text = to_chrome_trace_json(m);
  const json doc = json::parse(text);
  const auto spans = spans_by_tid(doc);
  expect_spans_nest(spans);
  expect_flows_pair_up(doc, spans);
  const json* help = find_event(doc, [](const json& e) { return e["ph"] == "X" && e["args"]["event"] == "help"; });
  ASSERT_NE(help, nullptr);
  EXPECT_EQ(help->at("name"), "dot");
  EXPECT_EQ(help->at("args")["id"], 2);
  EXPECT_EQ(help->at("args")["ns_ts"], 1200);
  EXPECT_EQ(help->at("args")["ns_dur"], 6800);
  EXPECT_EQ(help->at("args")["helped_lane"], "CPU worker 0");
  EXPECT_FALSE(help->contains("bind_id")) << "no arrows to or from help spans";
  const TraceModel back = parse_chrome_trace(text, "help.json");
  expect_same_model(m, back);
  // A help span on a launch lane, or of an op no other lane ran, is refused.
  json bad = doc;
  for (json& e : bad["traceEvents"]) {
    if (e["ph"] == "X" && e["args"]["event"] == "help") e["tid"] = (*help)["tid"].get<int>() == 2 ? 3 : 2;
  }
  EXPECT_THROW(parse_chrome_trace(bad.dump(), "bad.json"), std::exception);
}

TEST(ChromeTrace, HandBuiltModelWithEveryCornerRoundTrips) {
  const TraceModel m = hand_model();
  const std::string text = to_chrome_trace_json(m);
  const json doc = json::parse(text);
  const auto spans = spans_by_tid(doc);
  expect_spans_nest(spans);
  expect_flows_pair_up(doc, spans);
  const TraceModel back = parse_chrome_trace(text, "hand.json");
  expect_same_model(m, back);
  expect_worker_lanes_consistent(back, 0);
  EXPECT_EQ(back.names, m.names);
  for (size_t i = 0; i < m.frontends.size(); ++i) EXPECT_EQ(back.frontends[i].name, m.frontends[i].name);
  // Exporting what was read gives the same file.
  EXPECT_EQ(to_chrome_trace_json(back), text);
}

// What made the run travels with it: the exporter is told, the file keeps
// it, the import gives it back, and exporting what was read keeps it again.
TEST(ChromeTrace, TheRunsOriginRoundTripsWithNonFiniteResultsAsNull) {
  const TraceModel m = hand_model();
  ExportOptions options;
  options.run_label = "host-vs-gpu";
  options.origin.program = "host-vs-gpu";
  options.origin.params = {{"repeats", "10"}, {"size", "1000"}, {"device", "cuda"}};
  options.origin.results = {{"host_s", "host, synchronous", 0.3779, "s"},
                            {"ratio", "no ratio without a device run", std::numeric_limits<double>::infinity(), "x"}};
  options.origin.notes = {"The push loop returns almost at once."};
  const std::string text = to_chrome_trace_json(m, options);
  const json run = json::parse(text)["otherData"]["run"];
  EXPECT_EQ(run["program"], "host-vs-gpu");
  EXPECT_EQ(run["params"][2], json::array({"device", "cuda"})) << "in the program's order, as text";
  EXPECT_TRUE(run["results"][1]["value"].is_null());
  const TraceModel back = parse_chrome_trace(text, "run.json");
  EXPECT_EQ(back.origin.program, options.origin.program);
  EXPECT_EQ(back.origin.params, options.origin.params);
  EXPECT_EQ(back.origin.notes, options.origin.notes);
  ASSERT_EQ(back.origin.results.size(), 2u);
  EXPECT_EQ(back.origin.results[0], options.origin.results[0]);
  EXPECT_EQ(back.origin.results[1].label, "no ratio without a device run");
  EXPECT_TRUE(std::isnan(back.origin.results[1].value));
  EXPECT_EQ(to_chrome_trace_json(back, {"host-vs-gpu"}), text) << "a file exported again keeps what made it";
  // A model of a recorder's, exported with nothing said: no "run" at all.
  EXPECT_FALSE(json::parse(to_chrome_trace_json(m))["otherData"].contains("run"));
  EXPECT_TRUE(parse_chrome_trace(to_chrome_trace_json(m)).origin.empty());
}

// A GPU op is drawn as two slices on two threads, its launch on the stream's
// launch thread and its execution on the GPU thread below it, with arrows
// enqueue -> launch -> GPU execution.
TEST(ChromeTrace, GpuOpsHaveALaunchThreadAboveTheirGpuThreadAndChainedFlows) {
  const TraceModel m = hand_model();
  const json doc = json::parse(to_chrome_trace_json(m));
  std::map<std::string, int64_t> tid_of;
  std::map<std::string, json> lane_args;
  std::map<int64_t, int64_t> sort_of;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      tid_of[e["args"]["name"]] = e["tid"];
      lane_args[e["args"]["name"]] = e["args"];
    }
    if (e["ph"] == "M" && e["name"] == "thread_sort_index") sort_of[e["tid"]] = e["args"]["sort_index"];
  }
  const std::string cpu = "CPU worker 0", launch = "cuda:1 launch 3", gpu = "CUDA \\ stream ✓";
  ASSERT_TRUE(tid_of.count(launch));
  EXPECT_EQ(lane_args[launch]["span"], "launch");
  EXPECT_EQ(lane_args[launch]["device"], "cuda");
  EXPECT_EQ(lane_args[gpu]["span"], "execute");
  EXPECT_EQ(lane_args[cpu]["span"], "execute");
  EXPECT_EQ(sort_of[tid_of[cpu]] + 1, sort_of[tid_of[launch]]);
  EXPECT_EQ(sort_of[tid_of[launch]] + 1, sort_of[tid_of[gpu]]);

  // One launch slice per launched op, on the launch thread, carrying the op's args.
  std::vector<uint64_t> launched;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["args"]["event"] != "launch") continue;
    EXPECT_EQ(e["tid"], tid_of[launch]);
    launched.push_back(e["args"]["id"]);
  }
  EXPECT_EQ(launched, (std::vector<uint64_t>{12, 16, 17}));
  const auto x_event = [&](const char* cat, uint64_t id) {
    return find_event(doc, [&](const json& e) { return e["ph"] == "X" && e["args"]["event"] == cat && e["args"]["id"] == id; });
  };
  const json* launch_b = x_event("launch", 12);
  ASSERT_NE(launch_b, nullptr);
  ASSERT_NE(x_event("launch", 16), nullptr);
  ASSERT_NE(x_event("launch", 17), nullptr);
  EXPECT_EQ(launch_b->at("name"), "unicode naïve ✓ 日本 🎉");
  EXPECT_EQ(launch_b->at("args")["ns_ts"], 160);
  EXPECT_EQ(launch_b->at("args")["ns_dur"], 80);
  EXPECT_EQ(launch_b->at("args")["reads"], json::array({2}));
  EXPECT_EQ(launch_b->at("args")["worker_lane"], launch);
  EXPECT_EQ(x_event("launch", 16)->at("args")["error"], "launch failed: only its launch span carries this");
  EXPECT_EQ(x_event("launch", 16)->at("args")["status"], "failed");
  EXPECT_TRUE(doc["otherData"]["errors_without_events"].dump().find("launch failed") == std::string::npos);

  // v1 arrows: enqueue -> launch (or -> execution for an op without one), launch -> GPU execution.
  const auto flow_at = [&](const char* ph, const char* name, const std::string& lane, int64_t ns) {
    return find_event(doc, [&](const json& e) {
      return e["ph"] == ph && e["name"] == name && e["tid"] == tid_of[lane] && truncated_ns(e["ts"]) == ns;
    });
  };
  EXPECT_NE(flow_at("f", "enqueue", launch, 160), nullptr);
  EXPECT_NE(flow_at("s", "launch", launch, 160), nullptr);
  EXPECT_NE(flow_at("f", "launch", gpu, 250), nullptr);
  EXPECT_EQ(flow_at("f", "enqueue", gpu, 250), nullptr);
  EXPECT_NE(flow_at("f", "enqueue", launch, 810), nullptr);  // launched, never finished: no arrow onwards
  EXPECT_EQ(flow_at("s", "launch", launch, 810), nullptr);
  EXPECT_EQ(count_events(doc, "s", "enqueue"), 4u);  // a, b, e, f: enqueued and then launched or executed
  EXPECT_EQ(count_events(doc, "s", "launch"), 2u);   // b, g: launched and executed
  EXPECT_EQ(count_events(doc, "f", "launch"), 2u);

  // v2 arrows: the op's enqueue, launch and execution chain on one bind_id.
  const json* enqueue_b = x_event("enqueue", 12);
  const json* exec_b = x_event("op", 12);
  ASSERT_NE(enqueue_b, nullptr);
  ASSERT_NE(exec_b, nullptr);
  EXPECT_EQ(launch_b->at("bind_id"), enqueue_b->at("bind_id"));
  EXPECT_EQ(exec_b->at("bind_id"), enqueue_b->at("bind_id"));
  EXPECT_TRUE(enqueue_b->value("flow_out", false));
  EXPECT_TRUE(launch_b->value("flow_in", false));
  EXPECT_TRUE(launch_b->value("flow_out", false));
  EXPECT_TRUE(exec_b->value("flow_in", false));
  EXPECT_FALSE(x_event("launch", 16)->value("flow_out", false));
  EXPECT_FALSE(x_event("launch", 17)->value("flow_in", false));  // its enqueue was never read
  EXPECT_TRUE(x_event("launch", 17)->value("flow_out", false));

  const auto spans = spans_by_tid(doc);
  expect_spans_nest(spans);
  expect_flows_pair_up(doc, spans);
}

// Files written before launch lanes existed (format version 1: no span field,
// GPU ops on their stream's lane only) still open, and write back as the
// current version.
TEST(ChromeTrace, Version1TracesStillRead) {
  const TraceModel m = read_chrome_trace(std::string(ASYNCSCOPE_TRACE_TEST_DATA) + "/version1_trace.json");
  EXPECT_EQ(m.origin_ns, 5000);
  ASSERT_EQ(m.ops.size(), 3u);
  ASSERT_EQ(m.workers.size(), 2u);
  EXPECT_EQ(m.workers[0].name, "CPU worker 0");
  EXPECT_EQ(m.workers[1].name, "cuda:0 stream 0");
  EXPECT_EQ(m.workers[1].device, DeviceKind::cuda);
  for (const WorkerLane& lane : m.workers) EXPECT_EQ(lane.span, SpanKind::execute);
  const OpInfo* dot = m.find_op(3);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(m.op_name(*dot), "dot");
  EXPECT_EQ(dot->device, DeviceKind::cuda);
  EXPECT_TRUE(dot->executed());
  EXPECT_FALSE(dot->launched());
  EXPECT_EQ(dot->start, 1600);
  EXPECT_EQ(dot->end, 4000);
  EXPECT_EQ(dot->worker, 1);
  expect_worker_lanes_consistent(m, 3);
  ASSERT_EQ(m.syncs.size(), 1u);
  EXPECT_EQ(m.syncs[0].end, 4100);
  EXPECT_EQ(m.markers.size(), 1u);
  EXPECT_EQ(m.counter_names, (std::vector<std::string>{"rss_bytes", "live_bytes"}));
  ASSERT_EQ(m.counters.size(), 2u);
  EXPECT_EQ(m.counters[1].values[1], 64);
  EXPECT_EQ(m.end_time(), 4100);

  const std::string text = to_chrome_trace_json(m);
  EXPECT_EQ(json::parse(text)["otherData"]["asyncscope_version"], kChromeTraceVersion);
  expect_same_model(m, parse_chrome_trace(text));
}

TEST(ChromeTrace, TextWithQuotesBackslashesNewlinesAndUnicodeSurvives) {
  const TraceModel m = hand_model();
  const std::string text = to_chrome_trace_json(m, ExportOptions{"label \"x\"\n✓", {}});
  const json doc = json::parse(text);  // valid JSON: everything escaped
  const json* failed = find_event(doc, [](const json& e) { return e["ph"] == "X" && e["args"]["event"] == "op" && e["args"]["id"] == 12; });
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->at("name"), "unicode naïve ✓ 日本 🎉");
  EXPECT_EQ(failed->at("args")["error"], "boom \"quoted\" \\ back\nline ✓ 🎉");
  EXPECT_EQ(doc["otherData"]["run_label"], "label \"x\"\n✓");
  const TraceModel back = parse_chrome_trace(text);
  EXPECT_EQ(back.errors.at(12), m.errors.at(12));
  EXPECT_EQ(back.op_name(*back.find_op(14)), "back\\slash\nnew line\ttab");
  EXPECT_EQ(back.frontends[1].name, "thread \"two\"\n");
  EXPECT_EQ(back.workers[2].name, "CUDA \\ stream ✓");
  EXPECT_EQ(back.counter_names[1], "queue \"depth\"");
}

TEST(ChromeTrace, InvalidUtf8IsReplacedNotFatal) {
  TraceModel m = hand_model();
  m.names[1] = "bad \xff\xfe byte";
  m.errors[12] = "error \xc3";
  const TraceModel back = parse_chrome_trace(to_chrome_trace_json(m));
  EXPECT_EQ(back.name(1), "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
  EXPECT_EQ(back.errors.at(12), "error \xEF\xBF\xBD");
}

// A lone surrogate escape, as Python's json writes one for an undecodable
// byte ("\udcff"), in a trace edited by a script: the name reads as U+FFFD,
// the rest of the trace as it was.
TEST(ChromeTrace, ALoneSurrogateEscapeReadsAsTheReplacementCharacter) {
  const TraceModel m = hand_model();
  std::string text = to_chrome_trace_json(m);
  const std::string name = json(m.name(1)).dump();
  const size_t at = text.find(name);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, name.size(), "\"op\\udcff\"");
  const TraceModel back = parse_chrome_trace(text);
  EXPECT_EQ(back.name(1), "op\xEF\xBF\xBD");
  EXPECT_EQ(back.ops.size(), m.ops.size());
}

TEST(ChromeTrace, EmptyModelRoundTrips) {
  const TraceModel m;
  const std::string text = to_chrome_trace_json(m);
  const json doc = json::parse(text);
  EXPECT_EQ(count_events(doc, "M", "process_name"), 1u);
  expect_same_model(m, parse_chrome_trace(text));
}

// Every time becomes a µs double that a truncating or rounding reader turns
// back into the same ns, up to the largest exportable time.
TEST(ChromeTrace, MicrosecondTimesConvertBackToExactNanoseconds) {
  TraceModel m;
  m.names = {""};
  m.workers = {WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}}};
  std::mt19937_64 rng(7);
  std::vector<int64_t> times = {0, 1, 999, 1000, 1001, 1005, 4095, 1234567, (int64_t{1} << 50) - 2};
  for (int i = 0; i < 4000; ++i) times.push_back(static_cast<int64_t>(rng() % (uint64_t{1} << (10 + i % 40))));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  for (size_t i = 0; i + 1 < times.size(); i += 2) {
    OpInfo op;
    op.id = m.first_op_id + m.ops.size();
    op.start = times[i];
    op.end = times[i + 1];
    m.workers[0].ops.push_back(static_cast<uint32_t>(m.ops.size()));
    m.ops.push_back(op);
  }
  const json doc = json::parse(to_chrome_trace_json(m));
  expect_spans_nest(spans_by_tid(doc));  // also checks each ts/dur against its exact ns
  expect_same_model(m, parse_chrome_trace(doc.dump()));
}

// For a span that starts where the previous one ended,
// ts + dur of the previous one (added as µs doubles, as DevTools does) must
// not pass the next ts (30257.421000000002 vs 30257.421), or DevTools drops
// the next span. Spans that touch, at times up to the largest exportable,
// stay apart.
TEST(ChromeTrace, TouchingSpansNeverOverlapWhenTsPlusDurIsAddedAsDoubles) {
  TraceModel m;
  m.names = {""};
  m.workers = {WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {}, {}}};
  std::mt19937_64 rng(13);
  // Spans ending at 30257421 ns (whose ts + dur sum to 30257.421000000002 µs unless
  // written with care), then chains of touching spans
  // at every magnitude, some zero-length.
  std::vector<int64_t> ends = {30257421 - 4212, 30257421, 30257421 + 857};
  for (int chain = 0; chain < 200; ++chain) {
    int64_t t = ends.back() + static_cast<int64_t>(rng() % 1000) +
                static_cast<int64_t>(rng() % (uint64_t{1} << (chain % 49)));
    if (t >= (int64_t{1} << 50) - 100000) break;
    ends.push_back(t);
    for (int i = 0; i < 40; ++i) ends.push_back(ends.back() + static_cast<int64_t>(rng() % (i % 3 == 0 ? 3 : 100000)));
  }
  for (size_t i = 0; i + 1 < ends.size(); ++i) {
    OpInfo op;
    op.id = m.first_op_id + m.ops.size();
    op.start = ends[i];
    op.end = ends[i + 1];
    m.workers[0].ops.push_back(static_cast<uint32_t>(m.ops.size()));
    m.ops.push_back(op);
  }
  const json doc = json::parse(to_chrome_trace_json(m));
  size_t spans = 0;
  const json* previous = nullptr;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++spans;
    if (previous != nullptr) {
      // Exactly what the consumers compute: parsed doubles, added.
      EXPECT_LE(previous->at("ts").get<double>() + previous->at("dur").get<double>(), e["ts"].get<double>())
          << previous->dump() << " then " << e.dump();
    }
    previous = &e;
  }
  EXPECT_EQ(spans, m.ops.size());
  expect_spans_nest(spans_by_tid(doc));  // also: ts exact either way, dur exact when rounded
  expect_touching_spans_stay_apart(doc);
  expect_same_model(m, parse_chrome_trace(doc.dump()));
}

// DevTools binds a flow event to the slice with the same
// ts, pid, tid and cat, and joins a flow's ends by cat, name and id, so a flow
// event in a category of its own ("flow" beside "enqueue" slices) gets no
// arrow. Each flow event is at its slice's ts in the slices' category, and a
// flow's first slice comes before its last in the file.
// DevTools keys a flow's steps by time: an op that started the very
// nanosecond it was enqueued gets no v1 arrow (it would be dropped), only the
// v2 link; every v1 flow that is written has ends at distinct times.
TEST(ChromeTrace, ArrowsWhoseEndsShareANanosecondAreV2Only) {
  TraceModel m = hand_model();
  m.ops[0].start = m.ops[0].enqueue;  // enqueued at 100, started at 100
  const json doc = json::parse(to_chrome_trace_json(m));
  std::map<std::pair<std::string, uint64_t>, std::vector<double>> ends;
  bool enqueue_v2 = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "s" || e["ph"] == "f") ends[{e["name"], e["id"]}].push_back(e["ts"].get<double>());
    if (e["ph"] == "X" && e["args"].value("event", "") == "op" && e["args"].value("id", uint64_t{0}) == m.ops[0].id) {
      enqueue_v2 = e.contains("bind_id") && e.value("flow_in", false);
    }
  }
  EXPECT_TRUE(enqueue_v2);
  for (const auto& [key, ts] : ends) {
    ASSERT_EQ(ts.size(), 2u) << key.first << " " << key.second;
    EXPECT_LT(ts[0], ts[1]) << key.first << " " << key.second;
  }
  const auto a = ends.find({"enqueue", 1});  // op 1 (index 0) has no v1 enqueue arrow now
  EXPECT_EQ(a, ends.end());
}

TEST(ChromeTrace, FlowEventsBindToTheirSlicesByTsThreadAndCategory) {
  const RealRun run = real_run();
  for (const json& doc : {json::parse(to_chrome_trace_json(hand_model())), json::parse(to_chrome_trace_json(run.model))}) {
    std::map<std::tuple<double, int64_t, std::string>, size_t> first_slice;  // (ts, tid, cat) -> file position
    const json& events = doc["traceEvents"];
    for (size_t i = 0; i < events.size(); ++i) {
      const json& e = events[i];
      if (e["ph"] == "X") first_slice.emplace(std::tuple(e["ts"].get<double>(), e["tid"].get<int64_t>(), e["cat"]), i);
    }
    std::map<uint64_t, std::pair<size_t, size_t>> ends;  // flow id -> slices bound by its s and f
    for (const json& e : events) {
      if (e["ph"] != "s" && e["ph"] != "f") continue;
      EXPECT_EQ(e["cat"], "asyncscope") << e.dump();
      auto slice = first_slice.find(std::tuple(e["ts"].get<double>(), e["tid"].get<int64_t>(), e["cat"]));
      ASSERT_NE(slice, first_slice.end()) << "flow event binds to no slice: " << e.dump();
      (e["ph"] == "s" ? ends[e["id"]].first : ends[e["id"]].second) = slice->second + 1;
    }
    ASSERT_FALSE(ends.empty());
    for (const auto& [id, bound] : ends) {
      ASSERT_NE(bound.first, 0u) << "flow " << id;
      ASSERT_NE(bound.second, 0u) << "flow " << id;
      const json& from = events[bound.first - 1];
      const json& to = events[bound.second - 1];
      EXPECT_LT(bound.first, bound.second) << "flow " << id << ": " << from.dump() << " -> " << to.dump();
      const std::string a = from["args"]["event"], b = to["args"]["event"];
      if (a == "op") {
        EXPECT_EQ(b, "sync");
        EXPECT_EQ(to["args"]["waited_for"], from["args"]["id"]);
        EXPECT_LT(from["args"]["ns_ts"].get<int64_t>(), to["args"]["ns_ts"].get<int64_t>());
      } else {
        EXPECT_TRUE((a == "enqueue" && (b == "op" || b == "launch")) || (a == "launch" && b == "op")) << a << " -> " << b;
        EXPECT_EQ(to["args"]["id"], from["args"]["id"]);
      }
    }
  }
}

// --- bad input -----------------------------------------------------------------

std::string import_error(std::string_view text) {
  try {
    parse_chrome_trace(text, "bad.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_rejected(std::string_view text, const std::string& expected) {
  const std::string message = import_error(text);
  EXPECT_EQ(message.rfind("bad.json: ", 0), 0u) << message;
  EXPECT_NE(message.find(expected), std::string::npos) << "expected \"" << expected << "\" in: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// A valid export with one change applied to its first event that matches.
std::string with_event_changed(const std::function<bool(const json&)>& which, const std::function<void(json&)>& change) {
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  for (json& e : doc["traceEvents"]) {
    if (which(e)) {
      change(e);
      return doc.dump();
    }
  }
  ADD_FAILURE() << "no such event";
  return "";
}

std::string with_metadata_changed(const std::function<void(json&)>& change) {
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  change(doc["otherData"]);
  return doc.dump();
}

bool is_exec(const json& e) { return e["ph"] == "X" && e["args"]["event"] == "op"; }
bool is_enqueue(const json& e) { return e["ph"] == "X" && e["args"]["event"] == "enqueue"; }

TEST(ChromeTrace, MalformedJsonIsRejected) {
  expect_rejected("", "not valid JSON");
  expect_rejected("this is not json", "not valid JSON");
  const std::string good = to_chrome_trace_json(hand_model());
  expect_rejected(good.substr(0, good.size() / 2), "not valid JSON");
  expect_rejected(good + "}", "not valid JSON");
  // A number past a double's range reads as infinite, and the field that holds it says so.
  expect_rejected(R"({"otherData": {"asyncscope_version": 1e999}})", "field \"asyncscope_version\" must be an integer");
}

TEST(ChromeTrace, ForeignTracesAreRecognised) {
  expect_rejected("[]", "not an asyncscope trace");
  expect_rejected(R"([{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}])", "not an asyncscope trace");
  expect_rejected(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}]})",
                  "not an asyncscope trace (no asyncscope metadata); it can be opened in Perfetto");
  expect_rejected(R"({"traceEvents":[],"otherData":{"version":"Chrome 120"}})", "not an asyncscope trace");
  expect_rejected(R"({"traceEvents":[],"otherData":"x"})", "not an asyncscope trace");
  expect_rejected("42", "not an asyncscope trace");
  expect_rejected(with_metadata_changed([](json& o) { o["asyncscope_version"] = kChromeTraceVersion + 1; }),
                  "written by a newer asyncscope (format version " + std::to_string(kChromeTraceVersion + 1) +
                      "; this build reads versions 1 to " + std::to_string(kChromeTraceVersion) + ")");
  expect_rejected(with_metadata_changed([](json& o) { o["asyncscope_version"] = 0; }), "unknown format version 0");
  expect_rejected(with_metadata_changed([](json& o) { o["scopes"] = {"net > dense0", "net > dense0"}; }),
                  "scope \"net > dense0\" twice in otherData.scopes");
  expect_rejected(with_metadata_changed([](json& o) { o["scopes"] = {""}; }), "an empty scope in otherData.scopes");
  const json run = {{"program", "sync-vs-async"}, {"params", json::array({json::array({"size", "64"})})},
                    {"results", json::array({{{"key", "k"}, {"label", "l"}, {"value", 1.5}, {"unit", "s"}}})},
                    {"notes", json::array()}};
  expect_rejected(with_metadata_changed([&](json& o) { o["run"] = run; o["run"]["program"] = ""; }),
                  "otherData.run: field \"program\" is empty");
  expect_rejected(with_metadata_changed([&](json& o) { o["run"] = run; o["run"]["params"] = {{"size", 64}}; }),
                  "otherData.run: field \"params\" must be an array of [name, value] pairs");
  expect_rejected(with_metadata_changed([&](json& o) { o["run"] = run; o["run"]["results"][0]["value"] = "fast"; }),
                  "otherData.run: field \"value\" must be a number or null");
  expect_rejected(with_metadata_changed([&](json& o) { o["run"] = run; o["run"].erase("notes"); }),
                  "otherData.run: missing field \"notes\"");
  expect_rejected(with_metadata_changed([&](json& o) { o["run"] = 3; }), "otherData.run: expected an object");
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  doc.erase("traceEvents");
  expect_rejected(doc.dump(), "no traceEvents array");
  doc["traceEvents"] = {{"ph", "X"}};
  expect_rejected(doc.dump(), "traceEvents is an object, not an array");
  doc["traceEvents"] = json::array({json::object(), 7});
  expect_rejected(doc.dump(), "event #0: missing field \"ph\"");
  doc["traceEvents"] = json::array({7});
  expect_rejected(doc.dump(), "event #0: expected an object, found a number");
}

// Deeply nested or huge values neither crash nor pass unnoticed.
TEST(ChromeTrace, PathologicalInputIsHandledCleanly) {
  const std::string meta = json::parse(to_chrome_trace_json(TraceModel{}))["otherData"].dump();
  const std::string nested = std::string(100000, '[') + std::string(100000, ']');
  // An unknown metadata event is ignored, however deep its payload.
  EXPECT_NO_THROW(parse_chrome_trace("{\"otherData\":" + meta +
                                     ",\"traceEvents\":[{\"ph\":\"M\",\"name\":\"x\",\"args\":" + nested + "}]}"));
  expect_rejected("{\"otherData\":" + meta + ",\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"op\",\"tid\":1,\"args\":" +
                      nested + "}]}",
                  "field \"args\" must be an object, not an array");
  expect_rejected(std::string(100000, '['), "not an asyncscope trace");
  expect_rejected("{\"a\":" + std::string(100000, '['), "not valid JSON");
  expect_rejected("{\"otherData\":" + meta + ",\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e400}]}",
                  "event #0 (ph \"X\")");
}

TEST(ChromeTrace, WrongFieldsAreRejectedWithTheirName) {
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["ns_ts"] = "200"; }),
                  "field \"ns_ts\" must be an integer, not a string");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["ns_ts"] = 1e30; }),
                  "field \"ns_ts\" must be an integer, not a number");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["ns_dur"] = -5; }), "field \"ns_dur\" is -5, outside");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["ns_ts"] = UINT64_MAX; }),
                  "field \"ns_ts\" is 18446744073709551615, outside");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"].erase("id"); }), "missing field \"id\"");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"] = "x"; }), "field \"args\" must be an object");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["status"] = "exploded"; }),
                  "unknown op status \"exploded\"");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["tid"] = 1; }), "tid 1 is not a worker lane");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["args"]["id"] = 1000; }), "op id 1000 is outside");
  expect_rejected(with_event_changed(is_enqueue, [](json& e) { e["args"]["reads"] = {1, -2}; }),
                  "field \"reads\" must be an array of var ids");
  expect_rejected(with_event_changed(is_enqueue, [](json& e) { e["args"]["iteration"] = uint64_t{1} << 32; }),
                  "field \"iteration\" is 4294967296, outside [0, 4294967295]");
  expect_rejected(with_event_changed(is_enqueue, [](json& e) { e["args"]["name_id"] = 77; }),
                  "name id 77 is not in otherData.names");
  expect_rejected(with_event_changed(is_enqueue, [](json& e) { e["args"]["device"] = "tpu"; }), "unknown device \"tpu\"");
  expect_rejected(with_event_changed([](const json& e) { return e["ph"] == "X" && e["args"]["event"] == "sync"; },
                                     [](json& e) { e["args"]["kind"] = "nap"; }),
                  "unknown sync kind \"nap\"");
  expect_rejected(with_event_changed([](const json& e) { return e["ph"] == "C"; }, [](json& e) { e["name"] = "volts"; }),
                  "counter \"volts\" is not in otherData.counter_names");
  expect_rejected(with_event_changed([](const json& e) { return e["ph"] == "X"; }, [](json& e) { e["ph"] = 5; }),
                  "field \"ph\" must be a string, not a number");
  expect_rejected(with_event_changed([](const json& e) { return e["ph"] == "X"; }, [](json& e) { e["ph"] = "Q"; }),
                  "unexpected event phase \"Q\"");
  expect_rejected(with_metadata_changed([](json& o) { o["num_ops"] = 1e12; }), "field \"num_ops\" must be an integer");
  expect_rejected(with_metadata_changed([](json& o) { o["num_ops"] = 4000000000u; }), "far more than");
  expect_rejected(with_metadata_changed([](json& o) { o["names"] = {"", 3}; }), "field \"names\" must be an array of strings");
  expect_rejected(with_metadata_changed([](json& o) { o.erase("first_op_id"); }), "otherData: missing field \"first_op_id\"");
  expect_rejected(with_metadata_changed([](json& o) { o["source_points"][1] = {5, 9, 0}; }),
                  "a source point names line 9 of 2");
  expect_rejected(with_metadata_changed([](json& o) { o["source_points"][1] = {5, 1}; }),
                  "field \"source_points\" must be [ns, line, frontend] triples");
  expect_rejected(with_metadata_changed([](json& o) { o["source_points"][0][2] = 7; }), "frontend 7 has no lane");
  expect_rejected(with_metadata_changed([](json& o) { o["source_lines"][0]["file_id"] = 99; }), "99");
  expect_rejected(with_event_changed([](const json& e) { return is_enqueue(e) && e["args"].contains("source_point"); },
                                     [](json& e) { e["args"]["source_point"] = 5; }),
                  "source point 5 is not in otherData.source_points");

  // The event number in the message points at the culprit.
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  doc["traceEvents"].push_back(doc["traceEvents"][doc["traceEvents"].size() - 1]);
  doc["traceEvents"].push_back(json{{"ph", "X"}, {"cat", "op"}, {"args", json::object()}, {"tid", 3}});
  expect_rejected(doc.dump(), "event #" + std::to_string(doc["traceEvents"].size() - 1) + " (ph \"X\"): missing field");
}

// What the model assumes never happens (engine/trace/model_check.h) is
// refused, naming the lane and the ops. hand_model's tids: frontends 1 and 2,
// CPU worker 0 = 3, the launch lane = 4, the GPU lane = 5, counters = 6.
bool is_event(const json& e, const char* kind, uint64_t id) {
  return e["ph"] == "X" && e["args"].value("event", "") == kind && e["args"].value("id", uint64_t{0}) == id;
}
std::function<bool(const json&)> event(const char* cat, uint64_t id) {
  return [cat, id](const json& e) { return is_event(e, cat, id); };
}
std::function<void(json&)> set_arg(const char* key, int64_t value) {
  return [key, value](json& e) { e["args"][key] = value; };
}
std::function<bool(const json&)> sync_event(uint64_t index) {
  return [index](const json& e) {
    return e["ph"] == "X" && e["args"].value("event", "") == "sync" && e["args"]["index"] == index;
  };
}

TEST(ChromeTrace, OverlappingSpansOnOneLaneAreRejected) {
  // Op 13 ran on CPU worker 0 from 300 ns, right when op 10 ended: moved into op 10.
  expect_rejected(with_event_changed(event("op", 13), set_arg("ns_ts", 250)),
                  "on worker lane \"CPU worker 0\", op 13 starts at 250 ns, before op 10 ends at 300 ns "
                  "(spans on one lane never overlap)");
  // A zero-length span inside another overlaps it too.
  expect_rejected(with_event_changed(event("op", 13), [](json& e) {
                    e["args"]["ns_ts"] = 299;
                    e["args"]["ns_dur"] = 0;
                  }),
                  "op 13 starts at 299 ns, before op 10 ends at 300 ns");
  // Launch lanes are lanes too: op 17's launch moved into op 16's.
  expect_rejected(with_event_changed(event("launch", 17), set_arg("ns_ts", 850)),
                  "on worker lane \"cuda:1 launch 3\", op 17 starts at 850 ns, before op 16 ends at 900 ns");
  // Spans that touch, and a GPU op running while its launch is still on the
  // host thread (two lanes), are fine.
  EXPECT_NO_THROW(parse_chrome_trace(with_event_changed(event("op", 13), [](json& e) {
    e["args"]["ns_ts"] = 300;
    e["args"]["ns_dur"] = 0;
  })));
  EXPECT_NO_THROW(parse_chrome_trace(with_event_changed(event("op", 17), set_arg("ns_ts", 920))));
}

TEST(ChromeTrace, FrontendLanesMustBeSequential) {
  // Op 10 enqueued during wait 0 [160, 310] of its own thread; at its very beginning it is fine.
  expect_rejected(with_event_changed(event("enqueue", 10), set_arg("ns_ts", 170)),
                  "on frontend \"frontend\", op 10 is enqueued at 170 ns, inside wait 0 [160 ns, 310 ns] "
                  "(a thread cannot push while it waits)");
  EXPECT_NO_THROW(parse_chrome_trace(with_event_changed(event("enqueue", 10), set_arg("ns_ts", 160))));
  // Wait 2 stretched back into wait 0.
  expect_rejected(with_event_changed(sync_event(2), [](json& e) {
                    e["args"]["ns_ts"] = 300;
                    e["args"]["ns_dur"] = 300;
                  }),
                  "on frontend \"frontend\", wait 2 begins at 300 ns, before wait 0 ends at 310 ns");
  expect_rejected(with_event_changed(event("enqueue", 14), set_arg("ns_ts", 50)),
                  "op 14 is enqueued at 50 ns, before op 10 listed ahead of it (100 ns)");
}

TEST(ChromeTrace, OpsCannotStartBeforeTheyWereEnqueuedOrLaunched) {
  expect_rejected(with_event_changed(event("op", 10), set_arg("ns_ts", 50)),
                  "op 10 starts executing at 50 ns, before it was enqueued at 100 ns");
  expect_rejected(with_event_changed(event("launch", 12), set_arg("ns_ts", 140)),
                  "op 12 starts its launch at 140 ns, before it was enqueued at 150 ns");
  expect_rejected(with_event_changed(event("op", 17), set_arg("ns_ts", 890)),
                  "op 17 starts executing at 890 ns, before its launch began at 900 ns");
}

TEST(ChromeTrace, LanesOutOfOrderAreRejected) {
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  for (json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && (e["tid"] == 3 || e["tid"] == 4)) {
      e["args"]["index"] = e["tid"] == 3 ? 1 : 0;
    }
  }
  expect_rejected(doc.dump(), "worker lane \"CPU worker 0\" comes after worker lane \"cuda:1 launch 3\"");
}

TEST(ChromeTrace, SourcePointsMustFitTheirOpsAndWaits) {
  // Op 12 pushed on frontend 1, attributed to a line run on frontend 0.
  expect_rejected(with_event_changed(event("enqueue", 12), set_arg("source_point", 0)),
                  "op 12 has source point 0 of frontend 0, not of its own frontend 1");
  expect_rejected(with_event_changed(event("enqueue", 10), set_arg("source_point", 2)),
                  "op 10 at 100 ns has source point 2, which is later (495 ns)");
  expect_rejected(with_metadata_changed([](json& o) { o["source_points"][2][0] = 10; }),
                  "on frontend \"frontend\", source point 2 comes before source point 0 in time");
  expect_rejected(with_event_changed(sync_event(1), set_arg("source_point", 3)),
                  "wait 1 has source point 3 of frontend 0, not of its own frontend 1");
}

TEST(ChromeTrace, UnknownNamesTimesAndIdsAreRejected) {
  // An op seen only executing has name 0, which a file without names lacks.
  TraceModel m;
  m.workers = {WorkerLane{"CPU worker 0", DeviceKind::cpu, 0, 0, SpanKind::execute, {0}, {}}};
  m.ops.resize(1);
  m.ops[0].id = 1, m.ops[0].start = 5, m.ops[0].end = 6;
  expect_rejected(to_chrome_trace_json(m), "op 1 has name id 0, which is not in names");
  m.names = {""};
  expect_same_model(m, parse_chrome_trace(to_chrome_trace_json(m)));
  // Every time fits below 2^50 ns, a span's end too, or it could not be written back.
  expect_rejected(with_event_changed(event("op", 15), set_arg("ns_dur", (int64_t{1} << 50) - 1)),
                  "(ph \"X\"): the span ends at 1125899906843323 ns, past the last time a trace can hold (2^50 ns)");
  expect_rejected(with_event_changed(sync_event(3), set_arg("ns_dur", (int64_t{1} << 50) - 1)),
                  "the span ends at 1125899906844423 ns");
  expect_rejected(with_metadata_changed([](json& o) { o["first_op_id"] = UINT64_MAX - 2; }),
                  "first_op_id 18446744073709551613 + num_ops 8 is past the largest op id");
  // Counter samples in time order.
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  for (json& e : doc["traceEvents"]) {
    if (e["ph"] == "C" && e["ns_ts"] == 0) e["ns_ts"] = 2000;
  }
  expect_rejected(doc.dump(), "counter sample 1 at 1000 ns comes after one at 2000 ns (samples are in time order)");
}

// Text from the file reaches the message escaped: a newline or an escape
// sequence in it neither breaks the line nor drives the terminal.
TEST(ChromeTrace, TextFromTheFileIsEscapedInMessages) {
  const std::string message =
      import_error(with_event_changed([](const json& e) { return e["ph"] == "X"; },
                                      [](json& e) { e["ph"] = "X\n\x1b[2J\x1b]0;owned\x07"; }));
  EXPECT_NE(message.find("(ph \"X\\n\\x1b[2J\\x1b]0;owned\\x07\")"), std::string::npos) << message;
  EXPECT_NE(message.find("unexpected event phase \"X\\n"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
  const std::string counter = import_error(
      with_event_changed([](const json& e) { return e["ph"] == "C"; }, [](json& e) { e["name"] = "rss\"\r"; }));
  EXPECT_NE(counter.find("counter \"rss\\\"\\r\" is not in"), std::string::npos) << counter;
  // The JSON parser's own message quotes the input too.
  const std::string broken = import_error("{\"traceEvents\": [\x1b[31m");
  EXPECT_EQ(broken.find('\x1b'), std::string::npos) << broken;
}

TEST(ChromeTrace, DuplicatedEventsAreRejected) {
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  for (const json& e : json(doc["traceEvents"])) {
    if (is_enqueue(e)) {
      doc["traceEvents"].push_back(e);
      break;
    }
  }
  expect_rejected(doc.dump(), "has a second enqueue event");
}

TEST(ChromeTrace, LaunchSpansMustBeOnLaunchLanesAndAppearOnce) {
  const auto is_launch = [](const json& e) { return e["ph"] == "X" && e["args"]["event"] == "launch"; };
  // tids: frontends 1 and 2, then CPU worker 0 = 3, the launch lane = 4, the GPU lane = 5.
  expect_rejected(with_event_changed(is_launch, [](json& e) { e["tid"] = 3; }),
                  "a launch span on tid 3, which is not a launch lane");
  expect_rejected(with_event_changed(is_exec, [](json& e) { e["tid"] = 4; }),
                  "an execution span on tid 4, which is a launch lane");
  expect_rejected(with_event_changed(
                      [](const json& e) {
                        return e["ph"] == "M" && e["name"] == "thread_name" && e["args"].value("span", "") == "launch";
                      },
                      [](json& e) { e["args"]["span"] = "sideways"; }),
                  "unknown lane span \"sideways\"");
  json doc = json::parse(to_chrome_trace_json(hand_model()));
  for (const json& e : json(doc["traceEvents"])) {
    if (is_launch(e)) {
      doc["traceEvents"].push_back(e);
      break;
    }
  }
  expect_rejected(doc.dump(), "has a second launch event");
}

// Metadata after the events (a tool that rewrote the file) is still read.
TEST(ChromeTrace, KeyOrderDoesNotMatter) {
  const TraceModel m = hand_model();
  const json doc = json::parse(to_chrome_trace_json(m));
  const std::string events_first =
      "{\"traceEvents\":" + doc["traceEvents"].dump() + ",\"otherData\":" + doc["otherData"].dump() + "}";
  expect_same_model(m, parse_chrome_trace(events_first));
}

std::string read_error(const std::string& path) {
  try {
    read_chrome_trace(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChromeTrace, MissingFileOrFolderGivesTheReason) {
  ScratchDir dir;
  EXPECT_EQ(read_error(dir.file("missing.json")),
            "cannot read trace '" + dir.file("missing.json") + "': No such file or directory");
  fs::create_directory(dir.file("folder.json"));
  EXPECT_EQ(read_error(dir.file("folder.json")), "cannot read trace '" + dir.file("folder.json") + "': Is a directory");
  write_text(dir.file("bad.json"), "{\"traceEvents\": [");
  const std::string message = read_error(dir.file("bad.json"));
  EXPECT_EQ(message.rfind("'" + dir.file("bad.json") + "': not valid JSON (syntax error at byte ", 0), 0u) << message;
}

// Only regular files are read: a FIFO would block the open (or the read)
// forever, /dev/zero would be read until memory runs out. Both are refused
// at once, as is a file over the size cap, before a byte is read.
TEST(ChromeTrace, SpecialAndOversizedFilesAreRefusedBeforeReading) {
  ScratchDir dir;
  const std::string fifo = dir.file("pipe.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(read_error(fifo), "cannot read trace '" + fifo + "': it is a FIFO (named pipe), not a trace file");
  if (fs::exists("/dev/zero")) {
    EXPECT_EQ(read_error("/dev/zero"), "cannot read trace '/dev/zero': it is a character device, not a trace file");
  }
  // Sparse: no disk space used, and never read.
  const std::string big = dir.file("big.json");
  { std::ofstream(big) << "{}"; }
  fs::resize_file(big, static_cast<uintmax_t>(kMaxTraceFileBytes) + 1);
  EXPECT_EQ(read_error(big), "cannot read trace '" + big + "': it is " + std::to_string(kMaxTraceFileBytes + 1) +
                                 " bytes, more than the 2147483648 bytes a trace file may have");
  // A link to a trace reads the trace.
  write_chrome_trace(hand_model(), dir.file("real.json"));
  fs::create_symlink(dir.file("real.json"), dir.file("link.json"));
  EXPECT_EQ(read_chrome_trace(dir.file("link.json")).ops.size(), hand_model().ops.size());
}

// --- failed writes ---------------------------------------------------------------

std::string write_error(const TraceModel& m, const std::string& path) {
  try {
    write_chrome_trace(m, path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChromeTrace, FailedWritesThrowAndLeaveExistingFilesUntouched) {
  ScratchDir dir;
  const TraceModel m = hand_model();
  std::string message = write_error(m, dir.file("no_such_folder/t.json"));
  EXPECT_EQ(message, "cannot write trace '" + dir.file("no_such_folder/t.json") + "': folder '" +
                         dir.file("no_such_folder") + "' does not exist");

  write_text(dir.file("file"), "a file, not a folder");
  message = write_error(m, dir.file("file/t.json"));
  EXPECT_NE(message.find("'" + dir.file("file") + "' is not a folder"), std::string::npos) << message;

  fs::create_directory(dir.file("folder.json"));
  message = write_error(m, dir.file("folder.json"));
  EXPECT_NE(message.find("it is a folder"), std::string::npos) << message;

  // A model that cannot be written fails half way: the old file stays as it was.
  write_text(dir.file("old.json"), "the previous trace");
  TraceModel bad = m;
  bad.ops[5].end = -3;
  message = write_error(bad, dir.file("old.json"));
  EXPECT_NE(message.find("op 15"), std::string::npos) << message;
  EXPECT_EQ(read_text(dir.file("old.json")), "the previous trace");

  // A folder this process may not write to (permissions do not stop root).
  if (::geteuid() != 0) {
    fs::create_directory(dir.file("locked"));
    write_text(dir.file("locked/t.json"), "locked trace");
    fs::permissions(dir.file("locked"), fs::perms::owner_read | fs::perms::owner_exec);
    message = write_error(m, dir.file("locked/t.json"));
    EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
    fs::permissions(dir.file("locked"), fs::perms::owner_all);
    EXPECT_EQ(read_text(dir.file("locked/t.json")), "locked trace");
  }

  // No temporary files left behind.
  std::vector<std::string> expected = {"file", "folder.json", "old.json"};
  if (::geteuid() != 0) expected = {"file", "folder.json", "locked", "old.json"};
  EXPECT_EQ(dir.entries(), expected);
}

TEST(ChromeTrace, WriteReplacesAnExistingFileAndKeepsItsMode) {
  ScratchDir dir;
  const std::string path = dir.file("t.json");
  write_text(path, "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_chrome_trace(hand_model(), path);
  EXPECT_EQ(read_text(path), to_chrome_trace_json(hand_model()));
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_chrome_trace(hand_model(), dir.file("new.json"));
  EXPECT_EQ(fs::status(dir.file("new.json")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"new.json", "t.json"}));
}

}  // namespace
}  // namespace asyncscope::trace
