// `asyncscope view` on real profilers' traces: every file of
// ../shared/traces opens (the window is asked for), is described with
// --print, and writes its figures with --json in the documented schema;
// bad files are one line and exit 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/trace/profile_model.h"
#include "support/cli_harness.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::cli;
using testing::CliResult;
using testing::expect_bad_input;
using testing::read;
using testing::scratch;

std::string real_trace(const std::string& name) {
  const char* env = std::getenv("ASYNCSCOPE_REAL_TRACES");
  const std::string path = std::string(env != nullptr ? env : ASYNCSCOPE_REAL_TRACES) + "/" + name;
  return fs::exists(path) ? path : "";
}

const char* const kFiles[] = {"event_sync.json.gz",       "event_sync_multi_stream.json.gz",
                              "triton_example.json.gz",   "amd_mi250_minitoy.json.gz",
                              "simple_add.json.gz",       "cpu_only.json.gz",
                              "legacy_inference.json.gz", "sampled_training.json.gz",
                              "mxnet_data_copy.json",     "torch113_cpu_chapter.json"};

TEST(CliProfile, EveryRealTraceOpensPrintsAndWritesJson) {
  for (const char* name : kFiles) {
    SCOPED_TRACE(name);
    const std::string path = real_trace(name);
    if (path.empty()) GTEST_SKIP() << "no " << name << " (the real traces live in ../shared/traces)";
    const CliResult opened = cli({"view", path});
    ASSERT_EQ(opened.code, 0) << opened.err;
    ASSERT_EQ(opened.windows.size(), 1u);
    EXPECT_EQ(opened.windows[0].view_file, path);
    const CliResult printed = cli({"view", path, "--print"});
    ASSERT_EQ(printed.code, 0) << printed.err;
    EXPECT_NE(printed.out.find(" spans on "), std::string::npos) << printed.out;
    EXPECT_TRUE(printed.windows.empty());
    const std::string out = scratch("profile.json");
    const CliResult written = cli({"view", path, "--json", out});
    ASSERT_EQ(written.code, 0) << written.err;
    EXPECT_TRUE(written.windows.empty());
    const json doc = json::parse(read(out));
    for (const char* key : {"format", "bound", "verdict", "streams", "temporal_us", "launch_stats", "ops", "memory",
                            "lanes", "notes", "peak_live_bytes", "peak_live_holders"}) {
      EXPECT_TRUE(doc.contains(key)) << key;
    }
    for (const json& s : doc["streams"]) {
      for (const char* key : {"device", "stream", "queue_length_max", "queue_length_mean", "busy_us", "idle_us",
                              "launches", "launch_delay_median_us"}) {
        EXPECT_TRUE(s.contains(key)) << key;
      }
      for (const char* key : {"host_wait", "kernel_wait", "other"}) EXPECT_TRUE(s["idle_us"].contains(key)) << key;
    }
    for (const char* key : {"kernel", "idle", "compute", "non_compute"}) {
      EXPECT_TRUE(doc["temporal_us"].contains(key)) << key;
    }
  }
}

TEST(CliProfile, JsonCarriesHtasFiguresWithCompleteSteps) {
  const std::string path = real_trace("sampled_training.json.gz");
  if (path.empty()) GTEST_SKIP() << "no sampled_training.json.gz (the real traces live in ../shared/traces)";
  const std::string out = scratch("sampled.json");
  ASSERT_EQ(cli({"view", path, "--complete-steps", "--json", out}).code, 0);
  const json doc = json::parse(read(out));
  EXPECT_EQ(doc["format"], "kineto");
  EXPECT_EQ(doc["bound"], "frontend");  // launch-bound
  std::map<int64_t, int64_t> queue;
  for (const json& s : doc["streams"]) queue[s["stream"].get<int64_t>()] = s["queue_length_max"].get<int64_t>();
  EXPECT_EQ(queue, (std::map<int64_t, int64_t>{{7, 76}, {23, 4}, {25, 8}, {84, 1}, {203, 1}}));
  EXPECT_EQ(doc["launch_stats"]["launches"], 602);
  EXPECT_NEAR(doc["temporal_us"]["kernel"].get<double>(), 600058, 6000);
}

