// sync-vs-async: `iterations` x (y = x + 1), once waiting for y in every
// iteration and once with a single wait_all at the end, with the textbook
// t1/t2/t3 model measured from the trace.
#include <algorithm>
#include <sstream>

#include "engine/base/format.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/tensor/ops.h"
#include "engine/trace/clock.h"

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
            Param{"size", "x is size x size: the work per op (1 makes the loop frontend-bound)", Param::Kind::integer, 128, 1, 65536, {}, {}}, one_worker(),
            device_param(), seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t n = v.integer("size");
    // Two loops of `y = x + 1` and the free of the y it replaces; the second
    // loop pushes every iteration before its one wait, so all can be pending.
    const int64_t iterations = v.integer("iterations");
    return 4 * n * n * 4 + run_overhead_bytes(4 * iterations + 16, 2 * iterations + 8);
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t iterations = v.integer("iterations");
    const int64_t n = v.integer("size");
    Context& ctx = *env.context();
    NDArray x = ones({n, n});
    NDArray y = x + 1.0f;
    y.wait_to_read();
    const int64_t progress_step = std::max<int64_t>(1, iterations / 100);

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
    std::vector<int64_t> handoff, back;
    for (size_t i = 1; i < sync_ops.size() && i < waits.size(); ++i) {
      handoff.push_back(sync_ops[i]->start - sync_ops[i]->enqueue);  // queue -> a worker starts it
      back.push_back(waits[i]->end - sync_ops[i]->end);              // done -> frontend resumes
    }
    // Backend time per op: the time the async phase kept some worker busy
    // (the adds, the frees of the ys they replace, the engine's work between
    // them) over its op count. Idle time between ops is not counted, so a
    // frontend slower than the backend does not inflate it.
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
    const double t3_ns = mean_of(handoff) + mean_of(back);
    const double k = static_cast<double>(iterations);
    const double model_sync = k * (t1_ns + t2 + t3_ns) * 1e-9;
    // Running ahead, the slower side sets the pace: the backend (t2 > t1) or
    // the frontend (t1 > t2).
    const double model_backend = (t1_ns + k * t2 + t3_ns) * 1e-9;
    const double model_frontend = (k * t1_ns + t2 + t3_ns) * 1e-9;
    const double model_async = (t1_ns + k * std::max(t1_ns, t2) + t3_ns) * 1e-9;

    env.result("sync_s", "loop with a wait per iteration", sync_s, "s");
    env.result("async_s", "loop with one wait_all", async_s, "s");
    env.result("speedup", "async speed-up", async_s > 0 ? sync_s / async_s : 0, "x");
    env.result("t1_us", "t1: frontend issues an iteration", t1_ns * 1e-3, "us");
    env.result("t2_us", "t2: backend runs an op", t2 * 1e-3, "us");
    env.result("t3_us", "t3: hand-off and return to the frontend", t3_ns * 1e-3, "us");
    env.result("model_sync_s", "model n(t1 + t2 + t3)", model_sync, "s");
    env.result("model_async_s", "model t1 + n max(t1, t2) + t3", model_async, "s");
    env.result("model_backend_s", "  if backend-bound: t1 + n t2 + t3", model_backend, "s");
    env.result("model_frontend_s", "  if frontend-bound: n t1 + t2 + t3", model_frontend, "s");
    std::ostringstream note;
    note << "Waiting every iteration pays t1 and t3 " << iterations << " times; running ahead overlaps them with t2.";
    env.note(note.str());
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
