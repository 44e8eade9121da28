// memory-and-sync: train an MLP 512 -> 2048 (ReLU) -> 512 (ReLU) -> 1 with L2
// loss and SGD on batches generated on the fly, written as the chapter's
// training loop (record the forward pass, backward after the scope, a
// trainer step). Without a per-batch sync the frontend enqueues every batch
// at once, the batch generators run ahead of training and their buffers pile
// up; a per-batch sync, or a small in-flight bound, keeps memory flat.
#include <algorithm>

#include "engine/base/format.h"
#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "engine/nn/nn.h"
#include "engine/trace_record/clock.h"
#include "engine/trace_record/rss.h"

namespace asyncscope::demos {
namespace {

constexpr int64_t kFeatures = 512;
constexpr double kMB = 1024.0 * 1024.0;
// Ops one training batch pushes, frees included: 60.3 measured (12,054
// enqueues for 200 batches, `run memory-and-sync --batches 200 --trace`).
constexpr int64_t kOpsPerBatch = 64;

int64_t mlp_parameter_bytes() {
  const int64_t params = kFeatures * 2048 + 2048 + 2048 * 512 + 512 + 512 * 1 + 1;
  return params * 4;
}

class MemoryAndSync final : public Program {
 public:
  std::string name() const override { return "memory-and-sync"; }
  std::string title() const override { return "Memory and sync"; }
  std::string summary() const override {
    return "training without a per-batch sync piles up generated batches and RSS climbs; with one it stays flat";
  }
  std::vector<Param> params() const override {
    return {Param{"batches", "training batches", Param::Kind::integer, 100, 1, 1000000, {}, {}},
            Param{"batch-size", "samples per batch (each 512 floats)", Param::Kind::integer, 1024, 1, 1 << 20, {}, {}},
            Param{"sync", "sync point in each batch", Param::Kind::choice, 0, 0, 0,
                  {"none", "item", "wait_to_read", "wait_all"}, "none"},
            max_inflight_param(),
            Param{"lr", "SGD learning rate", Param::Kind::number, 0.005, 1e-9, 10, {}, {}},
            workers_param(),
            device_param(),
            seed_param()};
  }
  int64_t estimate_bytes(const ParamValues& v) const override {
    const int64_t batches = v.integer("batches");
    const int64_t batch = v.integer("batch-size");
    const int64_t per_batch = batch * kFeatures * 4;
    // Activations and their gradients for one batch in flight.
    const int64_t working = batch * (2048 + 512 + 1) * 4 * 4;
    // How many batches can wait at once: a sync keeps the frontend about one
    // ahead; an in-flight bound of m ops, about m / kOpsPerBatch (however
    // large m is); without either, all of them.
    const int64_t bound = v.integer("max-inflight");
    int64_t queued = batches;
    if (v.choice("sync") != "none") {
      queued = std::min<int64_t>(batches, 2);
    } else if (bound > 0) {
      queued = std::min(batches, bound / kOpsPerBatch + 2);
    }
    const int64_t ops = (batches + 1) * kOpsPerBatch;
    return 3 * mlp_parameter_bytes() + queued * per_batch + 2 * working +
           run_overhead_bytes(ops, queued * kOpsPerBatch);
  }

  void run(const ParamValues& v, RunEnv& env) const override {
    const int64_t batches = v.integer("batches");
    const int64_t batch_size = v.integer("batch-size");
    const std::string sync = v.choice("sync");
    Context& ctx = *env.context();

    nn::Sequential net;
    net.add(nn::Dense(2048, nn::Activation::relu), nn::Dense(512, nn::Activation::relu), nn::Dense(1));
    net.initialize();
    nn::Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", v.number("lr")}});
    nn::L2Loss loss;
    // One forward pass first: it gives the layers their input size (deferred
    // initialisation), so the timed loop trains from the first batch.
    loss(ones({batch_size}), net(normal({batch_size, kFeatures}))).wait_to_read();

    trace::RssReader rss;
    const int64_t rss_before = rss.read();
    // On a GPU the arrays (and the pile-up) live in the device pool.
    PooledAllocator& arrays = env.device_allocator() ? *env.device_allocator() : env.allocator();
    arrays.reset_peak();
    env.mark("training");
    const uint64_t flops_before = ctx.matmul_flops();
    const int64_t t0 = trace::now_ns();
    NDArray first_loss, last_loss;
    double loss_sum = 0;
    for (int64_t i = 0; i < batches; ++i) {
      ctx.set_iteration(static_cast<uint32_t>(i));
      NDArray X = normal({batch_size, kFeatures});
      NDArray y = ones({batch_size});
      NDArray l;
      {
        autograd::Record record;
        l = loss(y, net(X));
      }
      if (sync == "item") {
        loss_sum += mean(l).item();
      } else if (sync == "wait_to_read") {
        l.wait_to_read();
      }
      l.backward();
      trainer.step(batch_size);
      if (sync == "wait_all") wait_all();
      if (i == 0) first_loss = mean(l);
      last_loss = l;
      env.check_stop();
      env.progress(0.5 * static_cast<double>(i + 1) / static_cast<double>(batches), "batch " + std::to_string(i + 1));
    }
    const double frontend_s = seconds_since(t0);
    const auto flops = static_cast<double>(ctx.matmul_flops() - flops_before);
    env.print("the frontend enqueued " + std::to_string(batches) + " batches in " + format_value(frontend_s, "s"));
    env.mark("wait for the backend");
    env.wait_all("training on the workers");
    const double total_s = seconds_since(t0);
    const int64_t rss_after = rss.read();
    const float loss_start = first_loss.item();
    const float loss_end = mean(last_loss).item();
    env.print("training finished after " + format_value(total_s, "s") + "; RSS grew by " +
              format_value(static_cast<double>(rss_after - rss_before) / kMB, "MB"));
    env.finish();

    const trace::TraceModel m = env.model();
    const int64_t rss_peak = std::max(rss_after, m.counter_peak(kRssCounter).value_or(rss_after));
    env.result("time_s", "training took", total_s, "s");
    env.result("frontend_s", "the frontend's loop took", frontend_s, "s");
    env.result("rss_increase_mb", "RSS increase at the end", static_cast<double>(rss_after - rss_before) / kMB, "MB");
    env.result("peak_rss_increase_mb", "peak RSS increase", static_cast<double>(rss_peak - rss_before) / kMB, "MB");
    env.result("peak_live_mb", "peak live array bytes" + std::string(env.device_allocator() ? " (GPU memory)" : ""),
               static_cast<double>(arrays.stats().peak_live_bytes) / kMB, "MB");
    env.result("loss_first", "loss of the first batch", loss_start, "");
    env.result("loss_last", "loss of the last batch", loss_end, "");
    env.result("gflops", "matrix product speed", gflops(flops, op_busy_seconds(m, "dot", marker_time(m, "training"))),
               "GFLOP/s");
    const int64_t bound = v.integer("max-inflight");
    if (sync == "none" && bound == 0) {
      env.note("No sync point: the frontend enqueued every batch up front and the generated batches waited in "
               "memory for training to reach them.");
    } else if (sync == "none") {
      env.note("The in-flight bound held the frontend back (backpressure), so only a few batches were ever "
               "waiting in memory.");
    } else {
      env.note("The per-batch " + sync + " kept the frontend at most one batch ahead, so memory stayed flat.");
    }
  }
};

}  // namespace

std::unique_ptr<Program> make_memory_and_sync() { return std::make_unique<MemoryAndSync>(); }

}  // namespace asyncscope::demos
