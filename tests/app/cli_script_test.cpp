// `asyncscope script FILE.py`, driven in-process: the script's output and
// traceback, exit codes (0, 1 for an exception, 2 for a file that cannot be
// read), its trace, and one interpreter serving many runs with fresh globals.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/trace/chrome_trace.h"
#include "support/cli_harness.h"

namespace asyncscope::app {
namespace {

using testing::cli;
using testing::CliResult;
using testing::read;
using testing::scratch;
using testing::shell;

std::string write_script(const std::string& name, const std::string& code) {
  const std::string path = scratch(name);
  std::ofstream(path) << code;
  return path;
}

TEST(CliScript, RunsAScriptPrintsItsOutputAndWritesItsTrace) {
  const std::string script = write_script("queued.py",
                                          "from asyncscope import nd\n"
                                          "x = nd.random.uniform(shape=(300, 300))\n"
                                          "y = nd.dot(x, x).sum()\n"
                                          "print('sum =', y.asscalar() > 0)\n"
                                          "nd.waitall()\n");
  const std::string trace = scratch("queued.json");
  const CliResult r = cli({"script", script, "--workers", "2", "--trace", trace});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "sum = True\n");
  const nlohmann::json doc = nlohmann::json::parse(read(trace));
  std::set<std::string> names;
  for (const auto& e : doc["traceEvents"]) names.insert(e.value("name", ""));
  for (const char* op : {"uniform", "dot", "sum", "item", "wait_all"}) EXPECT_TRUE(names.count(op)) << op;
}

// Every op and wait traced back to the script line that caused it: runs
// count executions of a line (a loop, a function called twice), a line with
// two ops runs once per execution, the package's own frames are skipped.
TEST(CliScript, LinesTraceEachOpAndWaitToItsSourceLine) {
  const std::string script = write_script("lines.py",
                                          "from asyncscope import nd\n"            // 1
                                          "x = nd.ones((2, 2))\n"                  // 2
                                          "for i in range(5):\n"                   // 3
                                          "    y = x + 1\n"                        // 4
                                          "    z = (y * 2) + 3\n"                  // 5
                                          "def f(a):\n"                            // 6
                                          "    return a * 4\n"                     // 7
                                          "f(x); f(x)\n"                           // 8
                                          "y.wait_to_read()\n"                     // 9
                                          "w = nd.random.uniform(shape=(2, 2))\n"  // 10
                                          "nd.waitall()\n");                       // 11
  const std::string json = scratch("lines-results.json");
  const std::string trace = scratch("lines-trace.json");
  const CliResult r = cli({"script", script, "--workers", "1", "--lines", "--json", json, "--trace", trace});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("per line"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("z = (y * 2) + 3"), std::string::npos) << "each row shows its line's text:\n" << r.out;

  const nlohmann::json doc = nlohmann::json::parse(read(json));
  std::map<int, nlohmann::json> rows;
  for (const auto& row : doc.at("lines")) {
    EXPECT_EQ(row.at("file"), script);
    rows[row.at("line").get<int>()] = row;
  }
  const auto expect_row = [&rows](int line, int runs, int ops, int waits) {
    SCOPED_TRACE("line " + std::to_string(line));
    ASSERT_TRUE(rows.count(line));
    EXPECT_EQ(rows[line].at("runs"), runs);
    EXPECT_EQ(rows[line].at("ops"), ops);
    EXPECT_EQ(rows[line].at("waits"), waits);
  };
  expect_row(2, 1, 1, 0);
  expect_row(4, 5, 5, 0);
  expect_row(5, 5, 10, 0);
  expect_row(7, 2, 2, 0);
  expect_row(9, 1, 0, 1);
  expect_row(10, 1, 1, 0);
  expect_row(11, 1, 0, 1);
  EXPECT_EQ(rows.size(), 7u) << doc.at("lines").dump();
  EXPECT_EQ(rows[2].at("bytes"), 16);

  // What held the memory at its peak, by op and line: x (line 2) never went.
  ASSERT_TRUE(doc.at("peak_live_holders").is_array());
  bool x_held = false;
  for (const auto& h : doc.at("peak_live_holders")) {
    ASSERT_TRUE(h.at("line").is_string()) << h.dump();
    EXPECT_EQ(h.at("line").get<std::string>().rfind(script + ":", 0), 0u) << h.dump();
    x_held |= h.at("op") == "ones" && h.at("line") == script + ":2" && h.at("bytes") == 16 && h.at("count") == 1;
  }
  EXPECT_TRUE(x_held) << doc.at("peak_live_holders").dump();
  EXPECT_TRUE(doc.at("bound").is_string());

  // The trace's args name the line of each op and wait.
  const nlohmann::json t = nlohmann::json::parse(read(trace));
  size_t attributed = 0, waitall_of_line_11 = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    const std::string event = e["args"].value("event", "");
    if (event != "enqueue" && event != "sync") continue;
    if (e["args"].contains("source")) ++attributed;
    if (e.value("name", "") == "uniform") {
      EXPECT_EQ(e["args"].value("source", ""), script + ":10");
    }
    // The host's own waits after the script ended have no line.
    if (e.value("name", "") == "wait_all") waitall_of_line_11 += e["args"].value("source", "") == script + ":11";
  }
  EXPECT_EQ(waitall_of_line_11, 1u);
  EXPECT_GE(attributed, 1u + 5 + 10 + 2 + 1 + 1 + 1);
  EXPECT_EQ(t["otherData"]["source_lines"].size(), 7u);
}

