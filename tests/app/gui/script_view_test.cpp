// Scripts in the app without a window: the script view's per-line margin
// from a real script run, the timeline's line highlight picking out exactly
// that line's ops and waits, opening scripts (examples, bad paths), the
// editor's save / revert, and stopping a running script: promptly even in a
// pure-Python loop, and 200 run/stop cycles in one process without a hang,
// a leaked thread or growing memory.
#include "app/gui/script_view.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>
#include <vector>

#include "app/gui/run_list.h"
#include "app/gui/runner.h"
#include "app/gui/script_library.h"
#include "support/proc_status.h"
#include "support/timeout.h"
#include "widgets/source_highlight.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string write_script(const std::string& name, const std::string& code) {
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "script_view";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << code;
  return p.string();
}

#define REQUIRE_PYTHON() \
  if (!ScriptLibrary::available()) GTEST_SKIP() << "this build has no Python support"

// Waits (bounded) for the runner's run to end; false if it did not.
bool wait_until_ended(ProgramRunner& runner, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  while (runner.busy()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  runner.join();
  return true;
}

// Runs `program` to its end through the GUI's runner into `runs`.
RunRecord& run_to_end(RunList& runs, ProgramRunner& runner, const demos::Program& program) {
  demos::ParamValues values = program.defaults();
  values.set("workers", "1");
  runner.start(program, values);
  RunRecord& run = runs.add_live(program, values, runner.recorder());
  const auto deadline = Clock::now() + testing::kDeadlockTimeout;
  // As the app polls: an open last line (a prompt) is read again, grown.
  const auto poll = [&] {
    bool last_open = false;
    std::vector<std::string> lines = runner.console_since(run.console_resume_at(), &last_open);
    runs.update_live(std::move(lines), true, last_open);
  };
  while (runner.busy() && Clock::now() < deadline) {
    poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_FALSE(runner.busy()) << "the script did not end";
  runner.stop();
  runner.join();
  poll();
  runs.end_live(runner.results(), runner.error());
  return run;
}

const char* const kLoop =
    "from asyncscope import nd\n"                 // 1
    "x = nd.ones((64, 64))\n"                     // 2
    "for i in range(20):\n"                       // 3
    "    y = x + 1\n"                             // 4
    "    y.wait_to_read()\n"                      // 5
    "nd.waitall()\n";                             // 6

TEST(ScriptViewMargin, TextIsRunsOpsEnqueueThenTheWait) {
  trace::LineFigures f;
  f.runs = 100;
  f.ops = 100;
  f.enqueue_ns = 200'000;
  EXPECT_EQ(margin_text(f), "100\u00d7 100 ops 200 \u00b5s");
  f.waits = 100;
  f.wait_ns = 3'100'000;
  EXPECT_EQ(margin_text(f), "100\u00d7 100 ops 200 \u00b5s | wait 3.10 ms");
  EXPECT_EQ(margin_text(f, true), "100\u00d7 wait 3.10 ms") << "compact: the wait, for a line that waited";
  f.ops = 0;
  EXPECT_EQ(margin_text(f), "100\u00d7 wait 3.10 ms");
  f.ops = 100;
  f.waits = 0;
  EXPECT_EQ(margin_text(f, true), "100\u00d7 200 \u00b5s") << "compact: the enqueue time, for one that did not";
  EXPECT_EQ(count_lines(""), 1u);
  EXPECT_EQ(count_lines("a\nb\n"), 2u);
  EXPECT_EQ(count_lines("a\nb"), 2u);
}

// The figures keep to their share of the view: the full texts where they
// fit, else the compact ones, clipped to the share.
TEST(ScriptViewMargin, TheFiguresColumnTakesAtMostItsShareOfTheView) {
  bool compact = true;
  EXPECT_FLOAT_EQ(figures_width(200, 100, 1000, compact), 200);
  EXPECT_FALSE(compact);
  EXPECT_FLOAT_EQ(figures_width(400, 150, 1000, compact), 150);
  EXPECT_TRUE(compact);
  EXPECT_FLOAT_EQ(figures_width(400, 350, 1000, compact), 1000 * kFiguresShare);
  EXPECT_TRUE(compact);
  EXPECT_FLOAT_EQ(figures_width(0, 0, 1000, compact), 0) << "no figures, no column";
}

TEST(ScriptViewMargin, FiguresOfARealRunLandOnTheirLinesAndTheHighlightPicksExactlyTheirOpsAndWaits) {
  REQUIRE_PYTHON();
  const std::string path = write_script("loop.py", kLoop);
  ScriptLibrary scripts;
  const demos::Program& script = scripts.open(path);
  ScriptView view;
  ASSERT_EQ(view.load(path), "");
  RunList runs;
  ProgramRunner runner;
  const RunRecord& run = run_to_end(runs, runner, scripts.run_buffer(script, view.text()));
  ASSERT_EQ(run.error, "");

  const std::vector<MarginLine>& margin = view.margin(&run);
  ASSERT_EQ(margin.size(), 6u);
  EXPECT_EQ(margin[0].text, "") << "an import pushes nothing";
  EXPECT_EQ(margin[2].text, "") << "the for line pushes nothing";
  EXPECT_EQ(margin[3].text.rfind("20\u00d7 20 ops ", 0), 0u) << margin[3].text;
  EXPECT_EQ(margin[3].text.find("wait"), std::string::npos) << margin[3].text;
  EXPECT_EQ(margin[4].text.rfind("20\u00d7 wait ", 0), 0u) << margin[4].text;
  EXPECT_GT(margin[4].wait_share, 0.0);
  ASSERT_GE(margin[3].line_index, 0);
  ASSERT_GE(margin[4].line_index, 0);

  // Line 4's highlight: its 20 additions, no wait; line 5's: its 20 waits, no op.
  const trace::TraceModel& m = run.model;
  const widgets::LineItems adds = widgets::items_on_line(m, margin[3].line_index);
  EXPECT_EQ(adds.ops.size(), 20u);
  EXPECT_TRUE(adds.syncs.empty());
  const widgets::LineItems waits = widgets::items_on_line(m, margin[4].line_index);
  EXPECT_TRUE(waits.ops.empty());
  EXPECT_EQ(waits.syncs.size(), 20u);
  for (uint32_t s : waits.syncs) EXPECT_EQ(m.syncs[s].kind, trace::SyncKind::wait_to_read);
  // Exactly those: every other user op and wait came from another line.
  size_t other_ops = 0, other_syncs = 0;
  for (const trace::OpInfo& op : m.ops) {
    if (op.known() && !op.internal && !widgets::op_on_line(m, op, margin[3].line_index)) ++other_ops;
  }
  for (const trace::SyncSpan& s : m.syncs) other_syncs += !widgets::sync_on_line(m, s, margin[4].line_index);
  size_t user_ops = 0;
  for (const trace::OpInfo& op : m.ops) user_ops += op.known() && !op.internal;
  EXPECT_EQ(other_ops, user_ops - 20);
  EXPECT_EQ(other_syncs, m.syncs.size() - 20);
  // A folded box holding one of line 4's ops stays bright; one of other ops' does not.
  const std::vector<uint32_t> items(adds.ops.begin(), adds.ops.end());
  EXPECT_TRUE(widgets::any_on_line(m, items, 0, static_cast<uint32_t>(items.size()), margin[3].line_index, false));
  EXPECT_FALSE(widgets::any_on_line(m, items, 0, static_cast<uint32_t>(items.size()), margin[4].line_index, false));
  EXPECT_FALSE(widgets::op_on_line(m, m.ops[adds.ops[0]], widgets::kNoLine));

  // The view's selection maps to the same line of the model.
  view.select_line(4);
  EXPECT_EQ(view.selected_index(&run), margin[3].line_index);
  view.select_line(3);
  EXPECT_EQ(view.selected_index(&run), -1) << "a line without figures highlights nothing";

  // A click on an op selects the line that pushed it: each of line 4's
  // additions, and line 2's ones.
  for (uint32_t op : adds.ops) {
    view.select_line(0);
    ASSERT_TRUE(view.select_line_of_op(m, op));
    EXPECT_EQ(view.selected_line(), 4u);
  }
  const auto ones = std::find_if(m.ops.begin(), m.ops.end(), [&m](const trace::OpInfo& op) {
    return op.known() && m.op_name(op) == "ones";
  });
  ASSERT_NE(ones, m.ops.end());
  ASSERT_TRUE(view.select_line_of_op(m, ones - m.ops.begin()));
  EXPECT_EQ(view.selected_line(), 2u);
  // A free selects the line that dropped the array: line 4's `y = ...`
  // replaces the y of the iteration before.
  const auto freed = std::find_if(m.ops.begin(), m.ops.end(), [&m](const trace::OpInfo& op) {
    return op.known() && op.internal && m.op_name(op) == "free" && m.source_of(op.source) != nullptr;
  });
  ASSERT_NE(freed, m.ops.end());
  ASSERT_TRUE(view.select_line_of_op(m, freed - m.ops.begin()));
  EXPECT_EQ(m.source_of(freed->source)->line, view.selected_line());
  ASSERT_TRUE(view.select_line_of_op(m, ones - m.ops.begin()));
  // No op selects nothing and keeps the selection.
  EXPECT_FALSE(view.select_line_of_op(m, -1));
  EXPECT_FALSE(view.select_line_of_op(m, static_cast<int64_t>(m.ops.size())));
  EXPECT_EQ(view.selected_line(), 2u);
  // The same run shown beside another script selects nothing there.
  ScriptView other;
  ASSERT_EQ(other.load(write_script("other.py", kLoop)), "");
  EXPECT_FALSE(other.select_line_of_op(m, adds.ops[0]));
  EXPECT_EQ(other.selected_line(), 0u);
}

TEST(ScriptViewMargin, RunningTheEditedBufferNumbersTheLinesOfWhatRan) {
  REQUIRE_PYTHON();
  const std::string path = write_script("edited.py", kLoop);
  ScriptLibrary scripts;
  const demos::Program& script = scripts.open(path);
  ScriptView view;
  ASSERT_EQ(view.load(path), "");
  view.set_text(std::string("# a comment moves every line down\n\n") + kLoop);
  EXPECT_TRUE(view.modified());
  RunList runs;
  ProgramRunner runner;
  const RunRecord& run = run_to_end(runs, runner, scripts.run_buffer(script, view.text()));
  const std::vector<MarginLine>& margin = view.margin(&run);
  ASSERT_EQ(margin.size(), 8u);
  EXPECT_EQ(margin[2].text, "") << "the import, now line 3";
  EXPECT_EQ(margin[4].text, "") << "the for line, now line 5";
  EXPECT_EQ(margin[5].text.rfind("20\u00d7 20 ops ", 0), 0u) << margin[5].text;
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), kLoop) << "running the buffer does not save it";
}

