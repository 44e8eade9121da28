#include "python/core/source.h"

#include <Python.h>
#include <frameobject.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "engine/core/engine.h"
#include "engine/trace_record/names.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::python {
namespace {

struct CodeInfo {
  bool package = false;  // a frame of the asyncscope package itself: look further out
  trace::NameId file = 0;
  std::unordered_map<int, int> lines;  // instruction offset -> line number
};

// Per interpreter, under the GIL. Code objects are kept alive (one reference
// each) so that a pointer never comes back as another code object.
struct Caches {
  std::string package_dir, package_abs;
  std::unordered_map<PyCodeObject*, CodeInfo> codes;
};

Caches& caches() {
  static Caches* c = new Caches;  // outlives every frame that could ask
  return *c;
}

bool starts_with_dir(const char* path, const std::string& dir) {
  return !dir.empty() && std::strncmp(path, dir.c_str(), dir.size()) == 0 && path[dir.size()] == '/';
}

CodeInfo& info_of(PyCodeObject* code) {
  Caches& c = caches();
  auto it = c.codes.find(code);
  if (it != c.codes.end()) return it->second;
  CodeInfo info;
  const char* file = PyUnicode_AsUTF8(code->co_filename);
  if (file == nullptr) {
    PyErr_Clear();
    file = "<unknown>";
  }
  info.package = starts_with_dir(file, c.package_dir) || starts_with_dir(file, c.package_abs);
  if (!info.package) info.file = trace::intern(file);
  Py_INCREF(code);
  return c.codes.emplace(code, std::move(info)).first->second;
}

// What the calling thread recorded last: a new source event is due when the
// line, its frame or the run changes, or when the same frame comes back at
// the same or an earlier instruction (the line runs again).
struct LastSource {
  const trace::Recorder* recorder = nullptr;
  PyFrameObject* frame = nullptr;
  int lasti = -1;
  int line = -1;
  // The innermost frame when it was a package frame (a wrapper that may call
  // the core twice for one call of the user's).
  PyFrameObject* inner = nullptr;
  int inner_lasti = -1;
};
thread_local LastSource t_last;

bool read_enabled() {
  const char* v = std::getenv("ASYNCSCOPE_SOURCE");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// Read and written under the GIL.
bool& enabled_flag() {
  static bool enabled = read_enabled();
  return enabled;
}

}  // namespace

bool source_attribution_enabled() { return enabled_flag(); }
void set_source_attribution(bool on) { enabled_flag() = on; }

void set_package_dir(const std::string& dir, const std::string& absolute_dir) {
  Caches& c = caches();
  c.package_dir = dir;
  c.package_abs = absolute_dir;
  // Entries classified before the directory was known are classified again.
  for (auto& [code, info] : c.codes) Py_DECREF(code);
  c.codes.clear();
}

void leave_source(const Context& ctx) {
  t_last = LastSource{};
  const std::shared_ptr<trace::Recorder>& recorder = ctx.engine().recorder();
  if (recorder && recorder->enabled() && source_attribution_enabled()) recorder->record_source(0, 0);
}

void note_source(const Context& ctx) {
  const std::shared_ptr<trace::Recorder>& recorder = ctx.engine().recorder();
  if (!recorder || !recorder->enabled() || !source_attribution_enabled()) return;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed; frames below it live while it runs
  if (frame == nullptr) return;
  PyFrameObject* const innermost = frame;
  const int innermost_lasti = PyFrame_GetLasti(innermost);
  CodeInfo* info = nullptr;
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new reference; the frame keeps it alive
    Py_DECREF(code);
    info = &info_of(code);
    if (!info->package) break;
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference; the stack keeps it alive
    Py_XDECREF(back);
    frame = back;
  }
  if (frame == nullptr) return;  // only the package's own frames: nothing of the user's to name

  const int lasti = PyFrame_GetLasti(frame);
  int line;
  if (auto it = info->lines.find(lasti); it != info->lines.end()) {
    line = it->second;
  } else {
    line = PyFrame_GetLineNumber(frame);
    info->lines.emplace(lasti, line);
  }
  LastSource& last = t_last;
  const bool via_package = innermost != frame;
  bool same_execution = last.recorder == recorder.get() && last.frame == frame && last.line == line;
  if (same_execution) {
    if (lasti > last.lasti) {
      // Later in the same line.
    } else if (lasti == last.lasti && via_package && last.inner == innermost && innermost_lasti > last.inner_lasti) {
      // The same call of the user's, a package wrapper calling the core again.
    } else {
      same_execution = false;
    }
  }
  last.recorder = recorder.get();
  last.frame = frame;
  last.lasti = lasti;
  last.line = line;
  last.inner = via_package ? innermost : nullptr;
  last.inner_lasti = via_package ? innermost_lasti : -1;
  if (!same_execution) recorder->record_source(info->file, static_cast<uint32_t>(line));
}

}  // namespace asyncscope::python
