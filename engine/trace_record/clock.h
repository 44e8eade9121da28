// Trace time base: int64 nanoseconds on std::chrono::steady_clock, read
// through the CPU's time-stamp counter where that is trustworthy.
// Threading: any thread.
//
// Why not steady_clock::now() alone: the engine reads the clock on every
// traced push and at the end of every op (and at an op's start when its worker
// did not make it ready itself). A vDSO clock_gettime is itself a fenced TSC
// read plus the kernel's scaling, a few tens of nanoseconds; a fenced TSC read
// through the map below costs about as much, an unfenced one about half, since
// it need not wait for the instructions before it. The unfenced read is only
// correct where a time is taken before this thread publishes what it timed:
// see now_ns_unordered().
//
// How the TSC stays on the steady_clock time base: the first read takes an
// anchor (TSC, steady_clock) and keeps answering with steady_clock; the first
// read at least Options::calibration_ns later takes a second anchor, fixes a
// linear map TSC -> steady_clock ns through the two, and from then on every
// read is a TSC read through that map. The map never changes again, so times
// are monotone and each recorded value is final. Its error against
// steady_clock is the anchors' uncertainty (a few tens of ns) plus a rate
// error of (that uncertainty) / (calibration interval), plus whatever rate
// change the kernel (NTP) applies to steady_clock after calibration: see
// ClockInfo. The process clock takes its first read while the process
// starts (static initialisation) and fixes its map on the first read 50 ms
// later; a process that ends sooner only ever reads steady_clock.
//
// When the TSC is used at all (see tsc_trusted()): x86-64, the CPU reports
// an invariant TSC (CPUID 0x80000007 EDX bit 8: constant rate, runs in deep
// C-states), and the kernel's clocksource is "tsc" (the kernel checked that
// the TSCs of all CPUs agree, and steady_clock itself is then the TSC scaled
// by the kernel). Otherwise, or with ASYNCSCOPE_TRACE_CLOCK=steady in the
// environment, every read is a plain steady_clock read.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#if defined(__x86_64__)
#define ASYNCSCOPE_HAS_TSC 1
#else
#define ASYNCSCOPE_HAS_TSC 0
#endif

