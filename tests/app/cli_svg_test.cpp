// `asyncscope view FILE --svg OUT`: a picture of the timeline that a browser
// draws. Headless Chromium (Debian's chromium, installed by make test)
// loads it: the DOM it parsed has the lane names and the verdict as text
// and the spans as elements, and its screenshot is the picture, not a blank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <stb/stb_image.h>

#include "support/cli_harness.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;
using testing::cli;
using testing::CliResult;
using testing::expect_bad_input;
using testing::read;
using testing::scratch;
using testing::shell;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::string chromium() {
  for (const char* exe : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(exe)) return exe;
  }
  return "";
}

TEST(CliSvg, ViewDrawsTheTimelineAsAnSvgThatChromiumRenders) {
  const std::string trace = scratch("svg_run.json"), svg = scratch("svg_run.svg");
  ASSERT_EQ(cli({"run", "sync-vs-async", "--iterations", "100", "--size", "64", "--trace", trace}).code, 0);
  const CliResult r = cli({"view", trace, "--svg", svg, "--svg-width", "1200"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.windows.empty());
  const std::string text = read(svg);
  EXPECT_NE(text.find("width=\"1200\""), std::string::npos);
  for (const char* name : {">frontend</text>", ">CPU worker 0</text>", ">queue depth</text>", "-bound: "}) {
    EXPECT_NE(text.find(name), std::string::npos) << name;
  }
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "no chromium (Debian: chromium; make test installs it)";
  const std::string profile = scratch("chromium-profile");
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir='" + profile + "'";
  const CliResult dom = shell("timeout 90 '" + browser + "'" + flags + " --dump-dom 'file://" + svg + "' 2>/dev/null");
  ASSERT_EQ(dom.code, 0) << dom.err;
  for (const char* name : {">frontend</text>", ">CPU worker 0</text>", "-bound: "}) {
    EXPECT_NE(dom.out.find(name), std::string::npos) << name << " not in the DOM Chromium parsed";
  }
  EXPECT_GT(count(dom.out, "<rect"), 50u);
  const std::string png = scratch("svg_run.png");
  fs::remove(png);
  const CliResult shot = shell("timeout 90 '" + browser + "'" + flags + " --window-size=1200,500 --screenshot='" + png +
                               "' 'file://" + svg + "' 2>/dev/null");
  ASSERT_EQ(shot.code, 0) << shot.err;
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr) << png;
  // Not a blank page: many pixels differ from the first (the background).
  size_t differ = 0;
  for (int i = 0; i < w * h; ++i) {
    differ += std::abs(pixels[3 * i] - pixels[0]) + std::abs(pixels[3 * i + 1] - pixels[1]) +
                  std::abs(pixels[3 * i + 2] - pixels[2]) > 30;
  }
  stbi_image_free(pixels);
  EXPECT_GT(differ, static_cast<size_t>(w * h / 20)) << "of " << w * h << " pixels";
}

TEST(CliSvg, AProfilersTraceDrawsItsStreamsAndVerdict) {
  const char* env = std::getenv("ASYNCSCOPE_REAL_TRACES");
  const std::string path = std::string(env != nullptr ? env : ASYNCSCOPE_REAL_TRACES) + "/event_sync.json.gz";
  if (!fs::exists(path)) GTEST_SKIP() << "the real traces live in ../shared/traces";
  const std::string svg = scratch("event_sync.svg");
  ASSERT_EQ(cli({"view", path, "--svg", svg}).code, 0);
  const std::string text = read(svg);
  EXPECT_NE(text.find(">GPU 0 stream 7</text>"), std::string::npos);
  EXPECT_NE(text.find("launch-bound: "), std::string::npos);
}

TEST(CliSvg, BadOutputsAndWidthsAreOneLine) {
  const std::string trace = scratch("svg_bad.json");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", trace}).code, 0);
  expect_bad_input({"view", trace, "--svg", "/nonexistent/dir/x.svg"}, "cannot write --svg");
  expect_bad_input({"view", trace, "--svg", scratch("w.svg"), "--svg-width", "10"}, "--svg-width");
}

}  // namespace
}  // namespace asyncscope::app
