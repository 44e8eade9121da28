// `asyncscope script FILE.py`, driven in-process: the script's output and
// traceback, exit codes (0, 1 for an exception, 2 for a file that cannot be
// read), its trace, and one interpreter serving many runs with fresh globals.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_harness.h"

namespace asyncscope::app {
namespace {

using testing::cli;
using testing::CliResult;
using testing::read;
using testing::scratch;

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

TEST(CliScript, SystemExitZeroIsANormalEndAndOtherStatusesFail) {
  EXPECT_EQ(cli({"script", write_script("ok.py", "import sys\nsys.exit(0)\n")}).code, 0);
  const CliResult r = cli({"script", write_script("three.py", "import sys\nsys.exit(3)\n")});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("SystemExit: 3"), std::string::npos) << r.err;
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