namespace asyncscope::trace {

// The reference: absolute steady_clock time in ns.
inline int64_t steady_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The TSC, read after every earlier instruction has completed (lfence), as
// the kernel reads it for clock_gettime. Without the fence the read may run
// ahead of earlier loads: a worker could time an op's start before the load
// that showed it the op was ready, and so before the enqueue it observed.
inline uint64_t read_tsc() noexcept {
#if ASYNCSCOPE_HAS_TSC
  __builtin_ia32_lfence();
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

// The TSC without the fence: the read may happen while earlier instructions
// of this thread are still in flight (at most the CPU's out-of-order window,
// ~100 ns), but never after later stores become visible to other threads
// (stores leave the core only once everything before them has retired).
inline uint64_t read_tsc_unordered() noexcept {
#if ASYNCSCOPE_HAS_TSC
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

// Fixed linear map from TSC ticks to steady_clock ns.
struct TscMap {
  static constexpr int kShift = 32;
  uint64_t base_tsc = 0;
  int64_t base_ns = 0;
  uint64_t mult = 0;  // ns per tick, << kShift

  int64_t to_ns(uint64_t tsc) const noexcept {
    // Signed: a read a few ticks before base_tsc maps just before base_ns.
    __extension__ using Wide = __int128;
    const auto ticks = static_cast<int64_t>(tsc - base_tsc);
    return base_ns + static_cast<int64_t>((static_cast<Wide>(ticks) * static_cast<Wide>(mult)) >> kShift);
  }
};

enum class ClockSource : uint8_t {
  uninit,       // never read yet
  calibrating,  // steady_clock until the second anchor is taken
  tsc,          // TSC through the fixed map
  steady        // steady_clock for good (TSC not trusted, or disabled)
};
const char* to_string(ClockSource source) noexcept;

// What the TSC decision is based on; tsc_trusted() is the criterion itself.
struct TscEvidence {
  bool x86_64 = false;
  bool invariant_tsc = false;     // CPUID 0x80000007 EDX bit 8
  std::string_view clocksource;   // /sys/devices/system/clocksource/clocksource0/current_clocksource
  std::string_view env_override;  // ASYNCSCOPE_TRACE_CLOCK ("steady" disables the TSC)
};
// Empty when the TSC may be used, else why not.
std::string_view tsc_distrust_reason(const TscEvidence& e) noexcept;
inline bool tsc_trusted(const TscEvidence& e) noexcept { return tsc_distrust_reason(e).empty(); }
// This machine and process. The returned views point into static storage.
TscEvidence tsc_evidence_of_this_machine();

// A clock's state, for tests, docs and diagnostics.
struct ClockInfo {
  ClockSource source = ClockSource::uninit;
  // Known once the first read is done.
  char reason[64] = {};       // why steady for good, when it is
  int64_t setup_cost_ns = 0;  // the first read: evidence and first anchor
  // Known once the map is fixed (source == tsc).
  double ticks_per_ns = 0;          // the map's rate
  int64_t fixed_at_ns = 0;          // steady_clock ns when the map was fixed (its base)
  int64_t calibration_ns = 0;       // steady_clock time between the two anchors
  int64_t anchor_error_ns = 0;      // both anchors' bracket widths, summed
  double rate_error_ppm = 0;        // bound on the map's rate error against steady_clock
  int64_t offset_at_base_ns = 0;    // the map is ahead of steady_clock by 0..this when fixed
  int64_t calibration_cost_ns = 0;  // the read that fixed the map
};

// The clock itself. The process-wide instance is behind now_ns(); tests make
// their own. Holds no resources; constant-initialised, so it works before main.
class TraceClock {
 public:
  struct Options {
    // Consulted on the first read; tests pass fixed evidence to take a path.
    bool use_machine_evidence = true;
    TscEvidence evidence{};
    int64_t calibration_ns = 50'000'000;  // 50 ms: rate error ~1 ppm with ~25 ns anchors
  };

  constexpr TraceClock() noexcept = default;
  constexpr explicit TraceClock(const Options& options) noexcept : options_(options) {}
  TraceClock(const TraceClock&) = delete;
  TraceClock& operator=(const TraceClock&) = delete;

  int64_t now_ns() noexcept {
    // Acquire: the map is written before the state says tsc.
    if (state_.load(std::memory_order_acquire) == ClockSource::tsc) return map_.to_ns(read_tsc());
    return now_ns_slow();
  }

  // See trace::now_ns_unordered().
  int64_t now_ns_unordered() noexcept {
    if (state_.load(std::memory_order_acquire) == ClockSource::tsc) return map_.to_ns(read_tsc_unordered());
    return now_ns_slow();
  }

  ClockSource source() const noexcept { return state_.load(std::memory_order_acquire); }
  ClockInfo info() const noexcept;

 private:
  struct Anchor {
    uint64_t tsc = 0;    // TSC just before the steady_clock read
    int64_t ns = 0;      // the steady_clock read
    uint64_t width = 0;  // TSC just after minus tsc: the anchor's uncertainty, in ticks
  };
  static Anchor take_anchor() noexcept;
  int64_t now_ns_slow() noexcept;
  void setup() noexcept;
  void try_calibrate() noexcept;

  // Read on every call. Nothing in this cache line is written once the map
  // is fixed, so the line stays shared in every core's cache.
  alignas(64) std::atomic<ClockSource> state_{ClockSource::uninit};
  TscMap map_{};
  std::atomic<bool> busy_{false};  // one thread at a time sets up or calibrates
  std::atomic<int64_t> calibrate_after_{0};  // steady_clock ns; relaxed: re-checked under busy_
  // Written before state_ leaves uninit (first_, setup_) or becomes tsc
  // (fixed_: setup_ plus the map's figures).
  Anchor first_{};
  Options options_{};
  ClockInfo setup_{};
  ClockInfo fixed_{};
};

namespace detail {
extern TraceClock process_clock;
}

// Absolute steady_clock time in ns. Events store absolute times (cheapest for
// writers); readers subtract the recorder's origin to get "ns since run start".
inline int64_t now_ns() noexcept { return detail::process_clock.now_ns(); }

// now_ns() without waiting for this thread's earlier instructions to finish
// (about half the cost of a fenced read). Only for a time that this thread
// takes *before it publishes* what it timed, e.g. an op's end, taken before
// the op releases its outputs: whoever sees the publication and then reads
// now_ns() gets a later time, and this thread's own later reads are not
// earlier (TSC reads on one core do not go backwards; Linux's sched_clock
// relies on the same). Never alone for a time taken *after observing*
// another thread (the end of a wait): that needs now_ns(), or a clamp to the
// times observed, as the engine does for an op's start (OpRecord::ready_ns).
inline int64_t now_ns_unordered() noexcept { return detail::process_clock.now_ns_unordered(); }

// The process clock's state.
inline ClockInfo clock_info() noexcept { return detail::process_clock.info(); }

}  // namespace asyncscope::trace
