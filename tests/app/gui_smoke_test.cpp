// The real app in a real window (under Xvfb): run a demo, screenshot the
// window with the app's own --screenshot, and check the picture: the window
// size, and the op colours of the demo's spans in the lane area. Runs
// started in the app record its render CPU (checked in an export).
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <stb/stb_image.h>

#include "engine/trace/chrome_trace.h"
#include "engine/trace_record/counters.h"
#include "engine/trace/model.h"
#include "support/timeout.h"
#include "widgets/colors.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;

bool have_xvfb() { return std::system("command -v xvfb-run > /dev/null 2>&1") == 0; }

// xvfb-run with a private X server. -a looks for a free display number from
// -n upwards; two test processes started together (ctest -j2) that both
// began at the default 99 could pick the same one, so each starts its
// search at a number of its own.
std::string xvfb_run() {
  return "xvfb-run -a -n " + std::to_string(100 + ::getpid() % 4000) + " -s '-screen 0 1600x1000x24' ";
}

// The app's command line. Under `make asan`, Mesa's driver is preloaded
// after the sanitizer runtimes (ASYNCSCOPE_GUI_PRELOAD): glfwTerminate()
// unloads it, and the 112 bytes its static pointers still held would be
// reported as leaked, from an unknown module, at exit. Loaded from the
// start, it stays mapped and LeakSanitizer sees what still points at them.
std::string app_command() {
#ifdef ASYNCSCOPE_GUI_PRELOAD
  return std::string("env LD_PRELOAD=") + ASYNCSCOPE_GUI_PRELOAD + " " + ASYNCSCOPE_EXE;
#else
  return ASYNCSCOPE_EXE;
#endif
}

std::string scratch(const std::string& name) {
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "gui";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  fs::remove(p);
  return p.string();
}

// Runs the app under a private X server (its output in LOG), with `env`
// ("NAME=value ...") in its environment; returns its exit code.
// With `timeout_s` > 0, under `timeout` (a hang is exit 124).
// The app's own exit code is kept in LOG.code: under load, xvfb-run itself
// now and then fails to remove its temporary directory afterwards (exit 5,
// "problem while cleaning up temporary directory"), which says nothing about
// the app.
int run_app(const std::string& args, const std::string& log, const std::string& env = "", int timeout_s = 0) {
  const std::string code_file = log + ".code";
  std::error_code ignored;
  fs::remove(code_file, ignored);
  std::string inner = (timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : "") + app_command() + " " +
                      args + " > " + log + " 2>&1; echo $? > " + code_file;
  std::string quoted;
  for (char c : inner) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  const std::string cmd = (env.empty() ? "" : "env " + env + " ") + xvfb_run() + "sh -c '" + quoted + "'";
  const int status = std::system(cmd.c_str());
  std::ifstream in(code_file);
  int code = -1;
  if (in >> code) return code;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  // Pixels within `tolerance` of colour c in the box [x0,x1) x [y0,y1) (fractions of the size).
  int count(ImU32 c, float x0, float y0, float x1, float y1, int tolerance = 6) const {
    const int r = static_cast<int>(c & 0xff), g = static_cast<int>((c >> 8) & 0xff), b = static_cast<int>((c >> 16) & 0xff);
    int n = 0;
    for (int y = static_cast<int>(y0 * height); y < static_cast<int>(y1 * height); ++y) {
      for (int x = static_cast<int>(x0 * width); x < static_cast<int>(x1 * width); ++x) {
        const unsigned char* p = &rgb[(static_cast<size_t>(y) * width + x) * 3];
        n += std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance && std::abs(p[2] - b) <= tolerance;
      }
    }
    return n;
  }
  // Pixels in the box whose red exceeds green and blue by `margin`: the wait colour, blended or not.
  int count_reddish(float x0, float y0, float x1, float y1, int margin = 40) const {
    int n = 0;
    for (int y = static_cast<int>(y0 * height); y < static_cast<int>(y1 * height); ++y) {
      for (int x = static_cast<int>(x0 * width); x < static_cast<int>(x1 * width); ++x) {
        const unsigned char* p = &rgb[(static_cast<size_t>(y) * width + x) * 3];
        n += p[0] - p[1] >= margin && p[0] - p[2] >= margin;
      }
    }
    return n;
  }
};

