// libFuzzer target over the viewer's side of the live stream
// (engine/trace/live_protocol.h's StreamDecoder): the input is what a
// publisher sends after a valid hello, fed in pieces whose size the first
// byte picks. What counts as correct for any input:
//   - it is refused with a ProtocolError whose message is one line,
//   - or it is taken, and whatever was taken (refused or not) reads as a
//     model (TraceReader), which the insight answers and the export writes
//     (or refuses with one line) without a crash.
// Anything else is a finding: a crash, a sanitizer report, another kind of
// exception, a hang (-timeout) or a huge allocation (-malloc_limit_mb):
// exactly what a hostile publisher could do to the app.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/trace/chrome_trace.h"
#include "engine/trace/insight.h"
#include "engine/trace/live_protocol.h"
#include "engine/trace/model.h"

namespace {

using namespace asyncscope::trace;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "live_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

LiveHello hello() {
  LiveHello h;
  h.pid = 4242;
  h.title = "fuzzed";
  h.origin_ns = 1'000'000'000;
  h.first_op_id = 1;
  h.counters = {"rss_bytes", "live_bytes"};
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 64;
  live::Limits limits;
  // Smaller than a viewer's own, so the fuzzer reaches them within its memory limit.
  limits.max_threads = 32;
  limits.max_lanes = 256;
  limits.max_names = 4096;
  limits.max_name_bytes = size_t{1} << 20;
  limits.max_payload = size_t{1} << 20;
  limits.max_ops_ahead = uint64_t{1} << 16;
  live::StreamDecoder decoder(hello(), limits);
  try {
    for (size_t at = 1; at < size; at += piece) {
      decoder.feed(reinterpret_cast<const char*>(data) + at, std::min(piece, size - at));
    }
  } catch (const ProtocolError& e) {
    if (std::string(e.what()).find_first_of("\n\r") != std::string::npos) finding("a refusal of more than one line", e.what());
  }
  const TraceModel model = snapshot(*decoder.recorder());
  RunInsight insight;
  insight.update(model, true);
  (void)insight.verdict();
  (void)insight.peak_holders(model);
  try {
    (void)to_chrome_trace_json(model);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find_first_of("\n\r") != std::string::npos) finding("an export refusal of more than one line", e.what());
  }
  return 0;
}
