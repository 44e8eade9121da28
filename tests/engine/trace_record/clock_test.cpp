// The trace clock: the TSC trust criterion, the fixed TSC -> steady_clock map,
// the steady_clock fallback, agreement with steady_clock, and monotonicity
// within and across threads (through calibration, too). Nothing here asserts
// how long anything takes: a preempted reader only widens the brackets.
#include "engine/trace_record/clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "support/timeout.h"

namespace asyncscope::trace {
namespace {

using testing::eventually;
using testing::run_with_timeout;

TscEvidence good_evidence() {
  TscEvidence e;
  e.x86_64 = true;
  e.invariant_tsc = true;
  e.clocksource = "tsc";
  return e;
}

bool machine_trusts_tsc() { return tsc_trusted(tsc_evidence_of_this_machine()); }

TraceClock::Options steady_options(TscEvidence evidence) {
  TraceClock::Options o;
  o.use_machine_evidence = false;
  o.evidence = evidence;
  return o;
}

// Reads `clock` until it has fixed its map (or given up on the TSC).
void wait_calibrated(TraceClock& clock) {
  ASSERT_TRUE(eventually([&] {
    clock.now_ns();
    return clock.source() == ClockSource::tsc || clock.source() == ClockSource::steady;
  }));
}

// Bound on |clock - steady_clock| for a read `elapsed_ns` after the map was
// fixed: the map's own error, plus 500 ppm (the most the kernel slews
// steady_clock's rate) for rate changes since, plus 1 µs for rounding.
int64_t agreement_bound(const ClockInfo& info, int64_t elapsed_ns) {
  if (info.source != ClockSource::tsc) return 0;
  const double ppm = info.rate_error_ppm + 500;
  return info.offset_at_base_ns + static_cast<int64_t>(ppm * 1e-6 * static_cast<double>(elapsed_ns)) + 1000;
}

// Every read lies within [steady before - bound, steady after + bound].
void expect_agrees_with_steady(TraceClock& clock, int reads) {
  for (int i = 0; i < reads; ++i) {
    const int64_t before = steady_now_ns();
    const int64_t t = clock.now_ns();
    const int64_t after = steady_now_ns();
    const ClockInfo info = clock.info();  // after the read: the map it used, if any
    const int64_t bound = agreement_bound(info, after - info.fixed_at_ns);
    EXPECT_GE(t, before - bound) << "read " << i;
    EXPECT_LE(t, after + bound) << "read " << i;
  }
}

// Threads take turns: each loads the latest published time, reads now_ns()
// (ordered after that load, so it must not be earlier, nor earlier than the
// thread's own previous read), then takes an unordered read, as a writer does
// before publishing, and publishes it.
void expect_monotone_across_threads(TraceClock& clock, int threads, int reads_per_thread) {
  std::atomic<int64_t> latest{0};
  std::atomic<int> backwards{0};
  run_with_timeout([&] {
    std::vector<std::thread> pool;
    for (int k = 0; k < threads; ++k) {
      pool.emplace_back([&] {
        int64_t mine = 0;
        for (int i = 0; i < reads_per_thread; ++i) {
          int64_t seen = latest.load(std::memory_order_acquire);
          const int64_t t = clock.now_ns();
          if (t < seen || t < mine) backwards.fetch_add(1, std::memory_order_relaxed);
          const int64_t u = clock.now_ns_unordered();
          if (u < t) backwards.fetch_add(1, std::memory_order_relaxed);
          mine = u;
          while (seen < u && !latest.compare_exchange_weak(seen, u, std::memory_order_acq_rel)) {
          }
        }
      });
    }
    for (auto& t : pool) t.join();
  });
  EXPECT_EQ(backwards.load(), 0);
}

TEST(TscTrust, NeedsInvariantTscAndTheKernelsTscClocksource) {
  EXPECT_TRUE(tsc_trusted(good_evidence()));

  TscEvidence e = good_evidence();
  e.x86_64 = false;
  EXPECT_FALSE(tsc_trusted(e));

  e = good_evidence();
  e.invariant_tsc = false;
  EXPECT_NE(tsc_distrust_reason(e).find("invariant"), std::string_view::npos);

  e = good_evidence();
  e.clocksource = "kvm-clock";
  EXPECT_NE(tsc_distrust_reason(e).find("clocksource"), std::string_view::npos);
  e.clocksource = "";  // sysfs unreadable
  EXPECT_FALSE(tsc_trusted(e));

  e = good_evidence();
  e.env_override = "steady";
  EXPECT_NE(tsc_distrust_reason(e).find("ASYNCSCOPE_TRACE_CLOCK"), std::string_view::npos);
  e.env_override = "anything else";
  EXPECT_TRUE(tsc_trusted(e));
}

TEST(TscMap, IsLinearAroundItsBase) {
  TscMap m;
  m.base_tsc = 1'000'000;
  m.base_ns = 5'000;
  m.mult = uint64_t{1} << TscMap::kShift;  // 1 ns per tick
  EXPECT_EQ(m.to_ns(1'000'000), 5'000);
  EXPECT_EQ(m.to_ns(1'000'250), 5'250);
  EXPECT_EQ(m.to_ns(999'990), 4'990);  // a read just before the base maps just before it

  m.mult = (uint64_t{1} << TscMap::kShift) * 10 / 23;  // 2.3 ticks per ns
  const uint64_t week = uint64_t{7} * 86400 * 2'300'000'000;
  EXPECT_NEAR(static_cast<double>(m.to_ns(m.base_tsc + week) - m.base_ns), 7.0 * 86400e9, 7.0 * 86400e9 * 1e-9);
  EXPECT_LT(m.to_ns(m.base_tsc + week), m.to_ns(m.base_tsc + week + 3));
}

TEST(TraceClock, FallsBackToSteadyClockWhenTheTscIsNotTrusted) {
  TscEvidence e = good_evidence();
  e.clocksource = "hpet";
  TraceClock clock(steady_options(e));
  EXPECT_EQ(clock.source(), ClockSource::uninit);
  for (int i = 0; i < 1000; ++i) {
    const int64_t before = steady_now_ns();
    const int64_t t = clock.now_ns();
    ASSERT_GE(t, before);
    ASSERT_LE(t, steady_now_ns());
  }
  const ClockInfo info = clock.info();
  EXPECT_EQ(info.source, ClockSource::steady);
  EXPECT_NE(std::string(info.reason).find("hpet"), std::string::npos) << info.reason;
  EXPECT_EQ(info.ticks_per_ns, 0.0);
}

TEST(TraceClock, EnvironmentCanSelectSteadyClock) {
  TscEvidence e = good_evidence();
  e.env_override = "steady";
  TraceClock clock(steady_options(e));
  clock.now_ns();
  EXPECT_EQ(clock.source(), ClockSource::steady);
  EXPECT_STREQ(clock.info().reason, "ASYNCSCOPE_TRACE_CLOCK=steady");
}

TEST(TraceClock, ReadsSteadyClockWhileCalibrating) {
  TraceClock::Options o;
  o.calibration_ns = int64_t{1} << 62;  // never
  TraceClock clock(o);
  const int64_t before = steady_now_ns();
  const int64_t t = clock.now_ns();
  EXPECT_GE(t, before);
  EXPECT_LE(t, steady_now_ns());
  EXPECT_NE(clock.source(), ClockSource::tsc);
}

TEST(TraceClock, CalibratesOnThisMachineAndAgreesWithSteadyClock) {
  if (!machine_trusts_tsc()) GTEST_SKIP() << tsc_distrust_reason(tsc_evidence_of_this_machine());
  TraceClock::Options o;
  o.calibration_ns = 5'000'000;
  TraceClock clock(o);
  wait_calibrated(clock);
  const ClockInfo info = clock.info();
  ASSERT_EQ(info.source, ClockSource::tsc);
  EXPECT_GT(info.ticks_per_ns, 0);
  EXPECT_GE(info.calibration_ns, o.calibration_ns);
  EXPECT_LE(info.rate_error_ppm, 2.0);  // calibration waits for anchors this good
  EXPECT_GT(info.offset_at_base_ns, 0);
  expect_agrees_with_steady(clock, 10'000);
}

TEST(TraceClock, ProcessClockAgreesWithSteadyClock) {
  // Whatever state the process clock is in, its reads are steady_clock's, or
  // the map's within the map's bound.
  expect_agrees_with_steady(detail::process_clock, 10'000);
}

TEST(TraceClock, MonotoneAcrossThreadsThroughCalibration) {
  // Short calibration, so the threads cross the switch from steady_clock to
  // the map while they run.
  TraceClock::Options o;
  o.calibration_ns = 1'000'000;
  TraceClock clock(o);
  expect_monotone_across_threads(clock, 4, 200'000);
  if (machine_trusts_tsc()) {
    wait_calibrated(clock);
    EXPECT_EQ(clock.source(), ClockSource::tsc);
  }
}

TEST(TraceClock, MonotoneAcrossThreadsOnceCalibrated) {
  if (!machine_trusts_tsc()) GTEST_SKIP() << tsc_distrust_reason(tsc_evidence_of_this_machine());
  TraceClock::Options o;
  o.calibration_ns = 1'000'000;
  TraceClock clock(o);
  wait_calibrated(clock);
  ASSERT_EQ(clock.source(), ClockSource::tsc);
  expect_monotone_across_threads(clock, 4, 500'000);
}

TEST(TraceClock, ProcessClockMonotoneAcrossThreads) {
  expect_monotone_across_threads(detail::process_clock, 4, 200'000);
}

}  // namespace
}  // namespace asyncscope::trace