Image load(const std::string& path) {
  Image img;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.width, &img.height, &channels, 3);
  if (data) {
    img.rgb.assign(data, data + static_cast<size_t>(img.width) * img.height * 3);
    stbi_image_free(data);
  }
  return img;
}

// The lane area: right of the left panel, above the results table.
int lane_pixels(const Image& img, const char* op) { return img.count(widgets::OpColor(op), 0.28f, 0.05f, 1.0f, 0.72f); }

TEST(GuiSmoke, SyncVsAsyncRunsAndTheScreenshotShowsItsSpans) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string png = scratch("sync-vs-async.png");
  ASSERT_EQ(run_app("--demo sync-vs-async --iterations 200 --run --screenshot " + png + " --quit-after-run", png + ".log"), 0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);
  EXPECT_GT(lane_pixels(img, "add_scalar"), 50) << "no add_scalar spans drawn";
}

TEST(GuiSmoke, MemoryAndSyncSmallRunShowsTraining) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string png = scratch("memory-and-sync.png");
  ASSERT_EQ(run_app("--demo memory-and-sync --batches 4 --batch-size 64 --run --screenshot " + png +
                        " --quit-after-run",
                    png + ".log"),
            0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  EXPECT_GT(lane_pixels(img, "dot"), 20) << "no matrix products drawn";
}

TEST(GuiSmoke, VaryStacksTwoRunsToCompare) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string png = scratch("vary.png");
  ASSERT_EQ(run_app("--demo memory-and-sync --batches 4 --batch-size 64 --vary sync=none,item --run --screenshot " +
                        png + " --quit-after-run",
                    png + ".log"),
            0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  // Two timelines, one above the other, both with matrix products drawn.
  const ImU32 dot = widgets::OpColor("dot");
  EXPECT_GT(img.count(dot, 0.28f, 0.05f, 1.0f, 0.40f), 10) << "no spans in the upper (current) timeline";
  EXPECT_GT(img.count(dot, 0.28f, 0.42f, 1.0f, 0.72f), 10) << "no spans in the lower (compared) timeline";
}

bool have_xdotool() { return std::system("command -v xdotool > /dev/null 2>&1") == 0; }

// A step of app_session that waits (up to 30 s) until a file matching
// `glob` exists in the folder: on a loaded machine a frame can take longer
// than any fixed pause, so a result is waited for, not slept for.
std::string wait_for_file(const std::string& glob) {
  return "for i in $(seq 300); do compgen -G '" + glob + "' > /dev/null && break; sleep 0.1; done; sleep 0.3";
}

// A person at the app: starts it with `app_args` in a fresh folder
// ASYNCSCOPE_TEST_TMP/gui/NAME (its current directory, where its exports
// and screenshots go), waits for its window, then runs `steps` (shell lines
// using $wid, the window, e.g. "xdotool key --window $wid space; sleep 1"),
// then kills it. Returns the folder; the session's output is NAME.log there
// (the app's and the steps'). `env`: "NAME=value ..." for the app.
fs::path app_session(const std::string& name, const std::string& app_args, const std::vector<std::string>& steps,
                     const std::string& env = "") {
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "gui" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string script = (dir / (name + ".sh")).string();
  {
    std::ofstream out(script);
    // A config folder of its own: a person's saved layout and window size
    // never move what the steps click on.
    out << "cd " << dir << "\n"
        << "XDG_CONFIG_HOME=" << (dir / "config").string() << " " << env << (env.empty() ? "" : " ") << app_command()
        << " " << app_args << " &\n"
        << "app=$!\n"
        << "wid=$(xdotool search --sync --name asyncscope | head -1)\n"
        << "sleep 1\n";
    for (const std::string& step : steps) out << step << "\n";
    out << "kill $app; wait $app\n";
  }
  // bash for compgen (wait_for_file).
  std::system((xvfb_run() + "bash " + script + " > " + (dir / (name + ".log")).string() +
               " 2>&1").c_str());
  return dir;
}

