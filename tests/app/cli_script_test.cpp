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
// it (exit 1), and its trace so far is still written.
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
  EXPECT_NE(r.err.find("memory budget of 16.0 MB"), std::string::npos) << r.err;
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
  EXPECT_NE(r.err.find("memory budget of 32.0 MB"), std::string::npos) << r.err;
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

// Syntax errors are python3's: the traceback with the line and its caret,
// and the one-line reason with the place; so are files in other encodings.
TEST(CliScript, SyntaxErrorsAndEncodingsAreReportedAndReadAsPython3Does) {
  const CliResult open = cli({"script", write_script("open.py", "x = (1,\n")});
  EXPECT_EQ(open.code, 1);
  EXPECT_NE(open.err.find("  File \"" + scratch("open.py") + "\", line 1\n"), std::string::npos) << open.err;
  EXPECT_NE(open.err.find("^"), std::string::npos) << open.err;
  EXPECT_NE(open.err.find("failed: SyntaxError: '(' was never closed (open.py, line 1)"),
            std::string::npos)
      << open.err;
  EXPECT_EQ(open.err.find("pybind"), std::string::npos) << open.err;
  EXPECT_EQ(open.err.find("Unable to convert"), std::string::npos) << open.err;
  const CliResult indent = cli({"script", write_script("indent.py", "def f():\nreturn 1\n")});
  EXPECT_EQ(indent.code, 1);
  EXPECT_NE(indent.err.find("IndentationError: expected an indented block"), std::string::npos) << indent.err;
  const CliResult bom = cli({"script", write_script("bom.py", "\xef\xbb\xbfprint('caf\xc3\xa9')\n")});
  EXPECT_EQ(bom.code, 0) << bom.err;
  EXPECT_EQ(bom.out, "caf\xc3\xa9\n");
  const CliResult latin = cli({"script", write_script("latin.py", "# -*- coding: latin-1 -*-\nprint('caf\xe9')\n")});
  EXPECT_EQ(latin.code, 0) << latin.err;
  EXPECT_EQ(latin.out, "caf\xc3\xa9\n");
  const CliResult bad = cli({"script", write_script("bad.py", "print('caf\xe9')\n")});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("SyntaxError"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("utf-8"), std::string::npos) << bad.err;
}

// The end of the script is python3's end of a process: its non-daemon
// threads run to their end (using the run's engine and the script's
// globals), its daemon threads end quietly.
TEST(CliScript, TheScriptsThreadsAreJoinedAtItsEndAsPython3Does) {
  const std::string trace = scratch("threads.json");
  const CliResult r = cli({"script", write_script("threads.py",
                                                  "import threading, time\n"
                                                  "from asyncscope import nd\n"
                                                  "def work():\n"
                                                  "    x = nd.ones((2, 2))\n"
                                                  "    for i in range(200):\n"
                                                  "        x = x + 1\n"
                                                  "        time.sleep(0.001)\n"
                                                  "    print('thread done', x.asnumpy()[0, 0])\n"
                                                  "def forever():\n"
                                                  "    while True:\n"
                                                  "        time.sleep(0.01)\n"
                                                  "threading.Thread(target=work).start()\n"
                                                  "threading.Thread(target=forever, daemon=True).start()\n"
                                                  "print('main returns')\n"),
                           "--trace", trace});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "main returns\nthread done 201.0\n");
  EXPECT_TRUE(r.err.empty()) << r.err;
  size_t enqueued = 0;
  const nlohmann::json doc = nlohmann::json::parse(read(trace));
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("name", "") == "add_scalar" && e.contains("args") && e["args"].value("event", "") == "enqueue") {
      ++enqueued;
      EXPECT_EQ(e["args"].value("source", ""), scratch("threads.py") + ":6");
    }
  }
  EXPECT_EQ(enqueued, 200u);  // the thread's ops are the run's, traced to their line
  // A thread pool the script forgot to shut down ends as under python3.
  const CliResult pool = cli({"script", write_script("pool.py",
                                                     "from concurrent.futures import ThreadPoolExecutor\n"
                                                     "pool = ThreadPoolExecutor(2)\n"
                                                     "print(pool.submit(lambda: 6 * 7).result())\n")});
  EXPECT_EQ(pool.code, 0) << pool.err;
  EXPECT_EQ(pool.out, "42\n");
  EXPECT_EQ(cli({"script", write_script("pool2.py", "from concurrent.futures import ThreadPoolExecutor\n"
                                                    "print(ThreadPoolExecutor(1).submit(abs, -3).result())\n")})
                .out,
            "3\n");  // and the next run may start a pool again
}

