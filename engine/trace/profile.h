// Traces written by real profilers, not by asyncscope: the PyTorch profiler
// (Kineto's JSON, modern and 2021-style, CUDA and ROCm), PyTorch without
// Kineto (the JSON Array format: a bare list of events), MXNet's profiler,
// and any other Chrome trace (lanes and spans only). read_profile() reads
// one into a ProfileTrace: the events each lane had, with launches linked to
// the GPU ops they queued, memory events and counters, kept as the profiler
// wrote them (overlapping spans on one lane included: they get sub-rows).
// profile_analysis.h answers the insight's questions from it, and
// profile_model.h maps it onto the TraceModel the widgets draw.
//
// The format is told by content, never by file name; gzip is decompressed
// while parsing (trace_file.h). What an importer cannot use (an event with a
// field of the wrong type, a negative duration, an `E` without its `B`, ...)
// is skipped and counted by reason in ProfileTrace::skipped: a best-effort
// open that says what it left out. What is not a trace at all (invalid
// JSON, no events) throws one line naming the file.
//
// Threading: read_profile() is reentrant; a ProfileTrace is plain data.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace asyncscope::trace {

enum class ProfileFormat : uint8_t {
  kineto,       // PyTorch profiler with Kineto (categories cpu_op, kernel, cuda_runtime, ...)
  kineto_2021,  // the same, 2021 categories (Operator, Runtime, Kernel) and "stream N" tids
  json_array,   // a bare list of events: PyTorch's profiler without Kineto
  mxnet,        // MXNet's profiler: B/E operators, C API calls, counters
  chrome,       // any other Chrome trace: lanes and spans only
};
// "PyTorch profiler (Kineto)", "PyTorch profiler (Kineto, 2021 format)", ...
const char* to_string(ProfileFormat format) noexcept;
// "kineto", "kineto_2021", "json_array", "mxnet", "chrome": the JSON value.
const char* key_of(ProfileFormat format) noexcept;

// What an event is, from its category (and for GPU-side events, its lane).
enum class EventKind : uint8_t {
  cpu_op,           // a framework operator on a CPU thread (cpu_op, Operator, MXNet's operator)
  user_annotation,  // record_function ranges, ProfilerStep
  python_function,  // Python frames (with_stack)
  runtime,          // CUDA/HIP runtime API calls (cuda_runtime, Runtime), MXNet's C API calls
  driver,           // CUDA driver API calls (cuda_driver: cuLaunchKernel)
  kernel,           // GPU ops: kernels,
  memcpy,           //   copies,
  memset,           //   fills
  gpu_annotation,   // gpu_user_annotation: ranges drawn over a stream's ops, not ops
  gpu_sync,         // cuda_sync: Kineto's GPU-side view of a synchronisation
  profiler,         // the profiler's own range (cat Trace: "PyTorch Profiler (0)")
  other,            // any other span (a generic Chrome trace's slices, Trace, overhead)
};
const char* to_string(EventKind kind) noexcept;  // "cpu_op", "kernel", ...
constexpr bool is_gpu_op(EventKind k) noexcept {
  return k == EventKind::kernel || k == EventKind::memcpy || k == EventKind::memset;
}

inline constexpr int64_t kNoCorrelation = -1;
inline constexpr uint32_t kNoSpan = UINT32_MAX;

// One thread or GPU stream of the trace.
struct ProfileLane {
  std::string name;     // the profiler's thread name, or one made from pid and tid
  std::string process;  // the process's name, if the trace named it
  bool gpu = false;     // a GPU stream (its ops run on a device)
  uint32_t device = 0;  // GPU lanes: the device index
  int64_t stream = -1;  // GPU lanes: the profiler's stream id
  uint32_t rows = 1;    // sub-rows its overlapping spans need (1: none overlap)
  uint64_t spans = 0;   // how many spans it has
};