// The window opens at the size it last closed at, fitted to the screen
// (Xvfb's is 1600x1000 here), and remembers the size it closes at.
TEST(GuiSmoke, TheWindowFitsTheScreenAndRemembersItsSize) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  const std::string geometry = "xdotool getwindowgeometry $wid | sed -n 's/.*Geometry: //p' > geometry.txt";
  // A fresh config folder: the first size, then the one it closes at, remembered.
  const fs::path dir = app_session("size", "--demo queued-vs-finished --size 64",
                                   {geometry, "xdotool windowsize --sync $wid 1100 700; sleep 1"});
  std::ifstream in(dir / "geometry.txt");
  std::string opened;
  std::getline(in, opened);
  EXPECT_EQ(opened, "1280x800") << "a first window opens at 1280x800 where it fits";
  std::ifstream saved(dir / "config" / "asyncscope" / "window-size");
  int w = 0, h = 0;
  ASSERT_TRUE(saved >> w >> h) << "no size remembered (see " << dir << "/size.log)";
  EXPECT_EQ(w, 1100);
  EXPECT_EQ(h, 700);
  // Remembered larger than the screen: fitted to its work area, less a frame
  // (the session's own app is replaced by one started after the size was written).
  const fs::path again = app_session("size-again", "--demo queued-vs-finished --size 64",
                                     {"kill $app; wait $app",  // it remembers its own size as it closes
                                      "mkdir -p config/asyncscope; echo '3000 2000' > config/asyncscope/window-size",
                                      "XDG_CONFIG_HOME=$PWD/config " + app_command() + " --demo queued-vs-finished &",
                                      "app=$!",
                                      "sleep 2; wid=$(xdotool search --sync --pid $app --name asyncscope | head -1)",
                                      geometry});
  std::ifstream fitted_in(again / "geometry.txt");
  std::string fitted;
  std::getline(fitted_in, fitted);
  EXPECT_EQ(fitted, "1552x952") << "see " << again << "/size-again.log";
}

// A person at the keyboard: Space runs the demo, Ctrl+S then Enter exports
// the trace, Ctrl+P saves a screenshot. Key taps are sent by xdotool, as
// fast as a script can, which also checks no tap falls between two frames.
TEST(GuiSmoke, KeyboardShortcutsRunExportAndScreenshot) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  const fs::path dir = app_session("keys", "--demo queued-vs-finished --size 200",
                                   {"xdotool key --window $wid space; sleep 2",
                                    "xdotool key --window $wid ctrl+s; sleep 1",
                                    "xdotool key --window $wid Return", wait_for_file("*.json"),
                                    "xdotool key --window $wid ctrl+p", wait_for_file("*.png")});
  int json = 0, png = 0;
  fs::path exported;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("asyncscope-queued-vs-finished-", 0) == 0 && entry.path().extension() == ".json") {
      ++json;
      exported = entry.path();
    }
    png += name.rfind("asyncscope-", 0) == 0 && entry.path().extension() == ".png";
  }
  EXPECT_EQ(json, 1) << "Ctrl+S, Enter did not export the run's trace (see " << dir << "/keys.log)";
  EXPECT_EQ(png, 1) << "Ctrl+P did not save a screenshot";
  if (exported.empty()) return;
  // A run started in the app records the app's render CPU, and its export
  // carries it like the run's own counters (and reads back).
  const trace::TraceModel m = trace::read_chrome_trace(exported.string());
  const int column = m.counter_index(trace::kRenderCpuCounter);
  ASSERT_GE(column, 0) << "no " << trace::kRenderCpuCounter << " counter in " << exported;
  ASSERT_FALSE(m.counters.empty());
  // It sums the UI thread and the graphics driver's threads (llvmpipe
  // rasterises on threads of its own), so it may exceed one core (1000 per
  // mille) by a little, never the machine's cores.
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  for (const trace::CounterSample& sample : m.counters) {
    EXPECT_GE(sample.values[column], 0);
    EXPECT_LE(sample.values[column], cores * 1050) << "more than the machine's " << cores << " cores";
  }
}

