// The insight for a real profiler's trace (profile.h): per GPU stream its
// queue length, busy time and idle time split by cause, the kernel launch
// delays, the temporal breakdown, a per-op-name table, live memory with its
// holders at the peak, and the verdict. Where Holistic Trace Analysis (HTA)
// defines a figure, it is computed by HTA's definition, so the numbers can
// be checked against HTA's own:
//   - launches: the runtime and driver calls that queue GPU work
//     (cudaLaunchKernel[ExC], cuLaunchKernel[Ex], cudaMemcpyAsync,
//     cudaMemsetAsync and the hip* equivalents), linked to the GPU op they
//     queued (ProfileSpan::link);
//   - queue length of a stream: +1 at the start of each linked launch, -1 at
//     the start of the GPU op it launched, in time order (a launch first at
//     equal times); its maximum, and its mean over those steps (as HTA's,
//     not weighted by time);
//   - idle time of a stream: the gaps between its GPU ops (kernels, copies,
//     fills) taken in start order, each from the previous op's end (never
//     negative); host wait where the op's launch began after the previous op
//     ended, else kernel wait under 30 us, else other;
//   - launch delay: GPU op start - (launch start + launch duration), at
//     least 0, over the cudaLaunchKernel[ExC], cudaMemcpyAsync and
//     cudaMemsetAsync launches HTA counts (HTA itself computes
//     start - launch start + launch duration, a sign slip; see the tests);
//   - temporal breakdown over all GPU spans on streams: kernel time from the
//     first start to the last end, idle the time no span covers, compute the
//     union of computation kernels (not NCCL, copies, fills or syncs),
//     non-compute the rest.
// The verdict: launch-bound (Bound::frontend) when the streams are idle
// more than a quarter of the GPU's traced span and host wait is most of
// that idle time; device-bound (Bound::backend) otherwise; unknown without
// GPU or worker ops. MXNet traces have operator lanes instead of streams and
// no launch links: their queue depth is estimated (see ProfileFigures).
//
// Threading: analyze_profile() is reentrant; the result is plain data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/trace/lane_classifier.h"
#include "engine/trace/memory_attribution.h"
#include "engine/trace/profile.h"

namespace asyncscope::trace {

// HTA's consecutive_kernel_delay: a gap shorter than this, not waiting on
// the host, is the GPU waiting between back-to-back kernels.
inline constexpr int64_t kKernelWaitNs = 30'000;

struct IdleSplit {
  int64_t host_wait = 0, kernel_wait = 0, other = 0;  // ns
  int64_t total() const noexcept { return host_wait + kernel_wait + other; }
};

// One execution lane: a GPU stream, or an MXNet operator thread.
struct StreamFigures {
  uint32_t lane = 0;     // index into ProfileTrace::lanes
  uint32_t device = 0;
  int64_t stream = -1;   // the profiler's stream id (-1 for an operator thread)
  uint64_t ops = 0;      // GPU ops (operators) on it
  int64_t busy_ns = 0;   // the union of their spans
  IdleSplit idle;
  int64_t queue_length_max = 0;
  double queue_length_mean = 0;
  uint64_t launches = 0;  // linked launches of its GPU ops
  double launch_delay_median_ns = 0;  // over its ops' launches; 0 without any
};

struct TemporalBreakdown {
  int64_t kernel = 0, idle = 0, compute = 0, non_compute = 0;  // ns
};

struct LaunchStats {
  uint64_t launches = 0;  // the launches HTA counts, linked to a GPU op
  double delay_median_ns = 0, delay_p90_ns = 0;
  uint64_t delay_outliers = 0;   // delay over 100 us
  uint64_t long_launches = 0;    // launch calls over 50 us
  uint64_t short_kernels = 0;    // a launch of at most 50 us for a GPU op shorter than it
};

// Count and time of one op name, on the CPU (spans on threads) or the GPU.
struct OpFigures {
  std::string name;
  bool gpu = false;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double mean_ns() const noexcept { return count == 0 ? 0 : static_cast<double>(total_ns) / static_cast<double>(count); }
};

// Live bytes of one device over time, and the holders at its peak.
struct DeviceMemorySeries {
  int8_t device_type = 0;   // 0 CPU, 1 CUDA, as the profiler writes it
  int16_t device_id = -1;
  std::string label;        // "cpu", "cuda:0"
  std::vector<std::pair<int64_t, int64_t>> live;  // (ns, bytes) after each event
  bool from_totals = false;  // live bytes are the profiler's Total Allocated (else the running sum of Bytes)
  int64_t peak_bytes = 0;
  int64_t peak_t = 0;
  HolderTable peak;         // allocations live at the peak, by the CPU op that made them
                            // (empty rows where the trace has counters, not allocations)
};

struct ProfileVerdict {
  Bound bound = Bound::unknown;
  int64_t span_ns = 0;       // the GPU's traced span (first GPU op start to last end)
  int64_t idle_ns = 0;       // no GPU op running within it
  double idle_frac = 0;      // idle / span
  double host_wait_frac = 0; // host wait / all idle time of the streams
  std::string text;          // one line: "launch-bound: the GPU is idle 62% of ..."
};

struct ProfileFigures {
  std::vector<StreamFigures> streams;
  TemporalBreakdown temporal;
  LaunchStats launches;
  std::vector<OpFigures> ops;  // by total time, largest first
  std::vector<DeviceMemorySeries> memory;
  ProfileVerdict verdict;
  // Queue length steps per stream (index into streams): (ns, length), for the queue lane.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> queue;
  // MXNet: the frontend's operator calls not yet matched by an operator
  // start, over time; an estimate (MXNet links no call to its operator).
  std::vector<std::pair<int64_t, int64_t>> estimated_queue;
  bool queue_estimated = false;
  // What AnalysisOptions left out, or "".
  std::string steps_note;
};

struct AnalysisOptions {
  // As HTA does by default: where the trace has two or more ProfilerStep#N
  // ranges, count only the steps before the last one (CPU spans starting
  // before it, the GPU ops their launches queued, memory events before it).
  // Off: the whole trace, as drawn.
  bool complete_steps_only = false;
};

// True for the calls HTA counts as queueing work on a stream (queue length).
bool is_launch_call(std::string_view name) noexcept;
// True for the ones its launch statistics count.
bool is_counted_launch(std::string_view name) noexcept;
// HTA's kernel types, by name: NCCL communication, memory (copies, fills),
// computation (the rest, except syncs).
bool is_compute_kernel(std::string_view name) noexcept;

ProfileFigures analyze_profile(const ProfileTrace& trace, const AnalysisOptions& options = {});

}  // namespace asyncscope::trace