TEST(CliProfile, TheChaptersGpuTraceNamesItsMemoryHolders) {
  const std::string path = std::string(ASYNCSCOPE_SOURCE_DIR) + "/tests/data/traces/torch211_h200_chapter_cuda.json.gz";
  const std::string out = scratch("h200.json");
  ASSERT_EQ(cli({"view", path, "--json", out}).code, 0);
  const json doc = json::parse(read(out));
  ASSERT_FALSE(doc["peak_live_holders"].empty());
  EXPECT_EQ(doc["peak_live_holders"][0]["op"].get<std::string>().rfind("aten::", 0), 0u);
  EXPECT_GT(doc["peak_live_bytes"].get<int64_t>(), 0);
  const CliResult printed = cli({"view", path, "--print"});
  EXPECT_NE(printed.out.find("cuda:0 memory peaks at"), std::string::npos) << printed.out;
}

TEST(CliProfile, BadTracesAreOneLineAndExitTwo) {
  const std::string bad = scratch("bad_profile.json");
  std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": ";
  expect_bad_input({"view", bad, "--print"}, "'" + bad + "': not valid JSON");
  expect_bad_input({"view", bad}, "'" + bad + "': not valid JSON");
  const std::string gz = scratch("bad_profile.json.gz");
  std::ofstream(gz, std::ios::binary) << std::string("\x1f\x8b\x08\x00garbage", 12);
  expect_bad_input({"view", gz, "--json", scratch("never.json")}, "cannot read trace '" + gz + "': the gzip data");
  EXPECT_FALSE(fs::exists(scratch("never.json")));
  // An unwritable --json is refused before the trace is read.
  const std::string path = real_trace("event_sync.json.gz");
  if (!path.empty()) expect_bad_input({"view", path, "--json", "/nonexistent/dir/x.json"}, "cannot write --json");
}