TEST(CliScript, AnUncaughtExceptionPrintsItsTracebackAndExitsOne) {
  const std::string script = write_script("fails.py", "import asyncscope\nprint('before')\nvalue = 1 / 0\n");
  const CliResult r = cli({"script", script});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "before\n");
  EXPECT_NE(r.err.find("Traceback (most recent call last):"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fails.py\", line 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("asyncscope: fails.py failed: ZeroDivisionError: division by zero"), std::string::npos)
      << r.err;
}

TEST(CliScript, EngineErrorsArePythonExceptionsTheScriptCanCatch) {
  const std::string script = write_script("catches.py",
                                          "from asyncscope import nd\n"
                                          "try:\n"
                                          "    nd.ones((2, 3)) + nd.ones((4,))\n"
                                          "except ValueError as e:\n"
                                          "    print('ValueError:', e)\n");
  const CliResult r = cli({"script", script});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ValueError: add: shapes 2x3 and 4 do not broadcast"), std::string::npos) << r.out;
}

// A script that outgrows the memory budget stops with a MemoryError naming
// it (exit 1), and its trace so far is still written (issue 13).
TEST(CliScript, AScriptStoppedByTheBudgetStillWritesItsTrace) {
  const std::string script = write_script("grows.py",
                                          "from asyncscope import nd\n"
                                          "x = nd.ones((1,))\n"
                                          "for i in range(10_000_000):\n"
                                          "    x = x + 1\n");
  const std::string trace = scratch("grows.json");
  const CliResult r = shell("ASYNCSCOPE_MEMORY_BUDGET_MB=16 \"$ASYNCSCOPE\" script '" + script + "' --trace '" +
                            trace + "'");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("MemoryError"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("memory budget of 16.0 MiB"), std::string::npos) << r.err;
  ASSERT_TRUE(std::filesystem::exists(trace)) << r.err;
  const trace::TraceModel m = trace::read_chrome_trace(trace);
  EXPECT_GT(m.ops.size(), 1000u);
}

// Python objects count too: a list appended to in a loop, with no array in
// sight, stops at the budget with its message, not at the machine's memory.
TEST(CliScript, AScriptsPythonObjectsCountAgainstTheBudget) {
  const std::string script = write_script("list.py",
                                          "kept = []\n"
                                          "while True:\n"
                                          "    kept.append(str(len(kept)) * 4)\n");
  const CliResult r = shell("ASYNCSCOPE_MEMORY_BUDGET_MB=32 \"$ASYNCSCOPE\" script '" + script + "'");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("\nMemoryError\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("list.py failed: Python objects of the script"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("memory budget of 32.0 MiB"), std::string::npos) << r.err;
}

// As python3: sys.exit(0) and sys.exit() end normally, sys.exit(n) exits
// with n (silently), sys.exit("text") prints the text and exits with 1.
TEST(CliScript, SystemExitEndsTheProcessWithTheScriptsStatusAsPython3Does) {
  EXPECT_EQ(cli({"script", write_script("ok.py", "import sys\nsys.exit(0)\n")}).code, 0);
  EXPECT_EQ(cli({"script", write_script("none.py", "import sys\nsys.exit()\n")}).code, 0);
  const CliResult three = cli({"script", write_script("three.py", "print('before')\nimport sys\nsys.exit(3)\n")});
  EXPECT_EQ(three.code, 3);
  EXPECT_EQ(three.out, "before\n");
  EXPECT_EQ(three.err.find("failed"), std::string::npos) << three.err;
  const CliResult text = cli({"script", write_script("text.py", "import sys\nsys.exit('giving up')\n")});
  EXPECT_EQ(text.code, 1);
  EXPECT_EQ(text.err, "giving up\n");
  const std::string trace = scratch("two.json");
  const CliResult two = cli({"script", write_script("two.py", "from asyncscope import nd\nx = nd.ones((2,))\n"
                                                                 "x.wait_to_read()\nraise SystemExit(2)\n"),
                             "--trace", trace});
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(read(trace).find("\"ones\""), std::string::npos);  // a run that ended with a status still has its trace
}

TEST(CliScript, OneInterpreterServesManyRunsWithFreshGlobals) {
  const std::string first = write_script("first.py", "from asyncscope import nd\nleft_over = nd.ones((2,))\n");
  const std::string second = write_script("second.py", "print('left_over' in globals())\n");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(cli({"script", first}).code, 0);
    const CliResult r = cli({"script", second});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "False\n");
  }
}

TEST(CliScript, AFileThatCannotBeReadIsBadInput) {
  testing::expect_bad_input({"script", scratch("missing.py")}, "cannot read");
  testing::expect_bad_input({"script", ::testing::TempDir()}, "it is a folder");
  testing::expect_bad_input({"script", write_script("w.py", "pass\n"), "--workers", "-1"}, "--workers");
}

}  // namespace
}  // namespace asyncscope::app