TEST(ScriptViewEditor, SaveWritesTheFileAndRevertGoesBackToIt) {
  const std::string path = write_script("save.py", "print(1)\n");
  ScriptView view;
  EXPECT_NE(view.load(path + ".missing"), "");
  EXPECT_NE(view.load(fs::path(path).parent_path().string()), "") << "a folder is no script";
  ASSERT_EQ(view.load(path), "");
  EXPECT_FALSE(view.modified());
  view.set_text("print(2)\n");
  EXPECT_TRUE(view.modified());
  view.revert();
  EXPECT_EQ(view.text(), "print(1)\n");
  view.set_text("print(3)\n");
  ASSERT_EQ(view.save(), "");
  EXPECT_FALSE(view.modified());
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "print(3)\n");
  // Unsaved edits survive showing another script and coming back.
  const std::string other = write_script("other.py", "pass\n");
  view.set_text("print(4)\n");
  ASSERT_EQ(view.load(other), "");
  EXPECT_EQ(view.text(), "pass\n");
  ASSERT_EQ(view.load(path), "");
  EXPECT_EQ(view.text(), "print(4)\n");
  EXPECT_TRUE(view.modified());
}

TEST(ScriptLibraryTest, ListsTheExampleScriptsAndRefusesWhatIsNoScript) {
  REQUIRE_PYTHON();
  ScriptLibrary scripts;
  scripts.load_examples(ScriptLibrary::examples_folder());
  std::vector<std::string> names;
  for (const demos::Program* p : scripts.programs()) names.push_back(p->name());
  EXPECT_NE(std::find(names.begin(), names.end(), "sync_vs_async.py"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  ScriptLibrary none;
  none.load_examples("/nonexistent/scripts");
  EXPECT_TRUE(none.programs().empty()) << "a missing assets folder lists no scripts";

  const auto why = [&](const std::string& path) {
    try {
      scripts.open(path);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("opened");
  };
  EXPECT_NE(why("/nonexistent/x.py").find("no such file"), std::string::npos);
  EXPECT_NE(why(fs::path(ASYNCSCOPE_TEST_TMP).string()).find("folder"), std::string::npos);
  EXPECT_NE(why("").find("no script given"), std::string::npos);
  const size_t before = scripts.programs().size();
  const std::string path = write_script("opened.py", "pass\n");
  EXPECT_EQ(&scripts.open(path), &scripts.open(path)) << "opened twice, listed once";
  EXPECT_EQ(scripts.programs().size(), before + 1);
  const std::string same = (fs::path(path).parent_path() / "." / "opened.py").string();
  EXPECT_EQ(&scripts.open(same), &scripts.open(path)) << "the same file by another path";
  EXPECT_EQ(*ScriptLibrary::path_of(*scripts.programs().back()), path);
}

// Stop while the script spins in pure Python (no engine call to refuse):
// the interpreter is interrupted, the run ends as stopped, the app runs again.
TEST(ScriptStop, APurePythonLoopStopsPromptlyAndTheNextRunWorks) {
  REQUIRE_PYTHON();
  ScriptLibrary scripts;
  const demos::Program& spin = scripts.open(write_script("spin.py", "import time\nstarted = True\nwhile True:\n    pass\n"));
  ProgramRunner runner;
  demos::ParamValues values = spin.defaults();
  values.set("workers", "1");
  runner.start(spin, values);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // well into the loop
  ASSERT_TRUE(runner.busy());
  const auto asked = Clock::now();
  runner.stop();
  // The interrupt lands within the interpreter's switch interval (5 ms); the
  // bounds are generous for a loaded machine (a build beside the suite), and
  // still catch a loop that ignores it (it would never end).
  ASSERT_TRUE(wait_until_ended(runner, asyncscope::testing::scaled(std::chrono::seconds(10))))
      << "the loop was not interrupted";
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked);
  EXPECT_LT(took, asyncscope::testing::scaled(std::chrono::seconds(3))) << "stop took " << took.count() << " ms";
  RecordProperty("stop_ms", static_cast<int>(took.count()));
  EXPECT_EQ(runner.state(), ProgramRunner::State::cancelled);

  const demos::Program& quick = scripts.open(write_script("quick.py", "from asyncscope import nd\nnd.ones((4, 4)).wait_to_read()\n"));
  runner.start(quick, values);
  ASSERT_TRUE(wait_until_ended(runner, std::chrono::seconds(30)));
  EXPECT_EQ(runner.state(), ProgramRunner::State::finished) << runner.error();
}

// Stop while the script blocks in a call that a stop must reach: input()
// with stdin an open pipe nobody writes to, time.sleep, a wait on a long op,
// a thread's join. Each run ends as stopped, promptly.
TEST(ScriptStop, BlockingCallsOfTheScriptAndItsThreadsAreInterruptedByAStop) {
  REQUIRE_PYTHON();
  // The process's stdin: a pipe whose writing end stays open, as a terminal's would.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const int saved_stdin = ::dup(0);
  ASSERT_GE(::dup2(pipe_fds[0], 0), 0);
  ScriptLibrary scripts;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"input.py", "print('name? ', end='')\nname = input()\n"},
      {"sleep.py", "import time\ntime.sleep(1000)\n"},
      {"wait.py", "from asyncscope import nd\nx = nd.random.uniform(shape=(500, 500))\n"
                  "for i in range(3000):\n    x = nd.dot(x, x) / 500\nx.wait_to_read()\n"},
      {"thread.py", "import threading, time\nthreading.Thread(target=time.sleep, args=(1000,)).start()\n"},
  };
  for (const auto& [name, code] : cases) {
    const demos::Program& script = scripts.open(write_script(name, code));
    ProgramRunner runner;
    demos::ParamValues values = script.defaults();
    values.set("workers", "1");
    runner.start(script, values);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // blocked by now
    ASSERT_TRUE(runner.busy()) << name << ": " << runner.error();
    const auto asked = Clock::now();
    runner.stop();
    ASSERT_TRUE(wait_until_ended(runner, std::chrono::seconds(5))) << name << " did not stop";
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - asked);
    EXPECT_LT(took.count(), 2000) << name << ": stop took " << took.count() << " ms";
    EXPECT_EQ(runner.state(), ProgramRunner::State::cancelled) << name << ": " << runner.error();
  }
  ::dup2(saved_stdin, 0);
  ::close(saved_stdin);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