TEST(CliProfile, DiffComparesTwoTracesOfAnyKind) {
  const std::string a = real_trace("event_sync.json.gz"), b = real_trace("event_sync_multi_stream.json.gz");
  if (a.empty() || b.empty()) GTEST_SKIP() << "the real traces live in ../shared/traces";
  const std::string out = scratch("diff.json");
  const CliResult r = cli({"diff", a, b, "--json", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("launches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("per op name"), std::string::npos) << r.out;
  const json doc = json::parse(read(out));
  EXPECT_EQ(doc["a"], a);
  bool launches = false;
  for (const json& row : doc["summary"]) {
    if (row["what"] == "launches") {
      launches = true;
      EXPECT_EQ(row["a_value"], 5);
      EXPECT_EQ(row["b_value"], 6);
    }
  }
  EXPECT_TRUE(launches);
  EXPECT_FALSE(doc["ops"].empty());
  // Ours against a profiler's: a run of the chapter's loop and a PyTorch trace.
  const std::string ours = scratch("ours.json");
  ASSERT_EQ(cli({"run", "sync-vs-async", "--iterations", "20", "--trace", ours}).code, 0);
  const CliResult mixed = cli({"diff", ours, a});
  EXPECT_EQ(mixed.code, 0) << mixed.err;
  EXPECT_NE(mixed.out.find("asyncscope export"), std::string::npos) << mixed.out;
  expect_bad_input({"diff", a, scratch("missing.json")}, "cannot read trace");
  // The app opens two traces stacked to compare.
  const CliResult both = cli({"view", a, b});
  ASSERT_EQ(both.code, 0) << both.err;
  ASSERT_EQ(both.windows.size(), 1u);
  EXPECT_EQ(both.windows[0].view_other, b);
}

// `asyncscope profile` runs a program with the real PyTorch, and the demo
// script that runs on both editions shows the contrast: on the CPU the real
// PyTorch computes each product inside the call, on the script's thread;
// asyncscope.torch enqueues it, runs it on its workers, and the frontend
// waits for the result at the end.
TEST(CliProfile, ProfileRunsARealPyTorchScriptAndTheDemoContrastsTheEditions) {
  const std::string script = std::string(ASYNCSCOPE_SOURCE_DIR) + "/assets/scripts/pytorch_vs_asyncscope.py";
  const std::string real = scratch("real_torch.json"), ours = scratch("ours_torch.json");
  ::setenv("SIZE", "200", 1);
  ::setenv("REPS", "4", 1);
  const CliResult profiled = cli({"profile", "--trace", real, "--json", scratch("real_figures.json"), script});
  if (profiled.code == 2 && profiled.err.find("has no torch") != std::string::npos) {
    ::unsetenv("SIZE");
    ::unsetenv("REPS");
    GTEST_SKIP() << "the build's python3 has no PyTorch (Debian: python3-torch): " << profiled.err;
  }
  ASSERT_EQ(profiled.code, 0) << profiled.err;
  const CliResult ran = cli({"script", script, "--trace", ours});
  ::unsetenv("SIZE");
  ::unsetenv("REPS");
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_NE(ran.out.find("asyncscope.torch: the loop of 4 products"), std::string::npos) << ran.out;

  const trace::OpenedTrace r = trace::open_trace(real);
  ASSERT_TRUE(r.foreign());
  // The real one: the products are spans of the calling thread itself; it never waits.
  uint64_t products = 0;
  std::set<uint32_t> lanes;
  for (const trace::ProfileSpan& s : r.profile->spans) {
    if (r.profile->name(s) != "aten::mm") continue;
    ++products;
    lanes.insert(s.lane);
    EXPECT_FALSE(r.profile->lanes[s.lane].gpu);
  }
  EXPECT_EQ(products, 4u);
  EXPECT_EQ(lanes.size(), 1u);
  EXPECT_TRUE(r.model.syncs.empty());
  if (r.profile->format == trace::ProfileFormat::json_array) {
    EXPECT_NE(r.notes.front().find("without Kineto"), std::string::npos) << "says what Debian's PyTorch lacks";
  }

  const trace::OpenedTrace o = trace::open_trace(ours);
  ASSERT_FALSE(o.foreign());
  // Ours: the products run on worker lanes, and a wait of the frontend ends after the last of them.
  int64_t last_product_end = 0;
  uint64_t ours_products = 0;
  for (const trace::OpInfo& op : o.model.ops) {
    if (!op.executed() || o.model.op_name(op) != "dot") continue;
    ++ours_products;
    last_product_end = std::max(last_product_end, op.end);
    EXPECT_NE(op.enqueue, trace::kNoTime);
  }
  EXPECT_EQ(ours_products, 4u);
  bool waited = false;
  for (const trace::SyncSpan& w : o.model.syncs) waited = waited || w.end >= last_product_end;
  EXPECT_TRUE(waited) << "the frontend waits for the products at the end";
  // And the two compare.
  const CliResult d = cli({"diff", ours, real});
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("aten::mm"), std::string::npos) << d.out;
}

// A window of a profiler's trace reports the window's figures (its verdict,
// its streams' busy time), and a window after the trace's end is refused.
TEST(CliProfile, AWindowOfAProfilersTraceHasTheWindowsFigures) {
  const std::string path = real_trace("sampled_training.json.gz");
  if (path.empty()) GTEST_SKIP() << "no sampled_training.json.gz (the real traces live in ../shared/traces)";
  const std::string whole = scratch("whole.json"), part = scratch("part.json"), svg = scratch("part.svg");
  ASSERT_EQ(cli({"view", path, "--json", whole}).code, 0);
  const json w = json::parse(read(whole));
  const trace::OpenedTrace opened = trace::open_trace(path);
  const double end = static_cast<double>(opened.model.end_time()) * 1e-9;
  const std::string range = "0:" + std::to_string(end / 2);
  const CliResult r = cli({"view", path, "--json", part, "--svg", svg, "--range", range});
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(read(part));
  ASSERT_FALSE(p["streams"].empty());
  double busy_whole = 0, busy_part = 0;
  for (const json& s : w["streams"]) busy_whole += s["busy_us"].get<double>();
  for (const json& s : p["streams"]) busy_part += s["busy_us"].get<double>();
  EXPECT_LT(busy_part, busy_whole) << "the window's figures are the whole trace's";
  EXPECT_NE(p["verdict"], w["verdict"]);
  EXPECT_NE(read(svg).find(p["verdict"].get<std::string>().substr(0, 20)), std::string::npos) << "the picture says the window's verdict";
  expect_bad_input({"view", path, "--svg", svg, "--range", std::to_string(end * 2 + 5) + ":" + std::to_string(end * 3 + 10)},
                   "after the trace's end");
}

TEST(CliProfile, ProfileRefusesAMissingScript) {
  expect_bad_input({"profile", scratch("no_such_script.py")}, "cannot read script");
}

// Profiling needs the real PyTorch in the build's python3: each test below
// skips, saying so, without it.
bool has_torch(const CliResult& r) { return !(r.code == 2 && r.err.find("has no torch") != std::string::npos); }

std::string script_file(const std::string& name, const std::string& text) {
  const std::string path = scratch(name);
  std::ofstream(path) << text;
  return path;
}

uint64_t mm_spans(const std::string& trace) {
  const trace::OpenedTrace t = trace::open_trace(trace);
  uint64_t n = 0;
  for (const trace::ProfileSpan& s : t.profile->spans) n += t.profile->name(s) == "aten::mm";
  return n;
}

// The program's own exit status is passed through and said, its trace kept;
// the runner's outcome never shares a number with it (2, 3 and 4 once meant
// "bad arguments", "no PyTorch" and "raised").
TEST(CliProfile, TheProgramsExitStatusIsPassedThroughWithItsTrace) {
  for (const int status : {0, 2, 3, 4, 7}) {
    SCOPED_TRACE(status);
    const std::string trace = scratch("exit" + std::to_string(status) + ".json");
    const std::string script = script_file("exit.py", "import sys, torch\nx = torch.ones(8, 8)\ny = torch.mm(x, x)\n"
                                                      "sys.exit(" + std::to_string(status) + ")\n");
    const CliResult r = cli({"profile", "--trace", trace, "--print", script});
    if (!has_torch(r)) GTEST_SKIP() << r.err;
    EXPECT_EQ(r.code, status) << r.err;
    if (status != 0) {
      EXPECT_NE(r.err.find("the program exited with status " + std::to_string(status)), std::string::npos) << r.err;
    }
    EXPECT_EQ(mm_spans(trace), 1u);
    EXPECT_NE(r.out.find(" spans on "), std::string::npos) << "described";
  }
  const std::string raised = script_file("raise.py", "import torch\nx = torch.mm(torch.ones(2, 2), torch.ones(2, 2))\n"
                                                     "raise ValueError('the program failed')\n");
  const std::string trace = scratch("raised.json");
  const CliResult r = cli({"profile", "--trace", trace, "--print", raised});
  if (!has_torch(r)) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("raised an exception"), std::string::npos) << r.err;
  EXPECT_EQ(mm_spans(trace), 1u) << "what ran before the error";
}

// os._exit skips every handler: the trace of what ran is written all the
// same, and an old file at --trace is never described as this run's.
TEST(CliProfile, AProgramThatLeavesByOsExitStillGetsItsOwnTrace) {
  const std::string trace = scratch("os_exit.json");
  std::ofstream(trace) << "[{\"name\": \"old\", \"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1}]";
  const std::string script = script_file("os_exit.py", "import os, torch\nx = torch.ones(4, 4)\n"
                                                       "for _ in range(3):\n    x = torch.mm(x, x)\nos._exit(5)\n");
  const CliResult r = cli({"profile", "--trace", trace, "--print", script});
  if (!has_torch(r)) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.code, 5) << r.err;
  EXPECT_NE(r.err.find("(os._exit)"), std::string::npos) << r.err;
  EXPECT_EQ(mm_spans(trace), 3u) << "the old file was described as this run's";
}

