// No subcommand replaces what it reads: every output option of every
// subcommand, pointed at one of the command's inputs (by its name, another
// name, a link, or the gzip file itself), is refused before anything runs:
// exit 2, one line, the input byte for byte as it was, no window opened.
#include <gtest/gtest.h>

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_harness.h"

namespace asyncscope::app {
namespace {

namespace fs = std::filesystem;
using testing::cli;
using testing::CliResult;
using testing::read;
using testing::scratch;

struct Case {
  std::vector<std::string> args;
  std::string input;  // the file that must stay as it was
};

void write_gz(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(f);
}

TEST(CliOutputs, NoOutputOptionOfAnySubcommandReplacesAnInput) {
  const std::string trace = scratch("t.json"), other = scratch("a.json"), gz = scratch("t.json.gz");
  const std::string link = scratch("link.json"), script = scratch("s.py");
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", trace}).code, 0);
  ASSERT_EQ(cli({"run", "dependency-graph", "--size", "8", "--trace", other}).code, 0);
  write_gz(gz, read(trace));
  fs::remove(link);
  fs::create_symlink(trace, link);
  std::ofstream(script) << "print('the script')\n";

  const std::vector<Case> cases = {
      // view: --json, --svg and the window's --screenshot, of the trace and of the second one.
      {{"view", trace, "--json", trace}, trace},
      {{"view", trace, "--svg", trace}, trace},
      {{"view", trace, "--print", "--json", trace}, trace},
      {{"view", gz, "--json", gz}, gz},
      {{"view", link, "--json", trace}, trace},
      {{"view", trace, "--svg", link}, trace},
      {{"view", trace, "--screenshot", trace}, trace},
      {{"view", other, trace, "--screenshot", link}, trace},
      // diff: --json over either trace.
      {{"diff", trace, other, "--json", trace}, trace},
      {{"diff", other, trace, "--json", link}, trace},
      // script: --trace and --json over the script.
      {{"script", script, "--trace", script}, script},
      {{"script", script, "--json", script}, script},
      // profile: over the script, and its two outputs on one file.
      {{"profile", "--trace", script, script}, script},
      {{"profile", "--json", script, script}, script},
      {{"profile", "--trace", other, "--json", other, script}, other},
      // the app: a screenshot over the script it opens.
      {{"--script", script, "--screenshot", script}, script},
      // run: its two outputs on one file.
      {{"run", "dependency-graph", "--size", "8", "--trace", other, "--json", other}, other},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += a + " ";
    SCOPED_TRACE(joined);
    const std::string before = read(c.input);
    const CliResult r = cli(c.args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("give "), std::string::npos) << r.err;  // "give the output a file of its own"
    EXPECT_TRUE(r.windows.empty());
    EXPECT_EQ(read(c.input), before) << "the input was replaced";
  }
}

}  // namespace
}  // namespace asyncscope::app
