// libFuzzer target over every trace importer: our own Chrome-trace import
// (engine/trace/chrome_trace.h) and, through open_trace on a file holding
// the input (so gzip, the content sniffing and each profiler's importer are
// reached), the profilers' traces (engine/trace/profile*.h).
// What counts as correct for any input, for our own import:
//   - it is refused with a std::runtime_error whose message is one line that
//     starts with the source name (a clear error for the person who opened it),
//   - or it is accepted, and then the model keeps the rules of model_check.h
//     (the import checked them) and survives a round trip: exported, read
//     back and exported again it gives the same text.
// Anything else is a finding: a crash, a sanitizer report, another kind of
// exception (std::terminate), a wrong message, a hang (-timeout) or a huge
// allocation (-malloc_limit_mb / -rss_limit_mb).
//
// And for open_trace: refused with one line that names the file, or
// accepted with a model that keeps the rules, whose figures and JSON
// (profile_report.h) are made without a throw.
// The input reaches our parser through a stream, as a file does through
// read_chrome_trace (the CLI's and the app's path); the round trip uses the
// in-memory overload.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <unistd.h>

#include "engine/trace/chrome_trace.h"
#include "engine/trace/model_check.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/profile_report.h"

namespace {

using namespace asyncscope::trace;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "importer_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

void check_message(const std::runtime_error& e, std::string_view source) {
  const std::string_view message = e.what();
  if (message.rfind(source, 0) != 0 || message.size() <= source.size() + 2) finding("message without its source", e.what());
  if (message.find_first_of("\n\r") != std::string_view::npos) finding("message of more than one line", e.what());
}

// The input as a file, opened as the CLI and the app open one.
void check_open_trace(const std::string& text) {
  // A private folder of this process (mkdtemp), not a name anyone could
  // plant a link at; removed when the fuzzer exits.
  struct Scratch {
    std::string folder, path;
    Scratch() {
      const char* dir = std::getenv("TMPDIR");
      folder = std::string(dir != nullptr && *dir == '/' ? dir : "/tmp") + "/importer_fuzzer-XXXXXX";
      if (::mkdtemp(folder.data()) == nullptr) finding("cannot make a private folder", folder);
      path = folder + "/input.trace";
    }
    ~Scratch() {
      ::unlink(path.c_str());
      ::rmdir(folder.c_str());
    }
  };
  static const Scratch scratch;
  const std::string& path = scratch.path;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  } else {
    finding("cannot write the input's file", path);
  }
  OpenedTrace opened;
  try {
    opened = open_trace(path);
  } catch (const std::runtime_error& e) {
    const std::string_view message = e.what();
    const std::string named = "'" + path + "'";
    if (message.rfind(named, 0) != 0 && message.rfind("cannot read trace " + named, 0) != 0) {
      finding("open_trace message without its file", e.what());
    }
    if (message.find_first_of("\n\r") != std::string_view::npos) finding("message of more than one line", e.what());
    return;
  }
  if (const std::string why = first_violation(opened.model); !why.empty()) {
    finding(opened.foreign() ? "a profiler's trace mapped to a model that breaks a rule" : "accepted a model that breaks a rule",
            why);
  }
  if (opened.foreign()) {
    if (profile_json(opened).empty()) finding("empty JSON for a profiler's trace", "");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check_open_trace(text);
  TraceModel model;
  try {
    std::istringstream in(text);
    model = parse_chrome_trace(in, "fuzz.json");
  } catch (const std::runtime_error& e) {
    check_message(e, "fuzz.json");
    return 0;
  }
  if (const std::string why = first_violation(model); !why.empty()) finding("accepted a model that breaks a rule", why);
  std::string once;
  try {
    once = to_chrome_trace_json(model);
  } catch (const std::runtime_error& e) {
    finding("accepted a model that cannot be exported", e.what());
  }
  std::string twice;
  try {
    twice = to_chrome_trace_json(parse_chrome_trace(once, "round trip"));
  } catch (const std::runtime_error& e) {
    finding("refused its own export of an accepted model", e.what());
  }
  if (once != twice) finding("the round trip changed the model", "export, import, export gave another text");
  return 0;
}