// A process the program forked runs on after it, and never writes the trace.
TEST(CliProfile, AForkedChildThatOutlivesTheProgramDoesNotWriteTheTrace) {
  const std::string trace = scratch("forked.json"), done = scratch("child_done");
  fs::remove(done);
  const std::string script = script_file(
      "fork.py", "import os, time, torch\nx = torch.mm(torch.ones(4, 4), torch.ones(4, 4))\n"
                 "if os.fork() == 0:\n    time.sleep(1.0)\n    y = torch.mm(x, x)\n    open('" + done + "', 'w').close()\n");
  const CliResult r = cli({"profile", "--trace", trace, "--print", script});
  if (!has_torch(r)) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string written = read(trace);
  for (int i = 0; i < 100 && !fs::exists(done); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(done)) << "the child did not finish";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(read(trace), written) << "the forked child wrote the trace after asyncscope reported";
  EXPECT_EQ(mm_spans(trace), 1u);
}

// Without --trace, the trace lives in a private folder (mkdtemp, 0700) that
// is gone at the end: no predictable name to plant a link at, nothing left.
TEST(CliProfile, WithoutTraceNothingIsLeftAndNoPredictableNameIsUsed) {
  const std::string tmp = scratch("tmp");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const char* saved = std::getenv("TMPDIR");
  const std::string saved_value = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const std::string script = script_file("plain.py", "import torch\nprint(torch.mm(torch.ones(2, 2), torch.ones(2, 2)).sum().item())\n");
  const std::string answers = scratch("answers.json");
  const CliResult r = cli({"profile", "--json", answers, script});
  if (saved != nullptr) ::setenv("TMPDIR", saved_value.c_str(), 1); else ::unsetenv("TMPDIR");
  if (!has_torch(r)) GTEST_SKIP() << r.err;
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_empty(tmp)) << "left behind in TMPDIR";
  EXPECT_NE(read(answers).find("\"ops\""), std::string::npos);
}