// An idle window draws nothing, and wakes for what animates: with a finished
// run shown and no input, no frame in two seconds; with the Open dialog's
// text field active, the frames its caret blinks in (on 0.8 s, off 0.4 s).
// The app writes a line per frame drawn (ASYNCSCOPE_FRAME_LOG), the steps
// their marks, into the same log.
TEST(GuiSmoke, AnIdleWindowDrawsNoFramesButACaretStillBlinks) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  // The idle stretch starts once the run's frames have stopped (no new frame
  // in 1.5 s, within 30 s): under load the run and its last frames can take
  // longer than any fixed sleep would allow for.
  const std::string settle =
      "n=-1; for i in $(seq 20); do m=$(grep -c '^asyncscope: frame ' idle.log); "
      "[ \"$m\" = \"$n\" ] && break; n=$m; sleep 1.5; done";
  const fs::path dir = app_session("idle", "--demo sync-vs-async --run",
                                   {settle + "; echo mark idle; sleep 2; echo mark idle end",
                                    "xdotool key --window $wid ctrl+o; sleep 0.5",
                                    "echo mark caret; sleep 3; echo mark caret end"},
                                   "ASYNCSCOPE_FRAME_LOG=1");
  std::ifstream in(dir / "idle.log");
  std::string line, stretch;
  int frames = 0, idle = -1, caret = -1;
  while (std::getline(in, line)) {
    frames += line.rfind("asyncscope: frame ", 0) == 0;
    if (line.rfind("mark ", 0) != 0) continue;
    if (line == "mark idle end") idle = frames;
    if (line == "mark caret end") caret = frames;
    if (line == "mark idle" || line == "mark caret") frames = 0;
  }
  ASSERT_GE(idle, 0) << "the session did not run (see " << dir << "/idle.log)";
  EXPECT_EQ(idle, 0) << "frames drawn in 2 s of an idle window";
  EXPECT_GE(caret, 3) << "the caret did not blink (about 5 frames in 3 s)";
  EXPECT_LE(caret, 12) << "more frames than the caret needs";
}

// Space starts a run and Space again stops it: memory-and-sync without a
// sync enqueues every batch at once and trains for seconds, so a stop a
// second in drops the batches not started yet: the run exported after the
// stop (Ctrl+S, Enter) holds ops marked cancelled.
TEST(GuiSmoke, SpaceStopsARunningDemo) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  const fs::path dir = app_session("space", "--demo memory-and-sync --sync none --batches 400 --batch-size 1024",
                                   {"xdotool key --window $wid space; sleep 1.5",
                                    "xdotool key --window $wid space; sleep 2",
                                    "xdotool key --window $wid ctrl+s; sleep 1",
                                    "xdotool key --window $wid Return", wait_for_file("*.json")});
  fs::path exported;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") exported = entry.path();
  }
  ASSERT_FALSE(exported.empty()) << "no export after the stop (see " << dir << "/space.log)";
  std::ifstream in(exported);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"status\":\"cancelled\""), std::string::npos) << "no op was dropped by the stop";
  EXPECT_NE(text.find("\"name\":\"normal\""), std::string::npos) << "the run never started";
}

