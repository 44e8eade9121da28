// Reading a trace file for chrome_trace.h's import: the file is opened and
// decompressed by TraceFile (trace_file.h), and its text handed to the
// parser as it asks for it, so the text is never held whole.
#include <string>

#include "engine/base/quote.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/trace_file.h"

namespace asyncscope::trace {

TraceModel read_chrome_trace(const std::string& path) {
  TraceFile file(path);
  try {
    return parse_chrome_trace(file.stream(), quote(path));
  } catch (const TraceReadError& e) {
    throw file.error(e.what());
  }
}

}  // namespace asyncscope::trace