struct ProfileSpan {
  int64_t start = 0;  // ns since ProfileTrace::origin_ns
  int64_t dur = 0;    // ns, >= 0
  uint32_t name = 0;  // index into ProfileTrace::names
  uint32_t lane = 0;  // index into ProfileTrace::lanes
  EventKind kind = EventKind::other;
  uint16_t row = 0;       // sub-row on its lane: the first one free at its start
  bool top = true;        // not inside another span of its lane (a thread's own top-level work)
  int64_t correlation = kNoCorrelation;  // args.correlation (launches and GPU ops)
  int64_t external_id = -1;              // args["External id"]
  // A launch: the GPU op it queued. A GPU op: the launch that queued it.
  // Linked by correlation, or by an ac2g flow where the correlation is missing.
  uint32_t link = kNoSpan;

  int64_t end() const noexcept { return start + dur; }
};

// A `[memory]` instant (PyTorch's profile_memory=True): one allocation
// (bytes > 0) or free (bytes < 0) on a device, on the thread that made it.
struct ProfileMemoryEvent {
  int64_t t = 0;
  uint32_t lane = 0;        // the allocating thread
  int8_t device_type = 0;   // 0 CPU, 1 CUDA (as the profiler writes it)
  int16_t device_id = -1;
  uint64_t addr = 0;
  int64_t bytes = 0;
  int64_t total_allocated = -1;  // after this event; -1 where the profiler did not write it
  int64_t total_reserved = -1;
};

// A counter track (`C` events): MXNet's memory per device, a generic trace's counters.
struct ProfileCounter {
  std::string name;
  std::vector<std::pair<int64_t, double>> samples;  // (ns since origin, value), time-sorted
};

// What an importer left out, by reason.
struct SkippedEvents {
  std::string reason;   // "negative dur", "an E without its B", ...
  uint64_t count = 0;
  uint64_t first_event = 0;  // index of the first such event in the file's event list
  std::string first_name;    // its name, if it had one
};

struct ProfileTrace {
  ProfileFormat format = ProfileFormat::chrome;
  std::string source;      // the path, for messages
  int64_t origin_ns = 0;   // the profiler's time of the earliest event (ns)
  int64_t end_ns = 0;      // latest span end or instant, ns since origin
  std::vector<std::string> names;
  std::vector<ProfileLane> lanes;  // CPU threads first (by pid, tid), then GPU streams (by device, stream)
  std::vector<ProfileSpan> spans;  // sorted by (lane, start, longest first)
  std::vector<ProfileMemoryEvent> memory;  // time-sorted
  std::vector<ProfileCounter> counters;
  std::vector<SkippedEvents> skipped;
  std::vector<std::string> notes;  // what this format cannot show ("no GPU ops: ...")
  uint64_t events = 0;             // events in the file
  uint64_t flows_used = 0;         // launches linked by flow events, lacking a correlation

  std::string_view name(const ProfileSpan& s) const noexcept { return names[s.name]; }
  // Spans of lane `l`: [first, last) indices into spans.
  std::pair<size_t, size_t> lane_spans(uint32_t l) const noexcept;
  uint64_t skipped_count() const noexcept;

  std::vector<size_t> lane_begin;  // spans of lane l: [lane_begin[l], lane_begin[l + 1])
};

// Reads a profiler's trace. `head`: the text's first bytes (what TraceFile::head
// gives), to tell the format. Throws std::runtime_error "SOURCE: <reason>" on
// text that is not a trace; an asyncscope export is refused with
// AsyncscopeExport (open_trace.h reads those with chrome_trace.h's import).
ProfileTrace parse_profile(std::istream& in, std::string_view source);
ProfileTrace parse_profile(std::string_view text, std::string_view source);
ProfileTrace read_profile(const std::string& path);

// Sets each span's sub-row (the first free at its start) and `top`, and
// each lane's rows and span count, from spans sorted as ProfileTrace keeps them.
void assign_rows(ProfileTrace& trace);

// The part of a trace within [from, to) ns since its origin, as a trace of
// its own, so that what analyze_profile answers is that window's: spans
// that overlap it, clipped to it (a launch whose GPU op lies outside loses
// its link); memory events up to `to`, those before `from` moved to `from`
// (the window starts with the bytes live then, held by whoever made them);
// each counter's samples within it, after the last one before it. The
// origin, lanes and names stay, so times mean the same in both.
ProfileTrace window_of(const ProfileTrace& trace, int64_t from, int64_t to);

// Thrown by parse_profile when the text is one of our own exports.
struct AsyncscopeExport : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace asyncscope::trace
