// A real profiler's trace (profile.h) as the TraceModel the widgets, the
// CLI and the compare view draw, and the one entry point that opens any
// trace file, ours or a profiler's, telling them apart by content.
//
// The mapping:
//   - each CPU thread that launched GPU work or waited on it is a frontend
//     lane: each launch (cudaLaunchKernel, cuLaunchKernel, cudaMemcpyAsync,
//     the hip* calls, ...) linked to a GPU op is that op's enqueue, lasting
//     as long as the call (up to 16.7 ms, kMaxPushNs, as the recorder
//     saturates a push); the synchronising calls are its waits
//     (cudaDeviceSynchronize and hipDeviceSynchronize: wait_all;
//     cudaStreamSynchronize, cudaEventSynchronize and the hip ones:
//     wait_to_read; a synchronous cudaMemcpy or hipMemcpy: to_host; MXNet's
//     MXNDArrayWaitAll, MXNDArrayWaitToRead, MXNDArraySyncCopyToCPU the same);
//   - each thread's spans (its operators, annotations, runtime calls) are
//     CPU ops on lanes named after it, and each GPU stream's spans (kernels,
//     copies, fills, annotations) are GPU ops on lanes under its device;
//     where a lane's spans overlap (nested operators, or overlapping spans on
//     one stream, which real traces contain) each sub-row is a lane of its
//     own ("  row 2 of thread 7"), so nothing is dropped and no lane overlaps;
//   - counters: queue_depth (the streams' queue lengths summed; MXNet's
//     estimate), live_bytes (host memory) and device_live_bytes (GPU memory)
//     from the memory events or MXNet's memory counters.
// A GPU op that starts before its launch began (the host's and the GPU's
// clocks disagree) keeps no enqueue; ProfileModel::notes counts them.
//
// Threading: pure functions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/trace/model.h"
#include "engine/trace/profile.h"
#include "engine/trace/profile_analysis.h"

namespace asyncscope::trace {

// Which synchronising call a name is, or false. `kind` is set when true.
bool sync_call_kind(std::string_view name, SyncKind& kind) noexcept;

// The model of a profile, and what the mapping could not show.
struct ProfileModel {
  TraceModel model;
  std::vector<std::string> notes;
};
ProfileModel model_of(const ProfileTrace& profile, const ProfileFigures& figures);

// Any trace file, opened: our own export (profile is null), or a profiler's
// with its figures.
struct OpenedTrace {
  TraceModel model;
  std::shared_ptr<const ProfileTrace> profile;
  std::shared_ptr<const ProfileFigures> figures;
  std::vector<std::string> notes;  // the importer's and the mapping's

  bool foreign() const noexcept { return profile != nullptr; }
  // "asyncscope" or the profile's format key (key_of).
  std::string format_key() const;
  // "asyncscope export" or the profile's format, for people.
  std::string format_text() const;
};

// Opens `path` by content: our own export (chrome_trace.h's import, with its
// checks), else a profiler's trace (profile.h). Throws std::runtime_error
// with one line naming the file on anything it cannot read.
OpenedTrace open_trace(const std::string& path, const AnalysisOptions& options = {});

// The window [from, to) ns of an opened trace, as a trace of its own: its
// model (model_slice.h) and, for a profiler's trace, its figures computed
// over the window alone (profile.h's window_of), so that the verdict,
// streams, ops and holders are the window's.
OpenedTrace window_of(const OpenedTrace& trace, int64_t from, int64_t to, const AnalysisOptions& options = {});

}  // namespace asyncscope::trace
