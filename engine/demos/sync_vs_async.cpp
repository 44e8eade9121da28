// sync-vs-async: `iterations` x (y = x + 1), once waiting for y in every
// iteration and once with a single wait_all at the end, with the textbook
// t1/t2/t3 model measured from the trace.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <sstream>
#include <string>

#include "engine/base/format.h"
#include "engine/core/wait_slot.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/ops.h"
#include "engine/trace_record/clock.h"

namespace asyncscope::demos {
namespace {

// Means, not medians: the model predicts totals, and totals include the slow
// iterations (a late wake-up, a preempted frontend).
double mean_of(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  double total = 0;
  for (int64_t x : v) total += static_cast<double>(x);
  return total / static_cast<double>(v.size());
}

// The add ops of one phase (by iteration tag), in push order.
std::vector<const trace::OpInfo*> phase_ops(const trace::TraceModel& m, trace::NameId add, int64_t from, int64_t to) {
  std::vector<const trace::OpInfo*> out;
  for (const trace::OpInfo& op : m.ops) {
    if (op.known() && op.name == add && op.enqueue >= from && op.enqueue < to) out.push_back(&op);
  }
  return out;
}

// Sizes the calibration tries, smallest first.
constexpr int64_t kCalibrationSizes[] = {64, 96, 128, 192, 256, 320, 384, 448, 512, 576, 640, 768, 896, 1024};

// What the calibration measured at the size it chose (us): t1 and t2 of a
// short run-ahead burst, an iteration of a short sync burst; and why that size.
struct Calibration {
  int64_t size = 0;
  double t1_us = 0, t2_us = 0, sync_us = 0;
  std::string why;
};

// Short bursts of both loops at growing sizes, measured from the trace, each
// twice (the worse counts): the smallest size at which
//   - the run-ahead loop is backend-bound with a margin: the backend's time
//     per iteration, t2, at least 2.5 times the frontend's, t1 (a run's t1
//     varies by tens of percent);
//   - an add outlasts a waiter's spin (kWaitSlotSpinNs) by half again, so every
//     wait of the sync loop sleeps and is woken: the hand-off and return the
//     chapter calls t3. Shorter adds are caught by the spinning waiter in
//     well under a microsecond, and the sync loop then costs little more
//     than the async one (on a 2-vCPU EPYC, 0.98-1.25x at t2 of 2-16 us,
//     against 1.5x at 37 us);
//   - waiting in every iteration costs at least 1.4 times as much as running
//     ahead (an iteration of the sync burst against one of the async burst).
// Where no size does all three, the backend-bound size with the largest ratio.
Calibration calibrate(RunEnv& env) {
  constexpr int kAsync = 96, kSync = 24, kTries = 2;
  constexpr double kBackendMargin = 2.5, kWantedSpeedup = 1.4;
  constexpr double kMinT2Us = 1.5 * static_cast<double>(kWaitSlotSpinNs) * 1e-3;
  const trace::NameId add = trace::intern("add_scalar");
  const auto trace_now = [&env] { return trace::now_ns() - env.recorder().origin_ns(); };
  Context& ctx = *env.context();
  Calibration best;
  double best_speedup = 0;
  for (const int64_t n : kCalibrationSizes) {
    env.check_stop();
    NDArray x = ones({n, n});
    NDArray y = x + 1.0f;
    y.wait_to_read();
    Calibration c;
    c.size = n;
    double speedup = 1e30;
    for (int attempt = 0; attempt < kTries; ++attempt) {
      const int64_t async_from = trace_now();
      for (int i = 0; i < kAsync; ++i) {  // the run's loop body, so its pace is the run's
        ctx.set_iteration(static_cast<uint32_t>(i));
        y = x + 1.0f;
        if (i % 10 == 0) env.check_stop();
      }
      wait_all();
      const int64_t sync_from = trace_now();
      for (int i = 0; i < kSync; ++i) {
        ctx.set_iteration(static_cast<uint32_t>(i));
        y = x + 1.0f;
        y.wait_to_read();
      }
      const int64_t sync_to = trace_now();
      const trace::TraceModel m = env.model();
      const auto adds = phase_ops(m, add, async_from, sync_from);
      if (adds.size() < 2) continue;
      std::vector<std::pair<int64_t, int64_t>> spans;
      for (const trace::OpInfo& op : m.ops) {
        if (op.executed() && op.start >= async_from && op.end <= sync_from) spans.emplace_back(op.start, op.end);
      }
      std::sort(spans.begin(), spans.end());
      int64_t busy = 0, covered = 0;
      for (const auto& [begin, end] : spans) {
        const int64_t from = std::max(begin, covered);
        if (end > from) {
          busy += end - from;
          covered = end;
        }
      }
      // The worse of the tries: the larger t1, the smaller t2 and speed-up.
      const double t1 = static_cast<double>(adds.back()->enqueue - adds.front()->enqueue) * 1e-3 /
                        static_cast<double>(adds.size() - 1);
      const double t2 = static_cast<double>(busy) * 1e-3 / static_cast<double>(adds.size());
      const double async_us = static_cast<double>(sync_from - async_from) * 1e-3 / kAsync;
      const double sync_us = static_cast<double>(sync_to - sync_from) * 1e-3 / kSync;
      c.t1_us = std::max(c.t1_us, t1);
      c.t2_us = attempt == 0 ? t2 : std::min(c.t2_us, t2);
      c.sync_us = attempt == 0 ? sync_us : std::min(c.sync_us, sync_us);
      speedup = std::min(speedup, async_us > 0 ? sync_us / async_us : 0);
    }
    if (speedup > 1e29) continue;
    const bool backend = c.t2_us >= kBackendMargin * c.t1_us;
    std::ostringstream why;
    why.precision(2);
    why << std::fixed << "t2 = " << c.t2_us / std::max(c.t1_us, 1e-3) << " t1 = " << c.t2_us
        << " us, and a sync iteration " << speedup << "x an async one";
    c.why = why.str();
    if (backend && c.t2_us >= kMinT2Us && speedup >= kWantedSpeedup) {
      c.why = "the smallest size with " + c.why;
      return c;
    }
    if (backend && speedup > best_speedup) {
      best = c;
      best_speedup = speedup;
    }
  }
  if (best.size == 0) {
    best.size = 256;
    best.why = "no size tried was backend-bound: 256 chosen";
  } else {
    best.why = "no size gave t2 > 2.5 t1, an add longer than a waiter's spin and a 1.4x speed-up; the best: " +
               best.why;
  }
  return best;
}

// The textbook model has one backend thread; on a small machine a second
// worker would also compete with the frontend for the cores.
Param one_worker() {
  Param p = workers_param();
  p.default_value = 1;
  return p;
}

class SyncVsAsync final : public Program {
 public:
  std::string name() const override { return "sync-vs-async"; }
  std::string title() const override { return "Sync vs async loop"; }
  std::string summary() const override {
    return "y = x + 1 in a loop: waiting every iteration costs n(t1+t2+t3), one wait at the end t1 + n max(t1,t2) + t3";
  }
  std::vector<Param> params() const override {
    return {Param{"iterations", "loop iterations", Param::Kind::integer, 1000, 1, 1000000, {}, {}},
            Param{"size",
                  "x is size x size: the work per op; 0 (the default) calibrates it on this machine so the backend "
                  "is the bottleneck (1 makes the loop frontend-bound)",
                  Param::Kind::integer, 0, 0, 65536, {}, {}},
            one_worker(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size") == 0 ? kCalibrationSizes[std::size(kCalibrationSizes) - 1] : v.integer("size");
    // Two loops of `y = x + 1` and the free of the y it replaces; the second
    // loop pushes every iteration before its one wait, so all can be pending.
    const int64_t iterations = v.integer("iterations");
    return 4 * n * n * 4 + run_overhead_bytes(4 * iterations + 16, 2 * iterations + 8);
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t iterations = v.integer("iterations");
    Context& ctx = *env.context();
    Calibration cal;
    int64_t n = v.integer("size");
    if (n == 0) {
      env.mark("calibration");
      cal = calibrate(env);
      n = cal.size;
      env.print("calibrated: size " + std::to_string(n) + " (" + cal.why + ")");
    }
    NDArray x = ones({n, n});
    NDArray y = x + 1.0f;
    y.wait_to_read();
    const int64_t progress_step = std::max<int64_t>(1, iterations / 100);

    // How often a worker found the frontend waiting on its own CPU and moved
    // away (cpu_placement.h): two threads sharing one CPU slow each other,
    // and t1 varies with it from run to run.
    const uint64_t moves_before = env.engine().stats().cpu_moves;

    // Phase 1: a sync point in every iteration.
    env.mark("sync loop");
    const int64_t sync_from = trace::now_ns() - env.recorder().origin_ns();
    const int64_t t_sync = trace::now_ns();
    for (int64_t i = 0; i < iterations; ++i) {
      ctx.set_iteration(static_cast<uint32_t>(i));
      y = x + 1.0f;
      y.wait_to_read();
      if (i % progress_step == 0) {
        env.check_stop();
        env.progress(0.5 * static_cast<double>(i) / static_cast<double>(iterations), "sync loop");
      }
    }
    const double sync_s = seconds_since(t_sync);
    env.print("loop with a wait in every iteration: " + format_value(sync_s, "s"));

    // Phase 2: run ahead, one wait at the end.
    env.mark("async loop");
    const int64_t async_from = trace::now_ns() - env.recorder().origin_ns();
    const int64_t t_async = trace::now_ns();
    for (int64_t i = 0; i < iterations; ++i) {
      ctx.set_iteration(static_cast<uint32_t>(i));
      y = x + 1.0f;
      if (i % progress_step == 0) {
        env.check_stop();
        env.progress(0.5 + 0.5 * static_cast<double>(i) / static_cast<double>(iterations), "async loop");
      }
    }
    wait_all();
    const double async_s = seconds_since(t_async);
    env.print("loop with one wait_all at the end: " + format_value(async_s, "s"));
    env.mark("done");
    const uint64_t cpu_moves = env.engine().stats().cpu_moves - moves_before;
    env.finish();

    const trace::TraceModel m = env.model();
    const trace::NameId add = trace::intern("add_scalar");
    const auto sync_ops = phase_ops(m, add, sync_from, async_from);
    const auto async_ops = phase_ops(m, add, async_from, m.end_time() + 1);
    // Sync waits of phase 1, in order (one per iteration).
    std::vector<const trace::SyncSpan*> waits;
    for (const trace::SyncSpan& w : m.syncs) {
      if (w.kind == trace::SyncKind::wait_to_read && w.begin >= sync_from && w.end <= async_from) waits.push_back(&w);
    }

    // The sync loop, from its own trace. Iteration i runs from the end of
    // the wait before (the loop's start for the first) to the end of its
    // own wait, and splits exactly into
    //   the frontend up to the add's push, the hand-off (push to start),
    //   the add running (t2), and the return (end to the wait's end).
    // The textbook's t1 is all the frontend does in an iteration: up to the
    // push, and after it (finishing the push, freeing the y it replaces)
    // until it waits. That part runs while the add is handed off: the
    // overlap, which the textbook's n(t1 + t2 + t3) counts twice.
    std::vector<int64_t> s_t1, s_t2, s_t3, s_overlap, s_iteration;
    for (size_t i = 0; i < sync_ops.size() && i < waits.size(); ++i) {
      const trace::OpInfo& op = *sync_ops[i];
      const int64_t prev_end = i == 0 ? sync_from : waits[i - 1]->end;
      s_t1.push_back(waits[i]->begin - prev_end);
      s_t2.push_back(op.end - op.start);
      s_t3.push_back((op.start - op.enqueue) + (waits[i]->end - op.end));
      s_iteration.push_back(waits[i]->end - prev_end);
      s_overlap.push_back(s_t1.back() + s_t2.back() + s_t3.back() - s_iteration.back());
    }
    const double st1 = mean_of(s_t1), st2 = mean_of(s_t2), st3 = mean_of(s_t3), overlap = mean_of(s_overlap);

    // The async loop, from its own trace. Backend time per op: the time the
    // phase kept some worker busy (the adds, the frees of the ys they
    // replace, the engine's work between them) over its op count; idle time
    // between ops is not counted, so a frontend slower than the backend
    // does not inflate it.
    double t2 = 0;
    if (!async_ops.empty()) {
      std::vector<std::pair<int64_t, int64_t>> spans;
      for (const trace::OpInfo& op : m.ops) {
        if (op.executed() && op.start >= async_from) spans.emplace_back(op.start, op.end);
      }
      std::sort(spans.begin(), spans.end());
      int64_t busy = 0, covered = 0;
      for (const auto& [begin, end] : spans) {
        const int64_t from = std::max(begin, covered);
        if (end > from) {
          busy += end - from;
          covered = end;
        }
      }
      t2 = static_cast<double>(busy) / static_cast<double>(async_ops.size());
    }
    // Frontend time per iteration: the async loop's pace of enqueues (one
    // push of the add, one of the free of the y it replaces, the loop). It
    // never waits there, so nothing but its own work sets that pace.
    double t1_ns = 0;
    if (async_ops.size() >= 2) {
      t1_ns = static_cast<double>(async_ops.back()->enqueue - async_ops.front()->enqueue) /
              static_cast<double>(async_ops.size() - 1);
    }
    // Its t3: the first add's hand-off, and the return from the last op to the end of wait_all.
    double t3_ns = 0;
    if (!async_ops.empty()) {
      int64_t last_end = 0;
      for (const trace::OpInfo& op : m.ops) {
        if (op.executed() && op.start >= async_from) last_end = std::max(last_end, op.end);
      }
      int64_t wait_end = last_end;
      for (const trace::SyncSpan& w : m.syncs) {
        if (w.kind == trace::SyncKind::wait_all && w.begin >= async_from) wait_end = std::max(wait_end, w.end);
      }
      t3_ns = static_cast<double>(async_ops.front()->start - async_ops.front()->enqueue) +
              static_cast<double>(wait_end - last_end);
    }
    const double k = static_cast<double>(iterations);
    const double model_textbook = k * (st1 + st2 + st3) * 1e-9;
    const double model_sync = k * (st1 + st2 + st3 - overlap) * 1e-9;
    // Running ahead, the slower side sets the pace: the backend (t2 > t1) or
    // the frontend (t1 > t2).
    const double model_backend = (t1_ns + k * t2 + t3_ns) * 1e-9;
    const double model_frontend = (k * t1_ns + t2 + t3_ns) * 1e-9;
    const double model_async = (t1_ns + k * std::max(t1_ns, t2) + t3_ns) * 1e-9;
    const auto error_pct = [](double model, double measured) {
      return measured > 0 ? 100.0 * (model - measured) / measured : 0.0;
    };

    env.result("size", cal.size > 0 ? "size (calibrated)" : "size", static_cast<double>(n), "");
    env.result("sync_s", "loop with a wait per iteration", sync_s, "s");
    env.result("async_s", "loop with one wait_all", async_s, "s");
    env.result("speedup", "async speed-up", async_s > 0 ? sync_s / async_s : 0, "x");
    env.result("t1_us", "async loop: t1, the frontend issues an iteration", t1_ns * 1e-3, "us");
    env.result("t2_us", "async loop: t2, the backend runs an op", t2 * 1e-3, "us");
    env.result("t3_us", "async loop: t3, first hand-off and final return", t3_ns * 1e-3, "us");
    env.result("model_async_s", "model t1 + n max(t1, t2) + t3", model_async, "s");
    env.result("model_async_error_pct", "  against the loop", error_pct(model_async, async_s), "%");
    env.result("model_backend_s", "  if backend-bound: t1 + n t2 + t3", model_backend, "s");
    env.result("model_frontend_s", "  if frontend-bound: n t1 + t2 + t3", model_frontend, "s");
    env.result("sync_t1_us", "sync loop: t1, the frontend outside the wait", st1 * 1e-3, "us");
    env.result("sync_t2_us", "sync loop: t2, the add running", st2 * 1e-3, "us");
    env.result("sync_t3_us", "sync loop: t3, hand-off and return", st3 * 1e-3, "us");
    env.result("overlap_us", "sync loop: t1 overlapping the hand-off", overlap * 1e-3, "us");
    env.result("model_textbook_s", "textbook n(t1 + t2 + t3)", model_textbook, "s");
    env.result("model_textbook_error_pct", "  against the loop", error_pct(model_textbook, sync_s), "%");
    env.result("model_sync_s", "model n(t1 + t2 + t3 - overlap)", model_sync, "s");
    env.result("model_sync_error_pct", "  against the loop", error_pct(model_sync, sync_s), "%");
    env.result("cpu_moves", "worker moved off the frontend's CPU", static_cast<double>(cpu_moves), "");
    if (cal.size > 0) {
      env.result("calibration_t1_us", "calibration: t1 at that size", cal.t1_us, "us");
      env.result("calibration_t2_us", "calibration: t2 at that size", cal.t2_us, "us");
    }
    std::ostringstream note;
    note << "Waiting every iteration pays t1 and t3 " << iterations << " times; running ahead overlaps them with t2.";
    env.note(note.str());
    if (cal.size > 0) env.note("Size " + std::to_string(n) + ", calibrated on this machine: " + cal.why + ".");
    std::ostringstream fit;
    fit.precision(0);
    fit << std::fixed << "In the sync loop the frontend's work after the push (" << overlap * 1e-3
        << " us of its t1) runs while the add is handed off, so the textbook's n(t1 + t2 + t3) is "
        << error_pct(model_textbook, sync_s) << "% off; without that overlap the model is within "
        << std::fabs(error_pct(model_sync, sync_s)) << "%. The async model is within "
        << std::fabs(error_pct(model_async, async_s)) << "% of its loop.";
    env.note(fit.str());
    if (cpu_moves > 0) {
      env.note("The worker found itself on the frontend's CPU " + std::to_string(cpu_moves) +
               " times and moved away: while two threads share a CPU each waits for the other, which is why t1 "
               "varies from run to run (most on machines with few CPUs).");
    }
    if (std::fabs(error_pct(model_async, async_s)) > 20) {
      env.note("The async model does not fit this run (over 20% off): the loop was neither steadily backend- nor "
               "frontend-bound (a preempted frontend or worker shows as idle time in the trace).");
    }
    if (t1_ns > t2) {
      env.note("The frontend is slower than the backend (t1 > t2): the async loop is frontend-bound and takes about "
               "n t1; a larger --size makes it backend-bound.");
    } else {
      env.note("The backend is slower than the frontend (t2 > t1): the async loop is backend-bound and takes about "
               "n t2; a smaller --size (down to 1) makes it frontend-bound.");
    }
  }
};

}  // namespace

std::unique_ptr<Program> make_sync_vs_async() { return std::make_unique<SyncVsAsync>(); }

}  // namespace asyncscope::demos