// A person reading what the demo printed: Space runs queued-vs-finished
// (which prints "sum = ..."), a click on the Console tab, Ctrl+P. The picture
// shows the Console tab chosen and light text in the pane: the lines (the
// empty pane's hint is muted). The text itself is checked headlessly in
// gui/console_panel_test.cpp.
TEST(GuiSmoke, ConsoleTabShowsWhatTheDemoPrinted) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  // Where the layout puts the Console tab in the default 1280x800 window.
  constexpr int kConsoleTabX = 470, kConsoleTabY = 606;
  const std::string tab = std::to_string(kConsoleTabX) + " " + std::to_string(kConsoleTabY);
  const fs::path dir = app_session(
      "console", "--demo queued-vs-finished --size 200",
      {"xdotool key --window $wid space; sleep 3",
       // Moved first, then pressed: ImGui takes a tab click only over the tab it hovered a frame before.
       "xdotool mousemove --window $wid " + tab + "; sleep 0.3",
       "xdotool mousedown 1; sleep 0.2; xdotool mouseup 1; sleep 0.3",
       "xdotool mousemove --window $wid 150 300; sleep 0.3",  // off the tabs, over no tooltip
       "xdotool key --window $wid ctrl+p", wait_for_file("*.png")});
  std::string png;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".png") png = entry.path().string();
  }
  ASSERT_FALSE(png.empty()) << "no screenshot (see " << dir << "/console.log)";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);
  // The chosen tab's colour (window.cpp's style) under the Console label, not under Results.
  const ImU32 chosen = IM_COL32(56, 82, 122, 255);
  const float tab_y0 = (kConsoleTabY - 6) / 800.0f, tab_y1 = (kConsoleTabY + 6) / 800.0f;
  EXPECT_GT(img.count(chosen, (kConsoleTabX - 30) / 1280.0f, tab_y0, (kConsoleTabX + 30) / 1280.0f, tab_y1, 3), 100)
      << "the Console tab is not the chosen one in " << png;
  EXPECT_LT(img.count(chosen, 0.28f, tab_y0, 0.33f, tab_y1, 3), 20) << "the Results tab is still chosen in " << png;
  // Printed lines are drawn in the full text colour, below the pane's muted header.
  EXPECT_GT(img.count(IM_COL32(255, 255, 255, 255), 0.28f, 0.80f, 0.75f, 0.97f, 20), 30)
      << "no printed lines in the console pane of " << png;
}

// A script opened from the command line and run: the script view (its
// source, and the margin's per-line figures with the lines that waited long
// in the wait colour) on the left, the script's ops in the lanes.
TEST(GuiSmoke, ScriptRunsWithItsSourceAndPerLineFigures) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string png = scratch("script.png");
  const std::string script = std::string(ASYNCSCOPE_SOURCE_DIR) + "/assets/scripts/sync_vs_async.py";
  ASSERT_EQ(run_app("--script " + script + " --workers 1 --run --screenshot " + png + " --quit-after-run",
                    png + ".log", "N=100 SIZE=32"),
            0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  ASSERT_EQ(img.height, 800);
  // The left panel is the script view: source text, and beside the line that
  // waited longest a full-width bar in the wait colour (faint: blended over the panel).
  EXPECT_GT(img.count(widgets::theme::kText, 0.0f, 0.1f, 0.42f, 0.8f, 10), 300) << "no source text in " << png;
  EXPECT_GT(img.count_reddish(0.0f, 0.1f, 0.42f, 0.8f, 12), 600) << "no wait figures in the margin of " << png;
  EXPECT_GT(img.count(widgets::OpColor("add_scalar"), 0.45f, 0.05f, 1.0f, 0.72f), 50) << "no script ops in the lanes";
}

// A person attaches the app to a program that publishes its run (here
// `asyncscope script` with ASYNCSCOPE_SERVE=1): File > Attach to process...
// lists it, Enter attaches, the run is followed live to the program's end,
// then Ctrl+P saves the window, whose lanes show the program's ops.
TEST(GuiSmoke, FileAttachToProcessFollowsAProgramLive) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  // Beside the session's folder, which app_session makes afresh.
  const fs::path script = fs::path(ASYNCSCOPE_TEST_TMP) / "gui" / "attach_published.py";
  fs::create_directories(script.parent_path());
  {
    std::ofstream program(script);
    program << "import time\nimport asyncscope\nfrom asyncscope import nd\nx = nd.ones((200, 200))\n"
               "end = time.time() + 6\nwhile time.time() < end:\n    y = nd.dot(x, x)\n    y.wait_to_read()\n"
               "    time.sleep(0.01)\n";
  }
  const std::string live = (fs::path(ASYNCSCOPE_TEST_TMP) / "gui" / "attach_live").string();
  fs::remove_all(live);
  const std::string exe = ASYNCSCOPE_EXE;
  const fs::path out = app_session(
      "attach", "", {"ASYNCSCOPE_SERVE=1 ASYNCSCOPE_LIVE_DIR=" + live + " " + exe + " script " + script.string() + " > published.log 2>&1 &",
                     "published=$!",
                     "for i in $(seq 300); do ASYNCSCOPE_LIVE_DIR=" + live + " " + exe +
                         " attach --list | grep -q \"^$published \" && break; sleep 0.1; done",
                     // File, then its fourth item: Attach to process...
                     "xdotool mousemove --window $wid 20 10 click 1; sleep 0.5",
                     "xdotool mousemove --window $wid 60 78 click 1; sleep 1",
                     "xdotool key --window $wid Return",
                     "wait $published; sleep 1.5",
                     "xdotool key --window $wid ctrl+p", wait_for_file("asyncscope-*.png")},
      "ASYNCSCOPE_LIVE_DIR=" + live);
  fs::path png;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().extension() == ".png") png = entry.path();
  }
  ASSERT_FALSE(png.empty()) << "no screenshot (see " << out << "/attach.log)";
  const Image img = load(png.string());
  EXPECT_GT(lane_pixels(img, "dot"), 50) << "the attached program's ops are not in the lanes of " << png;
  // Its script, opened from its command line, with the waits' line figures in the margin.
  EXPECT_GT(img.count_reddish(0.0f, 0.1f, 0.42f, 0.8f, 12), 300) << "no wait figures in the margin of " << png;
}

