// Drives the command line in-process for tests: exit code, what it printed,
// the windows it asked for, scratch files per test, and the bad-input rule.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli.h"

namespace asyncscope::app::testing {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
  std::vector<GuiRequest> windows;  // what the app was asked to open
};

inline CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "asyncscope");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.code = run_cli(static_cast<int>(argv.size()), argv.data(), out, err, [&r](const GuiRequest& request) {
    r.windows.push_back(request);
    return 0;
  });
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline std::string scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(ASYNCSCOPE_TEST_TMP) / ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `script` with /bin/sh in the test's scratch folder, with the real
// executable in $ASYNCSCOPE: its exit status (128 + N when killed by signal N),
// and what it wrote to stdout and stderr unless the script redirects them.
// For what only a process shows: signals, full disks, file size limits.
inline CliResult shell(const std::string& script) {
  const std::string dir = scratch("");
  const std::string file = dir + "script.sh";
  {
    std::ofstream out(file);
    out << "cd '" << dir << "' || exit 99\nASYNCSCOPE='" << ASYNCSCOPE_EXE << "'\n" << script << "\n";
  }
  const int status = std::system(("sh '" + file + "' > '" + dir + "stdout.txt' 2> '" + dir + "stderr.txt'").c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  r.out = read(dir + "stdout.txt");
  r.err = read(dir + "stderr.txt");
  return r;
}

// Bad input: exit 2, exactly one line on stderr, nothing on stdout.
inline void expect_bad_input(const std::vector<std::string>& args, const std::string& fragment) {
  const CliResult r = cli(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_EQ(r.code, 2) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << joined << "\nstderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << joined << "\nstderr: " << r.err;
  EXPECT_TRUE(r.out.empty()) << joined;
}

}  // namespace asyncscope::app::testing
