#include "engine/trace_record/clock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#if ASYNCSCOPE_HAS_TSC
#include <cpuid.h>
#endif

namespace asyncscope::trace {

namespace detail {
constinit TraceClock process_clock;
}

namespace {

// Anchors so wide (interrupted) that the map's rate error could exceed this
// bound are not used; calibration waits and tries again.
constexpr double kMaxRateErrorPpm = 2.0;
// Anchors: best (narrowest) of this many tries, so one interrupt does not spoil one.
constexpr int kAnchorTries = 5;

// Plain open/read: no stdio buffer, this runs in every process.
std::string read_clocksource() {
  char buf[64];
  ssize_t n = -1;
  const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = ::read(fd, buf, sizeof buf);
    ::close(fd);
  }
  std::string name(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

// The first read (the machine's evidence, the first anchor) is done while the
// process starts, so that its cost (tens of µs where CPUID traps to a
// hypervisor) never lands inside something being timed. A read by another
// static initialiser before this one is fine: whichever comes first sets up.
[[maybe_unused]] const int64_t g_first_read = detail::process_clock.now_ns();

}  // namespace

const char* to_string(ClockSource source) noexcept {
  switch (source) {
    case ClockSource::uninit: return "uninit";
    case ClockSource::calibrating: return "calibrating";
    case ClockSource::tsc: return "tsc";
    case ClockSource::steady: return "steady";
  }
  return "?";
}

std::string_view tsc_distrust_reason(const TscEvidence& e) noexcept {
  if (e.env_override == "steady") return "ASYNCSCOPE_TRACE_CLOCK=steady";
  if (!e.x86_64) return "no TSC: not x86-64";
  if (!e.invariant_tsc) return "no invariant TSC (CPUID 0x80000007 EDX bit 8)";
  if (e.clocksource != "tsc") return "kernel clocksource is not tsc";
  return {};
}

TscEvidence tsc_evidence_of_this_machine() {
  // Read once per process: the facts do not change while it runs.
  static const std::string clocksource = read_clocksource();
  static const std::string env = [] {
    const char* v = std::getenv("ASYNCSCOPE_TRACE_CLOCK");
    return std::string(v != nullptr ? v : "");
  }();
  TscEvidence e;
#if ASYNCSCOPE_HAS_TSC
  e.x86_64 = true;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) != 0) e.invariant_tsc = (edx >> 8) & 1u;
#endif
  e.clocksource = clocksource;
  e.env_override = env;
  return e;
}

TraceClock::Anchor TraceClock::take_anchor() noexcept {
  Anchor best;
  best.width = ~uint64_t{0};
  for (int i = 0; i < kAnchorTries; ++i) {
    const uint64_t before = read_tsc();
    const int64_t ns = steady_now_ns();
    const uint64_t after = read_tsc();
    if (after - before < best.width) best = Anchor{before, ns, after - before};
  }
  return best;
}

int64_t TraceClock::now_ns_slow() noexcept {
  const ClockSource s = state_.load(std::memory_order_acquire);
  if (s == ClockSource::tsc) return map_.to_ns(read_tsc());
  const int64_t now = steady_now_ns();
  if (s == ClockSource::steady) return now;
  if (s == ClockSource::calibrating && now < calibrate_after_.load(std::memory_order_relaxed)) return now;
  // Set up, or calibrate: one thread does it; the others go on with steady_clock.
  if (busy_.exchange(true, std::memory_order_acquire)) return now;
  const ClockSource again = state_.load(std::memory_order_relaxed);
  if (again == ClockSource::uninit) setup();
  if (again == ClockSource::calibrating && now >= calibrate_after_.load(std::memory_order_relaxed)) try_calibrate();
  busy_.store(false, std::memory_order_release);
  // steady_clock read before any map was fixed: the map runs ahead of
  // steady_clock (see try_calibrate), so this thread's next read is not earlier.
  return now;
}

void TraceClock::setup() noexcept {
  const int64_t t0 = steady_now_ns();
  const TscEvidence e = options_.use_machine_evidence ? tsc_evidence_of_this_machine() : options_.evidence;
  const std::string_view why = tsc_distrust_reason(e);
  ClockSource next = ClockSource::steady;
  if (!why.empty()) {
    const bool name_it = why.find("clocksource") != std::string_view::npos;
    std::snprintf(setup_.reason, sizeof setup_.reason, "%.*s%s%.*s", static_cast<int>(why.size()), why.data(),
                  name_it ? ": " : "", name_it ? static_cast<int>(e.clocksource.size()) : 0, e.clocksource.data());
  } else {
    first_ = take_anchor();
    calibrate_after_.store(first_.ns + options_.calibration_ns, std::memory_order_relaxed);
    next = ClockSource::calibrating;
  }
  setup_.setup_cost_ns = steady_now_ns() - t0;
  // Release: setup_, first_ and calibrate_after_ are written before the state says so.
  state_.store(next, std::memory_order_release);
}

void TraceClock::try_calibrate() noexcept {
  const int64_t t0 = steady_now_ns();
  const Anchor b = take_anchor();
  // Each anchor's steady_clock read happened within its bracket: take the
  // middle for the rate, so each end is off by at most half its width.
  const uint64_t ticks = (b.tsc + b.width / 2) - (first_.tsc + first_.width / 2);
  const int64_t ns = b.ns - first_.ns;
  const double uncertainty = static_cast<double>(first_.width + b.width) / 2;
  if (ns <= 0 || ticks == 0 || uncertainty > kMaxRateErrorPpm * 1e-6 * static_cast<double>(ticks)) {
    // An anchor was interrupted: keep the better one and wait again, which
    // also lengthens the interval, so this converges.
    if (b.width < first_.width) first_ = b;
    calibrate_after_.store(b.ns + options_.calibration_ns, std::memory_order_relaxed);
    return;
  }
  __extension__ using UWide = unsigned __int128;
  // Based at the start of b's bracket, the map is ahead of steady_clock by
  // 0..b.width there, never behind: no read after this is earlier than a
  // steady_clock read before it, on any thread.
  map_.base_tsc = b.tsc;
  map_.base_ns = b.ns;
  map_.mult = static_cast<uint64_t>((static_cast<UWide>(ns) << TscMap::kShift) / ticks);

  const double ticks_per_ns = static_cast<double>(ticks) / static_cast<double>(ns);
  fixed_ = setup_;  // final since the state left uninit; the map's figures are added
  fixed_.ticks_per_ns = ticks_per_ns;
  fixed_.fixed_at_ns = b.ns;
  fixed_.calibration_ns = ns;
  fixed_.anchor_error_ns = static_cast<int64_t>(static_cast<double>(first_.width + b.width) / ticks_per_ns);
  fixed_.rate_error_ppm = uncertainty / static_cast<double>(ticks) * 1e6;
  fixed_.offset_at_base_ns = static_cast<int64_t>(static_cast<double>(b.width) / ticks_per_ns) + 1;
  fixed_.calibration_cost_ns = steady_now_ns() - t0;
  // Release: the map (and fixed_) are written before the state says tsc.
  state_.store(ClockSource::tsc, std::memory_order_release);
}

ClockInfo TraceClock::info() const noexcept {
  const ClockSource s = state_.load(std::memory_order_acquire);
  ClockInfo out = s == ClockSource::tsc ? fixed_ : s != ClockSource::uninit ? setup_ : ClockInfo{};
  out.source = s;
  return out;
}

}  // namespace asyncscope::trace