// The app's console gets what the script writes as it writes it: a prompt
// without a newline is an open line that the next write continues; bytes
// sent to the process's descriptors directly (os.write, C extensions) come
// too; so does what the script's threads print: the run ends when they do,
// as python3's process does, though the app runs the script on a thread of
// its own.
TEST(ScriptConsole, PartialLinesDescriptorsAndThreadsReachTheConsole) {
  REQUIRE_PYTHON();
  ScriptLibrary scripts;
  const demos::Program& script = scripts.open(write_script("console.py",
      "import os, sys, threading, time\n"
      "print('name? ', end='', flush=True)\n"
      "print('Ada')\n"
      "os.write(1, b'from fd 1\\n')\n"
      "os.write(2, b'from fd 2\\n')\n"
      "sys.stdout.buffer.write(b'bytes\\n')\n"
      "t = threading.Thread(target=lambda: (time.sleep(0.3), print('from a thread')))\n"
      "t.start()\n"));
  RunList runs;
  ProgramRunner runner;
  RunRecord& run = run_to_end(runs, runner, script);
  EXPECT_EQ(runner.state(), ProgramRunner::State::finished) << runner.error();
  std::vector<std::string> lines = run.console;
  EXPECT_EQ(lines.front(), "name? Ada");
  for (const char* want : {"from fd 1", "from fd 2", "bytes", "from a thread"}) {
    EXPECT_NE(std::find(lines.begin(), lines.end(), want), lines.end()) << want;
  }
  EXPECT_FALSE(run.console_open);
}