// SIGTERM (or SIGINT) to asyncscope while the program runs: the program gets
// Ctrl+C and writes what ran, the program and what it started are gone
// within 3 s, and asyncscope exits 128 + the signal, naming the kept trace.
TEST(CliProfile, ASignalStopsTheProgramAndItsChildrenAndKeepsWhatRan) {
  const std::string dir = scratch("");
  std::ofstream(dir + "/forever.py")
      << "import os, time, torch\nx = torch.mm(torch.ones(4, 4), torch.ones(4, 4))\n"
         "child = os.fork()\nif child == 0:\n    signal = __import__('signal')\n"
         "    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    while True:\n        time.sleep(1)\n"
         "open('pids', 'w').write(f'{os.getpid()} {child}')\nwhile True:\n    time.sleep(0.05)\n";
  const CliResult r = testing::shell(
      "rm -f pids\n\"$ASYNCSCOPE\" profile --trace kept.json --print forever.py > out.txt 2> err.txt &\npid=$!\n"
      "for i in $(seq 200); do [ -s pids ] && break; sleep 0.1; done\n[ -s pids ] || { echo 'no pids'; exit 90; }\n"
      "start=$(date +%s%N)\nkill -TERM $pid\nwait $pid\nstatus=$?\nend=$(date +%s%N)\n"
      "echo status=$status ms=$(( (end - start) / 1000000 ))\nsleep 0.2\n"
      "for p in $(cat pids); do\n  [ -e /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status && echo alive=$p\ndone\n"
      "cat err.txt >&2\nexit 0\n");  // a zombie (killed, not yet reaped by whoever adopted it) is gone
  if (r.err.find("has no torch") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("status=143"), std::string::npos) << r.out << r.err;
  const size_t ms = r.out.find("ms=");
  ASSERT_NE(ms, std::string::npos) << r.out;
  EXPECT_LT(std::stol(r.out.substr(ms + 3)), 3000) << r.out;
  EXPECT_EQ(r.out.find("alive="), std::string::npos) << "left running: " << r.out;
  EXPECT_NE(r.err.find("interrupted by SIGTERM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the trace of what ran is in 'kept.json'"), std::string::npos) << r.err;
  EXPECT_EQ(mm_spans(dir + "/kept.json"), 1u);
}

}  // namespace
}  // namespace asyncscope::app