TEST(GuiSmoke, AScriptThatCannotBeReadIsRefusedBeforeAWindowOpens) {
  const std::string log = scratch("bad-script.log");
  const std::string cmd = std::string(ASYNCSCOPE_EXE) + " --script /nonexistent/x.py --run --quit-after-run > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream in(log);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(text, "asyncscope: --script: cannot read /nonexistent/x.py: no such file\n");
}

// Runs the executable without any display (a window it tried to open would
// fail with exit 1), under `timeout` (a hang is exit 124, not a stuck test).
// Returns the exit code; what it printed goes to `log`.
int run_headless(const std::string& args, const std::string& log, const std::string& env = "") {
  const std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY " + env + " timeout 60 " + std::string(ASYNCSCOPE_EXE) + " " +
                          args + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Settings `run` would refuse are refused by the app the same way, before a
// window opens: one line, exit 2 (not a window that refuses the run and then
// waits forever under --quit-after-run).
TEST(GuiSmoke, RefusedSettingsAreBadInputBeforeAWindowOpens) {
  const std::string png = scratch("refused.png");
  for (const auto& [args, env] : std::vector<std::pair<std::string, std::string>>{
           {"--demo dependency-graph --size 30000 --run --quit-after-run --screenshot " + png, ""},
           {"--demo dependency-graph --run --quit-after-run --screenshot " + png, "ASYNCSCOPE_MEMORY_BUDGET_MB=50"},
           {"--demo dependency-graph --vary size=64,30000 --run --quit-after-run --screenshot " + png, ""},
       }) {
    const std::string log = scratch("refused.log");
    EXPECT_EQ(run_headless(args, log, env), 2) << args << ": " << text_of(log);
    const std::string said = text_of(log);
    EXPECT_EQ(said.rfind("asyncscope: these parameters need about ", 0), 0u) << said;
    EXPECT_NE(said.find("more than the memory budget"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    EXPECT_FALSE(fs::exists(png));
  }
}

// --quit-after-run quits whatever happens: with nothing to run, after a
// trace is shown, and (exit 1) after a run that failed.
TEST(GuiSmoke, QuitAfterRunQuitsWhateverHappens) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string log = scratch("quit.log");
  EXPECT_EQ(run_app("--demo dependency-graph --quit-after-run", log, "", 60), 0) << text_of(log);
  const std::string trace = scratch("quit-trace.json");
  ASSERT_EQ(std::system((std::string(ASYNCSCOPE_EXE) + " run dependency-graph --size 16 --trace " + trace +
                         " > /dev/null").c_str()),
            0);
  EXPECT_EQ(run_app("view " + trace + " --quit-after-run", log, "", 60), 0) << text_of(log);
  const std::string script = scratch("fails.py");
  std::ofstream(script) << "raise RuntimeError('this run fails')\n";
  EXPECT_EQ(run_app("--script " + script + " --run --quit-after-run", log, "", 60), 1) << text_of(log);
}

// SIGTERM, or the app closed with Ctrl+Q, while a run is going on: the run
// is stopped and the app ends within seconds (SIGTERM: exit 143, one line),
// with no screenshot or temporary file left behind.
TEST(GuiSmoke, SigtermOrQuitDuringARunEndsTheAppPromptly) {
  if (!have_xvfb() || std::system("command -v xdotool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  }
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "gui" / "interrupt";
  for (const std::string how : {"kill -TERM $app", "xdotool key --window $wid ctrl+q"}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string script = (dir / "stop.sh").string();
    {
      std::ofstream out(script);
      // memory-and-sync runs for seconds (longer in the window than from the
      // command line): still going when the stop comes.
      out << "cd " << dir << "\n"
          << app_command() << " --demo memory-and-sync --sync item --run --screenshot shot.png 2> app.err &\n"
          << "app=$!\n"
          << "wid=$(xdotool search --sync --name asyncscope | head -1)\n"
          << "sleep 2\n"
          << "start=$(date +%s%N)\n"
          << how << "\n"
          << "wait $app; code=$?\n"
          << "echo $code $(( ($(date +%s%N) - start) / 1000000 )) > result\n";
    }
    std::system((xvfb_run() + "timeout 90 bash " + script + " > " +
                 (dir / "stop.log").string() + " 2>&1").c_str());
    int code = -1, ms = -1;
    std::ifstream(dir / "result") >> code >> ms;
    const bool term = how.rfind("kill", 0) == 0;
    EXPECT_EQ(code, term ? 143 : 0) << how << "; see " << dir;
    EXPECT_GE(ms, 0) << how;
    EXPECT_LT(ms, 5000 * asyncscope::testing::time_scale()) << how << ": the app took " << ms << " ms to end";
    const std::string said = text_of((dir / "app.err").string());
    if (term) {
      EXPECT_EQ(said, "asyncscope: interrupted by SIGTERM: the app was closed and its run stopped\n") << said;
    }
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      EXPECT_TRUE(name == "stop.sh" || name == "stop.log" || name == "result" || name == "app.err") << name;
    }
  }
}

// SIGTERM while a script blocks: in input() with stdin an open pipe and in
// time.sleep the stop reaches it and the app ends at once (143); in a raw
// read of stdin, which no stop reaches, the app still ends, after its 5 s
// limit, saying why.
TEST(GuiSmoke, SigtermWhileAScriptBlocksEndsTheApp) {
  if (!have_xvfb() || std::system("command -v xdotool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  }
  const fs::path dir = fs::path(ASYNCSCOPE_TEST_TMP) / "gui" / "blocked";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"input.py", "print('name? ', end='')\nname = input()\n"},
      {"sleep.py", "import time\ntime.sleep(1000)\n"},
      {"raw.py", "import os\nos.read(0, 10)\n"},
  };
  for (const auto& [name, code] : cases) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / name) << code;
    const std::string script = (dir / "term.sh").string();
    {
      std::ofstream out(script);
      // stdin: a FIFO this shell holds open for reading and writing, so the
      // app's read of it never ends and never sees an end of file.
      out << "cd " << dir << "\n"
          << "mkfifo stdin.fifo && exec 3<>stdin.fifo\n"
          << app_command() << " --script " << name << " --run < stdin.fifo 2> app.err &\n"
          << "app=$!\n"
          << "wid=$(xdotool search --sync --name asyncscope | head -1)\n"
          << "sleep 2\n"
          << "start=$(date +%s%N)\n"
          << "kill -TERM $app\n"
          << "wait $app\n"
          << "echo $(( ($(date +%s%N) - start) / 1000000 )) > result\n";
    }
    std::system((xvfb_run() + "timeout 60 bash " + script + " > " + (dir / "term.log").string() + " 2>&1").c_str());
    int ms = -1;
    std::ifstream(dir / "result") >> ms;
    const std::string said = text_of((dir / "app.err").string());
    EXPECT_GE(ms, 0) << name << "; see " << dir;
    EXPECT_NE(said.find("interrupted by SIGTERM: the app was closed and its run stopped"), std::string::npos)
        << name << ": " << said;
    if (name == "raw.py") {
      EXPECT_LT(ms, 9000 * asyncscope::testing::time_scale()) << name << ": the app took " << ms << " ms to end";
      EXPECT_NE(said.find("did not end within 5 s"), std::string::npos) << said;
    } else {
      EXPECT_LT(ms, 3000 * asyncscope::testing::time_scale()) << name << ": the app took " << ms << " ms to end";
      EXPECT_EQ(said.find("did not end"), std::string::npos) << said;
    }
  }
}

TEST(GuiSmoke, ViewRendersTheLanesOfAnExportedTrace) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string trace = scratch("exported.json");
  const std::string png = scratch("view.png");
  ASSERT_EQ(std::system((std::string(ASYNCSCOPE_EXE) + " run sync-vs-async --iterations 200 --trace " + trace +
                         " > /dev/null").c_str()),
            0);
  ASSERT_EQ(run_app("view " + trace + " --screenshot " + png + " --quit-after-run", png + ".log"), 0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  EXPECT_GT(lane_pixels(img, "add_scalar"), 50);
}

// A trace of a demo opens with that demo picked and its knobs set, so
// Space runs it again as it was run (here: a trace the CLI wrote, and the
// new run exported with Ctrl+S says what made it).
TEST(GuiSmoke, ATraceOfADemoOpensWithItPickedSoSpaceRunsItAgain) {
  if (!have_xvfb() || !have_xdotool()) GTEST_SKIP() << "xvfb-run or xdotool is not installed (make test installs them)";
  const std::string trace = scratch("made_by_cli.json");
  ASSERT_EQ(std::system((std::string(ASYNCSCOPE_EXE) + " run host-vs-gpu --repeats 2 --size 64 --trace " + trace +
                         " > /dev/null").c_str()),
            0);
  const fs::path dir = app_session("origin", "view " + trace,
                                   {"xdotool key --window $wid space; sleep 2",
                                    "xdotool key --window $wid ctrl+s; sleep 1",
                                    "xdotool key --window $wid Return", wait_for_file("asyncscope-*.json")});
  fs::path exported;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") exported = entry.path();
  }
  ASSERT_FALSE(exported.empty()) << "Space, Ctrl+S, Enter exported nothing (see " << dir << "/origin.log)";
  EXPECT_EQ(exported.filename().string().rfind("asyncscope-host-vs-gpu-", 0), 0u) << exported;
  const trace::TraceModel m = trace::read_chrome_trace(exported.string());
  EXPECT_EQ(m.origin.program, "host-vs-gpu");
  const std::map<std::string, std::string> params(m.origin.params.begin(), m.origin.params.end());
  EXPECT_EQ(params.at("repeats"), "2");
  EXPECT_EQ(params.at("size"), "64");
  EXPECT_FALSE(m.origin.results.empty()) << "the new run finished and its table went with it";
}

// A profiler's trace opens in the real app: the chapter's loop as PyTorch
// 2.11 ran it on an H200 (kept in tests/data/traces), its GPU kernels and
// the threads' operators drawn as lanes, under a real X server.
TEST(GuiSmoke, ViewRendersAPyTorchProfilersTrace) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed (make test installs it)";
  const std::string trace = std::string(ASYNCSCOPE_SOURCE_DIR) + "/tests/data/traces/torch211_h200_chapter_cuda.json.gz";
  const std::string png = scratch("pytorch_trace.png");
  ASSERT_EQ(run_app("view " + trace + " --tab insight --screenshot " + png + " --quit-after-run", png + ".log"), 0)
      << "see " << png << ".log";
  const Image img = load(png);
  ASSERT_EQ(img.width, 1280);
  // The threads' operators are drawn on their lanes.
  EXPECT_GT(lane_pixels(img, "aten::masked_select"), 50);
  EXPECT_GT(lane_pixels(img, "aten::isfinite"), 50);
}

}  // namespace
}  // namespace asyncscope::app
