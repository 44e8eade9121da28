// The command line, driven in-process: exit codes, one-line messages for bad
// input, result files, and that nothing is clobbered on failure.
#include "app/cli.h"
#include "engine/tensor/op_table.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "engine/cuda/cuda.h"
#include "engine/trace/chrome_trace.h"
#include "support/cli_harness.h"
#include "support/gpu_trace_model.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;

using testing::cli;
using testing::CliResult;
using testing::expect_bad_input;
using testing::read;
using testing::scratch;
using testing::shell;

TEST(Cli, HelpVersionAndList) {
  const CliResult help = cli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  const CliResult version = cli({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("asyncscope "), std::string::npos);
  const CliResult list = cli({"list"});
  EXPECT_EQ(list.code, 0);
  for (const char* demo : {"queued-vs-finished", "sync-functions", "sync-vs-async", "dependency-graph",
                           "host-vs-gpu", "--iterations N", "(default 1000)"}) {
    EXPECT_NE(list.out.find(demo), std::string::npos) << demo;
  }
  // Each parameter's flag stands apart from its help, also a long one
  // (memory-and-sync's --sync lists four choices): it ends its line.
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("    --", 0) != 0) continue;
    const size_t flag_end = line.find(' ', line.find(' ', 6) + 1);  // "--name VALUE" ends here
    EXPECT_TRUE(flag_end == std::string::npos || line.compare(flag_end, 2, "  ") == 0) << line;
  }
  EXPECT_NE(list.out.find("--sync none|item|wait_to_read|wait_all\n"), std::string::npos);
  // The op table: a row per op, and the same as JSON.
  const CliResult ops = cli({"ops"});
  EXPECT_EQ(ops.code, 0);
  for (const OpDef& op : op_table()) {
    std::string row = "\n";
    row.append(op.name).append(" ");
    EXPECT_NE(ops.out.find(row), std::string::npos) << op.name;
  }
  const CliResult ops_json = cli({"ops", "--json"});
  ASSERT_EQ(ops_json.code, 0);
  const nlohmann::json rows = nlohmann::json::parse(ops_json.out);
  ASSERT_EQ(rows.size(), op_table().size());
  EXPECT_EQ(rows[0]["name"], std::string(op_table()[0].name));
  EXPECT_EQ(cli({"ops", "--bogus"}).code, 2);
  const CliResult demo_help = cli({"run", "sync-vs-async", "--help"});
  EXPECT_EQ(demo_help.code, 0);
  EXPECT_NE(demo_help.out.find("--iterations"), std::string::npos);
}

TEST(Cli, BadInputGivesOneLineAndExitTwo) {
  expect_bad_input({"run", "nope"}, "unknown demo 'nope'");
  expect_bad_input({"frobnicate"}, "asyncscope:");
  expect_bad_input({"run", "sync-vs-async", "--colour", "red"}, "--colour");
  expect_bad_input({"run", "sync-vs-async", "--iterations", "ten"}, "not a whole number");
  expect_bad_input({"run", "sync-vs-async", "--iterations", "0"}, "out of range");
  expect_bad_input({"run", "sync-vs-async", "--size", "-5"}, "out of range");
  expect_bad_input({"run", "sync-vs-async", "--iterations"}, "--iterations");
  expect_bad_input({"run", "sync-vs-async", "--device", "tpu"}, "not one of cpu|cuda");
  expect_bad_input({"run", "queued-vs-finished", "--size", "60000"}, "memory budget");
  if (!cuda::available()) {
    expect_bad_input({"run", "queued-vs-finished", "--size", "8", "--device", "cuda"}, "CUDA is not available");
  }
  expect_bad_input({"run", "queued-vs-finished", "--size", "8", "--json", "/nonexistent/dir/r.json"},
                   "does not exist");
  const std::string folder = fs::path(scratch("x")).parent_path().string();
  expect_bad_input({"run", "queued-vs-finished", "--size", "8", "--trace", folder}, "it is a folder");
}