using testing::status_field;

// 200 runs of a script stopped at different moments (before it started
// pushing, in a push, in a wait, in Python), in one process: every stop
// ends its run, and neither threads nor memory pile up after the first 50.
TEST(ScriptStop, TwoHundredRunStopCyclesNeitherHangNorLeak) {
  REQUIRE_PYTHON();
  ScriptLibrary scripts;
  const demos::Program& loop = scripts.open(write_script("cycle.py",
                                                        "from asyncscope import nd\n"
                                                        "x = nd.ones((32, 32))\n"
                                                        "i = 0\n"
                                                        "while True:\n"
                                                        "    y = x + 1\n"
                                                        "    i += 1\n"
                                                        "    if i % 8 == 0:\n"
                                                        "        y.wait_to_read()\n"));
  demos::ParamValues values = loop.defaults();
  values.set("workers", "1");
  ProgramRunner runner;
  long rss_50 = 0, threads_50 = 0;
  for (int cycle = 1; cycle <= 200; ++cycle) {
    runner.start(loop, values);
    std::this_thread::sleep_for(std::chrono::microseconds(250 * (cycle % 9)));
    runner.stop();
    ASSERT_TRUE(wait_until_ended(runner, std::chrono::seconds(10))) << "cycle " << cycle << " did not stop";
    ASSERT_NE(runner.state(), ProgramRunner::State::failed) << "cycle " << cycle << ": " << runner.error();
    if (cycle == 50) {
      rss_50 = status_field("VmRSS");
      threads_50 = status_field("Threads");
    }
  }
  const long rss_200 = status_field("VmRSS");
  EXPECT_LE(status_field("Threads"), threads_50) << "threads left behind by stopped runs";
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer keeps freed memory in quarantine and its shadow grows
  // with it: RSS says nothing there. LeakSanitizer checks for leaks instead.
  (void)rss_50;
  (void)rss_200;
#else
  EXPECT_LT(rss_200 - rss_50, 32 * 1024) << "RSS grew from " << rss_50 << " kB at cycle 50 to " << rss_200 << " kB";
#endif
  RecordProperty("rss_growth_kb", static_cast<int>(rss_200 - rss_50));
}

}  // namespace
}  // namespace asyncscope::app