// sys.stdout and sys.stderr are text streams, as python3's are.
TEST(CliScript, StandardStreamsAreTextStreamsWithTheirBuffersAndEncodings) {
  const CliResult r = cli({"script", write_script("streams.py",
                                                  "import sys\n"
                                                  "print(sys.stdout.encoding, sys.stdout.errors, sys.stderr.errors)\n"
                                                  "print(sys.stdout.fileno(), sys.stderr.fileno(), sys.stdout.isatty())\n"
                                                  "sys.stdout.buffer.write(b'raw \\xff\\n')\n"
                                                  "print('bad\\udc80', file=sys.stderr)\n"
                                                  "try:\n"
                                                  "    print('bad\\udc80')\n"
                                                  "except UnicodeEncodeError as e:\n"
                                                  "    print('UnicodeEncodeError:', e.reason)\n"
                                                  "print('name? ', end='')\n")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "utf-8 strict backslashreplace\n"
            "1 2 False\n"
            "raw \xff\n"
            "UnicodeEncodeError: surrogates not allowed\n"
            "name? ");  // a prompt without a newline stays one
  EXPECT_EQ(r.err, "bad\\udc80\n");
}

// What only a real process shows: a script read from a pipe or a FIFO (read
// once), and bytes written to the process's descriptors directly.
TEST(CliScript, AScriptFromAPipeOrAFifoRunsAndDescriptorsReachTheOutput) {
  const CliResult piped = shell("printf 'print(6 * 7)\\n' | \"$ASYNCSCOPE\" script /dev/stdin");
  EXPECT_EQ(piped.code, 0) << piped.err;
  EXPECT_EQ(piped.out, "42\n");
  const CliResult fifo = shell("rm -f f.py && mkfifo f.py && (printf 'print(1 + 1)\\n' > f.py &) && "
                               "\"$ASYNCSCOPE\" script f.py");
  EXPECT_EQ(fifo.code, 0) << fifo.err;
  EXPECT_EQ(fifo.out, "2\n");
  // --lines shows the text of the lines as they ran, not by reading the FIFO again.
  const CliResult lines = shell("rm -f g.py && mkfifo g.py && "
                                "(printf 'from asyncscope import nd\\nnd.ones((2,)).wait_to_read()\\n' > g.py &) && "
                                "timeout 60 \"$ASYNCSCOPE\" script g.py --lines");
  EXPECT_EQ(lines.code, 0) << lines.err;
  EXPECT_NE(lines.out.find("nd.ones((2,)).wait_to_read()"), std::string::npos) << lines.out;
  const CliResult fds = shell("printf 'import os, faulthandler\\nfaulthandler.enable()\\nprint(\"a\", flush=True)\\n"
                              "os.write(1, b\"b\\\\n\")\\nos.write(2, b\"c\\\\n\")\\n' > fd.py && \"$ASYNCSCOPE\" script fd.py");
  EXPECT_EQ(fds.code, 0) << fds.err;
  EXPECT_EQ(fds.out, "a\nb\n");
  EXPECT_EQ(fds.err, "c\n");
}

// The script's folder comes first on the import path, and its module is
// __main__ (pickle finds the classes it defines), as under python3.
TEST(CliScript, TheScriptsFolderIsOnTheImportPathAndItsModuleIsMain) {
  write_script("helper_module.py", "VALUE = 7\n");
  const CliResult r = cli({"script", write_script("main.py",
                                                  "import pickle, sys\n"
                                                  "import helper_module\n"
                                                  "class Point:\n"
                                                  "    def __init__(self, x): self.x = x\n"
                                                  "p = pickle.loads(pickle.dumps(Point(helper_module.VALUE)))\n"
                                                  "print(p.x, sys.modules['__main__'].Point is Point, __name__)\n")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "7 True __main__\n");
  const CliResult after = cli({"script", write_script("after.py", "import sys\nprint('helper_module' in sys.modules,"
                                                                  " sys.path[0] == '')\n")});
  EXPECT_EQ(after.code, 0) << after.err;
  EXPECT_NE(after.out.find("True"), std::string::npos);  // modules stay imported, as one interpreter serves every run
}

// With an in-flight bound, a push that waits for the bound releases the GIL
// only while it sleeps: the bindings read their Python arguments (a shape)
// with it held (this crashed in the first tuple-shaped array).
TEST(CliScript, AnInFlightBoundHoldsTheScriptsPushesSafely) {
  const CliResult r = cli({"script", std::string(ASYNCSCOPE_SOURCE_DIR) + "/assets/scripts/sync_vs_async.py",
                           "--max-inflight", "5", "--workers", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("one waitall at the end"), std::string::npos) << r.out;
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