// The up-front estimate counts what a run grows with besides its arrays
// (trace, model, pending ops) and is honest for every knob: an in-flight
// bound too large to hold anything back does not make it assume two batches
// (a run so estimated can outgrow its budget many times over).
TEST(Cli, TheEstimateRefusesRunsWhoseTraceAndPendingOpsCannotFit) {
  for (const char* bound : {"0", "100000000"}) {
    const CliResult r = shell(std::string("ASYNCSCOPE_MEMORY_BUDGET_MB=300 \"$ASYNCSCOPE\" run memory-and-sync ") +
                              "--batches 1000000 --batch-size 1 --max-inflight " + bound);
    EXPECT_EQ(r.code, 2) << bound << ": " << r.err;
    EXPECT_NE(r.err.find("more than the memory budget"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // A million tiny iterations: nearly all of it is trace and pending ops.
  const CliResult tiny = shell(
      "ASYNCSCOPE_MEMORY_BUDGET_MB=300 \"$ASYNCSCOPE\" run sync-vs-async --iterations 1000000 --size 1");
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("more than the memory budget"), std::string::npos) << tiny.err;
  // A bound that holds the frontend back fits, and runs.
  const CliResult bounded = shell(
      "ASYNCSCOPE_MEMORY_BUDGET_MB=300 \"$ASYNCSCOPE\" run memory-and-sync --batches 200 --batch-size 1 "
      "--max-inflight 64");
  EXPECT_EQ(bounded.code, 0) << bounded.err;
}

// What the user typed or a file held is quoted and escaped in a message: a
// newline cannot make it two lines, an ESC sequence cannot reach the terminal.
// --simulated-gpus is process-wide (fixed at its first read), so these run
// the real executable in processes of their own.
TEST(Cli, SimulatedGpusRunTheDeviceDemosWithoutAGpu) {
  const CliResult r = shell(
      "\"$ASYNCSCOPE\" --simulated-gpus 2 run host-vs-gpu --device cuda --size 64 --repeats 2 --json out.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("a simulated GPU"), std::string::npos) << r.out;
  const CliResult bad = shell("\"$ASYNCSCOPE\" --simulated-gpus 17 list");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--simulated-gpus: simulated GPUs: a number from 0 to 16, got 17"), std::string::npos)
      << bad.err;
  const CliResult env = shell("ASYNCSCOPE_SIMULATED_GPUS=x \"$ASYNCSCOPE\" run host-vs-gpu --device cuda --size 8");
  EXPECT_NE(env.code, 0);
  EXPECT_NE(env.err.find("ASYNCSCOPE_SIMULATED_GPUS must be a number from 0 to 16, got 'x'"), std::string::npos)
      << env.err;
}

TEST(Cli, MessagesEscapeUserText) {
  const auto expect_escaped = [](const std::vector<std::string>& args, const std::string& fragment) {
    expect_bad_input(args, fragment);
    const CliResult r = cli(args);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  };
  expect_escaped({"run", "no\npe\x1b[31m"}, "unknown demo 'no\\npe\\x1b[31m'");
  expect_escaped({"run", "sync-vs-async", "--iterations", "1\n\x1b[2J"}, "--iterations '1\\n\\x1b[2J': not a whole number");
  expect_escaped({"run", "sync-vs-async", "--device", "\x1b]0;x\x07"}, "'\\x1b]0;x\\x07': not one of");
  expect_escaped({"--demo", "bad\rname"}, "unknown demo 'bad\\rname'");
  expect_escaped({"--demo", "memory-and-sync", "--bat\x1b" "ches", "3"}, "'--bat\\x1bches' is not an option");
  expect_escaped({"run", "sync-vs-async", "--col\x1bour", "red"}, "--col\\x1bour");  // CLI11's own message
  expect_escaped({"run", "queued-vs-finished", "--json", "/nonexistent/a\nb.json"}, "'/nonexistent/a\\nb.json'");

  // A trace whose ph holds a newline and an escape sequence.
  const std::string trace = scratch("evil.json");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", trace}).code, 0);
  nlohmann::json doc = nlohmann::json::parse(read(trace));
  for (auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      e["ph"] = "X\n\x1b[31mred";
      break;
    }
  }
  { std::ofstream(trace) << doc.dump(); }
  expect_escaped({"view", trace, "--print"}, "(ph \"X\\n\\x1b[31mred\")");
  // What --print shows of a file, its lane names, is escaped too.
  const std::string named = scratch("named.json");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", named}).code, 0);
  doc = nlohmann::json::parse(read(named));
  for (auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["lane"] == "frontend") e["args"]["name"] = "main\x1b[2J";
  }
  { std::ofstream(named) << doc.dump(); }
  const CliResult printed = cli({"view", named, "--print"});
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_NE(printed.out.find("  main\\x1b[2J: "), std::string::npos) << printed.out;
  EXPECT_EQ(printed.out.find('\x1b'), std::string::npos) << printed.out;
  expect_escaped({"view", trace}, "unexpected event phase \"X\\n\\x1b[31mred\"");
}

TEST(Cli, BadInputLeavesExistingFilesUntouched) {
  const std::string json = scratch("keep.json");
  { std::ofstream(json) << "precious"; }
  const CliResult r = cli({"run", "sync-vs-async", "--iterations", "zero", "--json", json});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(read(json), "precious");
}

TEST(Cli, RunPrintsTheTableAndWritesResultsJson) {
  const std::string json = scratch("results.json");
  const CliResult r = cli({"run", "sync-vs-async", "--iterations", "20", "--size", "16", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sync-vs-async (iterations=20 size=16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model t1 + n max(t1, t2) + t3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-bound: "), std::string::npos) << r.out;  // the verdict line
  const nlohmann::json doc = nlohmann::json::parse(read(json));
  EXPECT_EQ(doc["demo"], "sync-vs-async");
  EXPECT_EQ(doc["params"]["iterations"], 20);
  EXPECT_EQ(doc["params"]["device"], "cpu");
  for (const char* key : {"sync_s", "async_s", "t1_us", "t2_us", "t3_us", "model_sync_s", "model_async_s",
                          "model_backend_s", "model_frontend_s"}) {
    EXPECT_TRUE(doc["results"].contains(key)) << key;
    EXPECT_TRUE(doc["results"][key].is_number()) << key;
  }
  // The answers from the trace: who was the bottleneck, what held the memory.
  ASSERT_TRUE(doc["bound"].is_string());
  EXPECT_TRUE(doc["bound"] == "frontend" || doc["bound"] == "backend") << doc["bound"];
  double workers = 0;
  for (const char* key : {"worker_busy_frac", "worker_starved_frac", "worker_held_frac"}) {
    ASSERT_TRUE(doc[key].is_number()) << key;
    EXPECT_GE(doc[key].get<double>(), 0) << key;
    workers += doc[key].get<double>();
  }
  EXPECT_NEAR(workers, 1.0, 1e-9);
  EXPECT_GT(doc["frontend_wait_frac"].get<double>(), 0);
  EXPECT_LT(doc["frontend_wait_frac"].get<double>(), 1);
  ASSERT_TRUE(doc["peak_live_holders"].is_array());
  ASSERT_FALSE(doc["peak_live_holders"].empty());
  uint64_t held = 0;
  for (const auto& h : doc["peak_live_holders"]) {
    EXPECT_TRUE(h["op"].is_string());
    EXPECT_TRUE(h["line"].is_null());  // a C++ demo has no script lines
    EXPECT_GT(h["count"].get<uint64_t>(), 0u);
    held += h["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(held, doc["peak_live_bytes"].get<uint64_t>());  // fewer than 8 kinds of holder here
  for (const auto& entry : fs::directory_iterator(fs::path(json).parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

// The trace keeps what made it: the demo, its knobs as given, the same
// result table the JSON has; `view --print` of it is the run's own.
TEST(Cli, ATraceKeepsTheDemoItsKnobsAndItsResults) {
  const std::string json = scratch("origin.json"), trace = scratch("origin.trace.json");
  const CliResult r = cli({"run", "sync-vs-async", "--iterations", "20", "--size", "16", "--json", json, "--trace", trace});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json results = nlohmann::json::parse(read(json));
  const trace::TraceModel m = trace::read_chrome_trace(trace);
  EXPECT_EQ(m.origin.program, "sync-vs-async");
  std::map<std::string, std::string> params(m.origin.params.begin(), m.origin.params.end());
  EXPECT_EQ(params["iterations"], "20");
  EXPECT_EQ(params["size"], "16");
  EXPECT_EQ(params["device"], "cpu");
  ASSERT_EQ(m.origin.results.size(), results["results"].size());
  for (const trace::RunOrigin::Row& row : m.origin.results) {
    ASSERT_TRUE(results["results"].contains(row.key)) << row.key;
    EXPECT_EQ(row.value, results["results"][row.key].get<double>()) << row.key;
    EXPECT_FALSE(row.label.empty()) << row.key;
  }
  EXPECT_EQ(m.origin.notes, results["notes"].get<std::vector<std::string>>());
  EXPECT_EQ(nlohmann::json::parse(read(trace))["otherData"]["run_label"], "sync-vs-async");
  // Its answers as JSON carry the run's own keys and values.
  const std::string answers = scratch("origin.answers.json");
  ASSERT_EQ(cli({"view", trace, "--json", answers}).code, 0);
  const nlohmann::json saved = nlohmann::json::parse(read(answers));
  EXPECT_EQ(saved["demo"], results["demo"]);
  EXPECT_EQ(saved["params"], results["params"]) << "numbers as numbers, choices as text";
  EXPECT_EQ(saved["results"], results["results"]);
  EXPECT_EQ(saved["notes"], results["notes"]);
  // Described, the file shows the table the run printed.
  const CliResult printed = cli({"view", trace, "--print"});
  ASSERT_EQ(printed.code, 0) << printed.err;
  const size_t made = printed.out.find("made by sync-vs-async (iterations=20 size=16 ");
  ASSERT_NE(made, std::string::npos) << printed.out;
  const size_t table = r.out.find("sync-vs-async (iterations=20 size=16 ");
  ASSERT_NE(table, std::string::npos) << r.out;
  // The run's table ends where its verdict line (from the trace, not kept) begins.
  const size_t verdict = r.out.rfind('\n', r.out.find("-bound: ")) + 1;
  const std::string run_table = r.out.substr(table, verdict - table);
  EXPECT_NE(printed.out.find(run_table), std::string::npos)
      << "the run printed:\n" << run_table << "the file:\n" << printed.out;
}

// A listing or result table that never reached its reader is a failure:
// exit 1 and one line on stderr, never a silent exit 0.
TEST(Cli, LostStandardOutputExitsOne) {
  struct Full : std::streambuf {
    int overflow(int) override { return traits_type::eof(); }
  } full;
  std::ostream out(&full);
  std::ostringstream err;
  const char* argv[] = {"asyncscope", "list"};
  EXPECT_EQ(run_cli(2, argv, out, err, [](const GuiRequest&) { return 0; }), 1);
  const std::string said = err.str();
  EXPECT_NE(said.find("could not write to standard output"), std::string::npos) << said;
  EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;

  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  for (const char* command : {"list", "run dependency-graph --size 8", "--help"}) {
    const CliResult r = shell(std::string("\"$ASYNCSCOPE\" ") + command + " > /dev/full");
    EXPECT_EQ(r.code, 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("asyncscope: could not write to standard output"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << ": " << r.err;
  }
  // Bad input stays bad input (exit 2), whatever happened to stdout.
  EXPECT_EQ(shell("\"$ASYNCSCOPE\" run nope > /dev/full").code, 2);
}

// Every output path is checked before the run (nothing printed, nothing
// run): special files are refused and stay what they were, access()'s
// answer for root is not trusted, and two outputs may not share a file.
TEST(Cli, OutputPathsAreCheckedBeforeTheRun) {
  const std::string dir = fs::path(scratch("x")).parent_path().string();
  const std::string fifo = scratch("pipe");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::remove(scratch("to-pipe"));
  fs::create_symlink(fifo, scratch("to-pipe"));
  const std::vector<std::string> run = {"run", "dependency-graph", "--size", "8"};
  const auto with = [&run](std::vector<std::string> more) {
    more.insert(more.begin(), run.begin(), run.end());
    return more;
  };
  if (fs::exists("/proc/version")) {
    expect_bad_input(with({"--json", "/proc/version"}), "cannot write --json '/proc/version': folder '/proc' does not take new files");
  }
  expect_bad_input(with({"--trace", fifo}), "cannot write --trace '" + fifo + "': it is a FIFO");
  expect_bad_input(with({"--json", scratch("to-pipe")}), "a FIFO");
  expect_bad_input(with({"--json", "/dev/null"}), "it is a character device");
  expect_bad_input(with({"--json", scratch("same.json"), "--trace", scratch("same.json")}),
                   "cannot write --trace '" + scratch("same.json") + "': it is also the --json output");
  expect_bad_input(with({"--json", scratch("same.json"), "--trace", dir + "/./same.json"}), "the same file as --json");
  expect_bad_input(with({"--json", "/dev/stdout", "--trace", "/dev/stdout"}), "it is also the --json output");
  EXPECT_TRUE(fs::is_fifo(fifo));
  if (::geteuid() == 0) {
    const std::string full = scratch("full");
    fs::remove(full);
    if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) {
      expect_bad_input(with({"--json", full}), "it is a character device");
      EXPECT_TRUE(fs::is_character_file(full));
    }
  }
  // The app's screenshot too.
  expect_bad_input({"--demo", "dependency-graph", "--screenshot", fifo, "--run"}, "it is a FIFO");
}

TEST(Cli, ASymbolicLinkOutputIsWrittenThrough) {
  const std::string target = scratch("target.json");
  const std::string link = scratch("link.json");
  { std::ofstream(target) << "old"; }
  fs::remove(link);
  fs::create_symlink(target, link);
  const CliResult r = cli({"run", "dependency-graph", "--size", "8", "--json", link});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(nlohmann::json::parse(read(target))["demo"], "dependency-graph");
}

// /dev/stdout and /dev/stderr are streams: written in place, after the table.
TEST(Cli, StandardStreamsTakeOutputs) {
  const CliResult r = cli({"run", "dependency-graph", "--size", "8", "--trace", "/dev/stdout", "--json", "/dev/stderr"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t table = r.out.find("dependency-graph (size=8");
  const size_t trace = r.out.find("\n{");
  ASSERT_NE(table, std::string::npos) << r.out;
  ASSERT_NE(trace, std::string::npos) << r.out;
  EXPECT_LT(table, trace);
  EXPECT_GT(nlohmann::json::parse(r.out.substr(trace))["traceEvents"].size(), 10u);
  EXPECT_EQ(nlohmann::json::parse(r.err)["demo"], "dependency-graph");
  // And from a real process, into a pipe.
  const CliResult piped = shell("\"$ASYNCSCOPE\" run dependency-graph --size 8 --json /dev/stdout | cat");
  EXPECT_EQ(piped.code, 0) << piped.err;
  EXPECT_NE(piped.out.find("\"demo\": \"dependency-graph\""), std::string::npos) << piped.out;
}

// With --json and --trace, a failure to write either replaces neither: here
// the trace outgrows the file size limit (ulimit -f) after the results JSON
// was written in full.
TEST(Cli, AFailedOutputReplacesNoOtherOutput) {
  const std::string a = scratch("a.json"), b = scratch("b.json");
  { std::ofstream(a) << "precious results"; }
  { std::ofstream(b) << "precious trace"; }
  const CliResult r = shell("ulimit -f 8 && trap '' XFSZ && \"$ASYNCSCOPE\" run dependency-graph --size 8 --json a.json --trace b.json");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("asyncscope: cannot write --trace 'b.json': File too large"), std::string::npos) << r.err;
  EXPECT_EQ(read(a), "precious results");
  EXPECT_EQ(read(b), "precious trace");
  for (const auto& entry : fs::directory_iterator(fs::path(a).parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
  }
  // Without the limit, both are replaced.
  ASSERT_EQ(shell("\"$ASYNCSCOPE\" run dependency-graph --size 8 --json a.json --trace b.json").code, 0);
  EXPECT_EQ(nlohmann::json::parse(read(a))["demo"], "dependency-graph");
  EXPECT_TRUE(nlohmann::json::parse(read(b)).contains("traceEvents"));
}

TEST(Cli, ResultsJsonKeysOfQueuedVsFinished) {
  const std::string json = scratch("q.json");
  const CliResult r = cli({"run", "queued-vs-finished", "--size", "64", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(read(json));
  EXPECT_TRUE(doc["results"]["queued_s"].is_number());
  EXPECT_TRUE(doc["results"]["finished_s"].is_number());
}

TEST(Cli, NoSubcommandOpensTheAppWithTheDemoAndItsOptions) {
  const CliResult plain = cli({});
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(plain.windows.size(), 1u);
  EXPECT_EQ(plain.windows[0].demo, "sync-vs-async");
  EXPECT_FALSE(plain.windows[0].run);

  const std::string png = scratch("shot.png");
  const CliResult scripted = cli({"--demo", "memory-and-sync", "--batches", "5", "--sync=item", "--run", "--screenshot",
                                  png, "--quit-after-run", "--window-size", "1024x700"});
  ASSERT_EQ(scripted.code, 0) << scripted.err;
  ASSERT_EQ(scripted.windows.size(), 1u);
  const GuiRequest& r = scripted.windows[0];
  EXPECT_EQ(r.demo, "memory-and-sync");
  EXPECT_TRUE(r.run);
  EXPECT_TRUE(r.quit_after_run);
  EXPECT_EQ(r.screenshot, png);
  EXPECT_EQ(r.width, 1024);
  EXPECT_EQ(r.height, 700);
  const std::vector<std::pair<std::string, std::string>> want = {{"batches", "5"}, {"sync", "item"}};
  EXPECT_EQ(r.params, want);
}

TEST(Cli, VaryRunsTheDemoOncePerValue) {
  const CliResult r = cli({"--demo", "memory-and-sync", "--batches", "4", "--vary", "sync=none,item", "--run"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(r.windows.size(), 1u);
  EXPECT_EQ(r.windows[0].vary, "sync");
  EXPECT_EQ(r.windows[0].vary_values, (std::vector<std::string>{"none", "item"}));
}

TEST(Cli, BadAppOptionsAreBadInputBeforeAnyWindowOpens) {
  for (const auto& [args, fragment] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--demo", "nope"}, "unknown demo 'nope'"},
           {{"--demo", "memory-and-sync", "--iterations", "3"}, "not an option of memory-and-sync"},
           {{"--demo", "memory-and-sync", "--batches", "many"}, "not a whole number"},
           {{"--batches"}, "needs a value"},
           {{"--screenshot", "/nonexistent/x.png"}, "does not exist"},
           {{"view", "/nonexistent/trace.json"}, "cannot read trace"},
           {{"--demo", "memory-and-sync", "--vary", "sync=none,sometimes", "--run"}, "not one of"},
           {{"--demo", "memory-and-sync", "--vary", "sync", "--run"}, "--vary needs NAME=VALUE"},
           {{"--demo", "memory-and-sync", "--vary", "sync=none,item"}, "--vary needs --run"},
           {{"--demo", "dependency-graph", "--size", "30000", "--run"}, "more than the memory budget"},
           {{"--demo", "dependency-graph", "--vary", "size=64,30000", "--run"}, "more than the memory budget"},
       }) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.code, 2) << fragment;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.windows.empty()) << fragment;
  }
  if (!cuda::available()) {
    const CliResult r = cli({"--demo", "queued-vs-finished", "--device", "cuda", "--run"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("CUDA is not available: " + cuda::status().reason), std::string::npos) << r.err;
    EXPECT_TRUE(r.windows.empty());
  }
}

// --window-size is digits 'x' digits and nothing else, within documented
// bounds; anything else is bad input before a window opens.
TEST(Cli, WindowSizeIsParsedStrictlyAndBounded) {
  for (const char* bad : {"1280x800junk", "99999999999x800", "1280x99999999999", "2147483648x800", "1280 x800",
                          " 1280x800", "+1280x800", "-1280x800", "1280x", "x800", "1280X800", "1280", "", "x",
                          "319x800", "1280x239", "16385x800", "1280x16385", "0x0", "1280x800x600", "1e3x800"}) {
    const CliResult r = cli({"--demo", "sync-vs-async", "--window-size", bad});
    EXPECT_EQ(r.code, 2) << "'" << bad << "'";
    EXPECT_NE(r.err.find("--window-size"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("from 320x240 to 16384x16384"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.windows.empty()) << "'" << bad << "'";
  }
  for (const auto& [text, w, h] : std::vector<std::tuple<std::string, int, int>>{
           {"320x240", 320, 240}, {"16384x16384", 16384, 16384}, {"01280x0800", 1280, 800}}) {
    const CliResult r = cli({"--window-size", text});
    ASSERT_EQ(r.code, 0) << text << ": " << r.err;
    ASSERT_EQ(r.windows.size(), 1u);
    EXPECT_EQ(r.windows[0].width, w);
    EXPECT_EQ(r.windows[0].height, h);
  }
  const std::string trace = scratch("sized.json");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", trace}).code, 0);
  const CliResult view = cli({"--window-size", "800x600", "view", trace});
  ASSERT_EQ(view.code, 0) << view.err;
  ASSERT_EQ(view.windows.size(), 1u);
  EXPECT_EQ(view.windows[0].width, 800);
  EXPECT_EQ(view.windows[0].height, 600);
}

// docs/ops.md is the op table as `asyncscope ops --markdown` writes it:
// regenerate it (the page says how) whenever an op changes.
TEST(Cli, TheOpsPageIsTheOpTable) {
  const CliResult r = cli({"ops", "--markdown"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read(std::string(ASYNCSCOPE_SOURCE_DIR) + "/docs/ops.md"), r.out)
      << "docs/ops.md is out of date: build/bin/asyncscope ops --markdown > docs/ops.md";
}

// diff's table: every column stays apart from the next, however long its
// values (µs and × are one column each on a terminal, two bytes each).
TEST(Cli, DiffColumnsNeverRunTogether) {
  const std::string a = scratch("a.json"), b = scratch("b.json");
  ASSERT_EQ(cli({"run", "sync-vs-async", "--iterations", "20", "--size", "1", "--trace", a}).code, 0);
  ASSERT_EQ(cli({"run", "memory-and-sync", "--batches", "2", "--batch-size", "16", "--trace", b}).code, 0);
  const CliResult d = cli({"diff", a, b});
  ASSERT_EQ(d.code, 0) << d.err;
  std::istringstream lines(d.out);
  size_t rows = 0;
  const std::regex gap(" {2,}");
  for (std::string line; std::getline(lines, line);) {
    if (line.find("per op name") != std::string::npos) break;
    // The summary rows: two spaces, a label, then three values (a value may hold one space: "7.2 ms").
    if (line.size() < 3 || line.compare(0, 2, "  ") != 0 || line[2] == ' ') continue;
    const std::string body = line.substr(2);
    const std::vector<std::string> fields(std::sregex_token_iterator(body.begin(), body.end(), gap, -1),
                                          std::sregex_token_iterator());
    EXPECT_EQ(fields.size(), 4u) << "columns run together: " << line;
    ++rows;
  }
  EXPECT_GE(rows, 5u) << d.out;
}

TEST(Cli, ViewOpensASavedTraceAndPrintDescribesIt) {
  const std::string trace = scratch("view.json");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "16", "--trace", trace}).code, 0);
  const CliResult opened = cli({"view", trace});
  ASSERT_EQ(opened.code, 0) << opened.err;
  ASSERT_EQ(opened.windows.size(), 1u);
  EXPECT_EQ(opened.windows[0].view_file, trace);
  const CliResult printed = cli({"view", trace, "--print"});
  ASSERT_EQ(printed.code, 0) << printed.err;
  EXPECT_NE(printed.out.find("8 ops"), std::string::npos) << printed.out;
  EXPECT_NE(printed.out.find("CPU worker "), std::string::npos) << printed.out;  // which worker ran them varies
  EXPECT_TRUE(printed.windows.empty());
}

// view refuses what is not a regular trace file at once, with one line and
// exit 2, before any window opens (were they read, a FIFO would hang and
// /dev/zero would be read until bad_alloc).
TEST(Cli, ViewRefusesSpecialFilesAtOnce) {
  const std::string fifo = scratch("pipe.json");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    if (!fs::exists(path)) continue;
    for (const bool print : {true, false}) {
      std::vector<std::string> args = {"view", path};
      if (print) args.push_back("--print");
      expect_bad_input(args, "cannot read trace '" + path + "': it is a");
      EXPECT_TRUE(cli(args).windows.empty());
    }
  }
}

// A GPU op is on two lanes, its launch and its GPU execution: counted once as
// an op, and its launch as a launch.
TEST(Cli, PrintCountsEachGpuOpOnce) {
  const std::string trace = scratch("gpu.json");
  trace::write_chrome_trace(asyncscope::testing::gpu_test_model(), trace);
  const CliResult printed = cli({"view", trace, "--print"});
  ASSERT_EQ(printed.code, 0) << printed.err;
  for (const char* line : {": 4 ops, 1 waits", "  CPU worker 0: 2 ops\n", "  cuda:0 launch 0: 2 launches\n",
                           "  cuda:0 stream 0: 2 ops\n"}) {
    EXPECT_NE(printed.out.find(line), std::string::npos) << line << " in:\n" << printed.out;
  }
}

TEST(Cli, TraceFileIsWrittenAndParses) {
  const std::string trace = scratch("trace.json");
  const CliResult r = cli({"run", "dependency-graph", "--size", "32", "--trace", trace});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(read(trace));
  EXPECT_TRUE(doc.contains("traceEvents"));
  EXPECT_GT(doc["traceEvents"].size(), 10u);
}

}  // namespace
}  // namespace asyncscope::app
