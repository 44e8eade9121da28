// The engine's GPU path (stream workers and their completers) on a simulated
// device: launches do not wait for the device, dependent host ops and sync
// points see finished device work, device errors reach the sync point naming
// the op, cancel and destruction with device work pending, and the trace's
// launch and device spans. Runs everywhere; the CUDA backend proper is tested
// in tests/engine/cuda.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/engine.h"
#include "engine/core/errors.h"
#include "engine/trace/model.h"
#include "simulated_stream.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::eventually;
using testing::run_with_timeout;
using testing::SimulatedStream;

struct Rig {
  std::shared_ptr<trace::Recorder> recorder = std::make_shared<trace::Recorder>();
  std::vector<SimulatedStream*> streams;
  std::shared_ptr<Engine> engine;

  explicit Rig(int gpu_streams = 1, int cpu_workers = 2) {
    EngineOptions options;
    options.cpu_workers = cpu_workers;
    options.gpu_streams = gpu_streams;
    options.recorder = recorder;
    options.stream_factory = [this](Device, int) {
      auto s = std::make_unique<SimulatedStream>();
      streams.push_back(s.get());
      return s;
    };
    engine = make_engine(options);
  }
  SimulatedStream& stream(int i = 0) { return *streams.at(static_cast<size_t>(i)); }

  // A GPU op whose device work runs `work` on the device thread.
  uint64_t gpu(std::function<void()> work, std::initializer_list<Var*> reads, std::initializer_list<Var*> writes,
               const char* name = "gpu") {
    return engine->push(
        [work = std::move(work)](const RunContext& rc) {
          EXPECT_EQ(rc.device, Device::cuda(0));
          static_cast<SimulatedStream*>(rc.stream)->submit(work);
        },
        reads, writes, OpMeta(name, Device::cuda(0)));
  }

  // Every ExecEvent recorded, by op id and span kind.
  std::map<std::pair<uint64_t, trace::SpanKind>, trace::ExecEvent> spans() const {
    std::map<std::pair<uint64_t, trace::SpanKind>, trace::ExecEvent> out;
    for (const trace::ThreadBuffer* b : recorder->threads()) {
      for (size_t i = 0; i < b->execs.size(); ++i) out[{b->execs[i].op, b->execs[i].span}] = b->execs[i];
    }
    return out;
  }
};

TEST(ThreadedEngineGpu, StreamWorkersAreCountedPerDevice) {
  Rig rig(2);
  EXPECT_EQ(rig.engine->num_workers(Device::cuda(0)), 2);
  EXPECT_EQ(rig.engine->num_workers(Device::cuda(1)), 0);
  EXPECT_EQ(rig.engine->num_workers(Device::cpu()), 2);
  Var* v = rig.engine->new_var();
  EXPECT_THROW(rig.engine->push([](const RunContext&) {}, {}, {v}, OpMeta("x", Device::cuda(1))),
               std::invalid_argument);
}

TEST(ThreadedEngineGpu, LaunchesDoNotWaitForTheDevice) {
  run_with_timeout([] {
    Rig rig;
    rig.stream().hold();  // the device is busy with something else
    std::vector<Var*> outs;
    for (int i = 0; i < 20; ++i) {
      outs.push_back(rig.engine->new_var());
      rig.gpu([] {}, {}, {outs.back()});
    }
    // All 20 were submitted while the device ran none of them.
    ASSERT_TRUE(eventually([&] { return rig.stream().begun() == 20; }));
    EXPECT_EQ(rig.stream().finished_on_device(), 0);
    EngineStats s = rig.engine->stats();
    EXPECT_EQ(s.finished, 0u);
    EXPECT_EQ(s.running, 20u) << "submitted GPU ops count as running until the device finishes them";
    rig.stream().release();
    rig.engine->wait_all();
    s = rig.engine->stats();
    EXPECT_EQ(s.finished, 20u);
    EXPECT_EQ(s.running, 0u);
    EXPECT_EQ(s.pending, 0u);
  });
}

TEST(ThreadedEngineGpu, HostOpsAndWaitsSeeFinishedDeviceWork) {
  run_with_timeout([] {
    Rig rig;
    for (int round = 0; round < 50; ++round) {
      Var* v = rig.engine->new_var();
      Var* w = rig.engine->new_var();
      auto value = std::make_shared<std::atomic<int>>(0);
      auto seen = std::make_shared<std::atomic<int>>(-1);
      rig.stream().hold();
      rig.gpu([value, round] { value->store(round + 1); }, {}, {v});
      // A CPU op reading v must run after the device work, not after the launch.
      rig.engine->push([value, seen](const RunContext&) { seen->store(value->load()); }, {v}, {w}, OpMeta("host"));
      rig.stream().release();
      rig.engine->wait_for_var(w);
      EXPECT_EQ(seen->load(), round + 1);
      // And a sync point on the GPU op's output returns after the device work.
      rig.gpu([value] { value->store(-7); }, {}, {v});
      rig.engine->wait_for_var(v);
      EXPECT_EQ(value->load(), -7);
    }
  });
}

TEST(ThreadedEngineGpu, DependentGpuOpsRunInPushOrder) {
  run_with_timeout([] {
    Rig rig(2);  // two streams: ordering must come from the vars, not from one stream
    Var* v = rig.engine->new_var();
    auto order = std::make_shared<std::vector<int>>();
    auto mutex = std::make_shared<std::mutex>();
    for (int i = 0; i < 200; ++i) {
      rig.gpu([order, mutex, i] {
        std::lock_guard lock(*mutex);
        order->push_back(i);
      }, {}, {v});
    }
    rig.engine->wait_all();
    ASSERT_EQ(order->size(), 200u);
    EXPECT_TRUE(std::is_sorted(order->begin(), order->end()));
  });
}

TEST(ThreadedEngineGpu, ADeviceFaultIsTheOpsErrorAtTheSyncPoint) {
  run_with_timeout([] {
    Rig rig;
    Var* bad = rig.engine->new_var();
    Var* after = rig.engine->new_var();
    Var* fine = rig.engine->new_var();
    SimulatedStream* stream = &rig.stream();
    rig.gpu([stream] { stream->fail_current(); }, {}, {bad}, "faulty_kernel");
    rig.gpu([] {}, {bad}, {after}, "reads_bad");
    rig.gpu([] {}, {}, {fine}, "unrelated");
    try {
      rig.engine->wait_for_var(after);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "faulty_kernel");
      EXPECT_NE(std::string(e.what()).find("simulated device fault"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(rig.engine->wait_for_var(fine));
    EXPECT_THROW(rig.engine->wait_all(), OpError);
    EXPECT_EQ(rig.engine->stats().failed, 1u);
    // The engine goes on working.
    Var* next = rig.engine->new_var();
    rig.gpu([] {}, {}, {next});
    EXPECT_NO_THROW(rig.engine->wait_for_var(next));
    EXPECT_NO_THROW(rig.engine->wait_all());
  });
}

TEST(ThreadedEngineGpu, AFunctionThatThrowsAtLaunchFailsItsOp) {
  run_with_timeout([] {
    Rig rig;
    Var* v = rig.engine->new_var();
    rig.engine->push([](const RunContext&) { throw std::runtime_error("cublasSgemm: invalid value"); }, {}, {v},
                     OpMeta("bad_launch", Device::cuda(0)));
    try {
      rig.engine->wait_for_var(v);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "bad_launch");
      EXPECT_NE(std::string(e.what()).find("cublasSgemm: invalid value"), std::string::npos);
    }
    EXPECT_THROW(rig.engine->wait_all(), OpError);
  });
}

TEST(ThreadedEngineGpu, CancelDropsUnlaunchedOpsAndLetsSubmittedOnesFinish) {
  run_with_timeout([] {
    // Two streams: the readers wait for the gate's device work (on one
    // stream they would be submitted behind it at once, by stream order).
    Rig rig(2);
    const auto begun = [&rig] { return rig.streams[0]->begun() + rig.streams[1]->begun(); };
    for (SimulatedStream* st : rig.streams) st->hold();
    Var* gate = rig.engine->new_var();
    rig.gpu([] {}, {}, {gate});  // submitted; the device is held
    ASSERT_TRUE(eventually([&] { return begun() == 1; }));
    std::vector<Var*> later;
    for (int i = 0; i < 50; ++i) {
      later.push_back(rig.engine->new_var());
      rig.gpu([] {}, {gate}, {later.back()});  // wait for the gate's device work
    }
    rig.engine->cancel();
    for (SimulatedStream* st : rig.streams) st->release();
    EXPECT_NO_THROW(rig.engine->wait_for_var(gate)) << "submitted work finishes normally";
    EXPECT_THROW(rig.engine->wait_for_var(later.back()), CancelledError);
    EXPECT_THROW(rig.engine->wait_all(), CancelledError);
    EXPECT_EQ(rig.engine->stats().cancelled, 50u);
    EXPECT_EQ(begun(), 1) << "cancelled ops never reach the device";
    Var* again = rig.engine->new_var();
    rig.gpu([] {}, {}, {again});
    EXPECT_NO_THROW(rig.engine->wait_for_var(again));
  });
}

TEST(ThreadedEngineGpu, DestructionWithDeviceWorkPendingDoesNotHang) {
  run_with_timeout([] {
    for (int round = 0; round < 20; ++round) {
      Rig rig;
      Var* v = rig.engine->new_var();
      for (int i = 0; i < 100; ++i) rig.gpu([] {}, {}, {v});
      rig.engine.reset();  // waits for what the device already has, drops the rest
    }
  });
}

TEST(ThreadedEngineGpu, TraceHasALaunchSpanAndAnOrderedDeviceSpanPerOp) {
  run_with_timeout([] {
    Rig rig(1);
    Var* a = rig.engine->new_var();
    Var* b = rig.engine->new_var();
    std::vector<uint64_t> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(rig.gpu([] {}, {}, {i % 2 ? a : b}));
    rig.engine->wait_all();
    const auto spans = rig.spans();
    int64_t last_device_end = 0;
    std::map<uint64_t, int64_t> enqueue;
    for (const trace::ThreadBuffer* buffer : rig.recorder->threads()) {
      for (size_t i = 0; i < buffer->enqueues.size(); ++i) enqueue[buffer->enqueues[i].op] = buffer->enqueues[i].t;
    }
    for (uint64_t id : ids) {
      ASSERT_TRUE(spans.count({id, trace::SpanKind::launch})) << id;
      ASSERT_TRUE(spans.count({id, trace::SpanKind::execute})) << id;
      const trace::ExecEvent& launch = spans.at({id, trace::SpanKind::launch});
      const trace::ExecEvent& run = spans.at({id, trace::SpanKind::execute});
      EXPECT_EQ(launch.device, trace::DeviceKind::cuda);
      EXPECT_EQ(run.device, trace::DeviceKind::cuda);
      EXPECT_EQ(launch.status, trace::OpStatus::ok);
      EXPECT_LE(enqueue.at(id), launch.start);
      EXPECT_LE(launch.start, launch.end);
      EXPECT_LE(launch.start, run.start) << "a kernel cannot start before its launch began";
      EXPECT_LE(run.start, run.end);
      EXPECT_LE(last_device_end, run.start) << "one stream runs one op at a time";
      last_device_end = run.end;
    }
    // The model: CPU lanes, then the stream's launch lane directly above its GPU lane.
    const trace::TraceModel m = trace::snapshot(*rig.recorder);
    ASSERT_GE(m.workers.size(), 2u);
    const trace::WorkerLane& launches = m.workers[m.workers.size() - 2];
    const trace::WorkerLane& stream = m.workers.back();
    EXPECT_EQ(launches.name, "cuda:0 launch 0");
    EXPECT_TRUE(launches.launches());
    EXPECT_EQ(stream.name, "cuda:0 stream 0");
    EXPECT_EQ(stream.span, trace::SpanKind::execute);
    EXPECT_EQ(launches.ops.size(), ids.size());
    EXPECT_EQ(stream.ops.size(), ids.size());
    for (uint64_t id : ids) {
      const trace::OpInfo* op = m.find_op(id);
      ASSERT_NE(op, nullptr);
      EXPECT_TRUE(op->launched());
      EXPECT_TRUE(op->executed());
      EXPECT_EQ(&m.workers[op->launch_worker], &launches);
      EXPECT_EQ(&m.workers[op->worker], &stream);
    }
  });
}

TEST(ThreadedEngineGpu, SkippedAndCancelledOpsStillGetBothSpans) {
  run_with_timeout([] {
    // One stream: the reader launches by stream order before the fault is
    // known (its launch is fine), and is skipped when it completes. Two
    // streams: it waits for the fault and is skipped at its launch.
    for (const int streams : {1, 2}) {
      Rig rig(streams);
      Var* bad = rig.engine->new_var();
      Var* out = rig.engine->new_var();
      for (SimulatedStream* st : rig.streams) st->hold();
      const uint64_t failing = rig.engine->push(
          [](const RunContext& rc) {
            auto* st = static_cast<SimulatedStream*>(rc.stream);
            st->submit([st] { st->fail_current(); });
          },
          {}, {bad}, OpMeta("gpu", Device::cuda(0)));
      const uint64_t skipped = rig.gpu([] {}, {bad}, {out});
      if (streams == 1) {
        ASSERT_TRUE(eventually([&] { return rig.stream().begun() == 2; }));
      }
      for (SimulatedStream* st : rig.streams) st->release();
      EXPECT_THROW(rig.engine->wait_all(), OpError);
      const auto spans = rig.spans();
      EXPECT_EQ(spans.at({failing, trace::SpanKind::execute}).status, trace::OpStatus::failed);
      EXPECT_EQ(spans.at({skipped, trace::SpanKind::launch}).status,
                streams == 1 ? trace::OpStatus::ok : trace::OpStatus::skipped);
      EXPECT_EQ(spans.at({skipped, trace::SpanKind::execute}).status, trace::OpStatus::skipped);
    }
  });
}

// Same-stream successors: an op whose unfinished dependencies are all on
// its own (only) stream is submitted right after their launch, not after
// the device finished them, so dependent kernels follow each other on the
// device with no completion round trip between them.
TEST(ThreadedEngineGpu, ASameStreamSuccessorIsSubmittedBeforeItsProducerFinishes) {
  run_with_timeout([] {
    Rig rig;
    auto order = std::make_shared<std::vector<int>>();  // written on the device thread only
    Var* a = rig.engine->new_var();
    Var* b = rig.engine->new_var();
    Var* c = rig.engine->new_var();
    rig.stream().hold();
    rig.gpu([order] { order->push_back(1); }, {}, {a}, "produce");
    rig.gpu([order] { order->push_back(2); }, {a}, {b}, "reads a");
    rig.gpu([order] { order->push_back(3); }, {a, b}, {c}, "reads a and b");
    rig.gpu([order] { order->push_back(4); }, {}, {a}, "overwrites a");  // after the reads, in stream order
    // All four were submitted while the device had finished none.
    ASSERT_TRUE(eventually([&] { return rig.stream().begun() == 4; }));
    EXPECT_EQ(rig.stream().finished_on_device(), 0);
    EXPECT_FALSE(rig.engine->stats().finished);
    rig.stream().release();
    rig.engine->wait_all();
    EXPECT_EQ(*order, (std::vector<int>{1, 2, 3, 4}));
  });
}

TEST(ThreadedEngineGpu, HostOpsAndWaitsAfterStreamOrderedOpsStillWaitForTheDevice) {
  run_with_timeout([] {
    Rig rig;
    SimulatedStream* stream = &rig.stream();
    for (int round = 0; round < 20; ++round) {
      Var* v = rig.engine->new_var();
      Var* w = rig.engine->new_var();
      Var* host = rig.engine->new_var();
      auto seen = std::make_shared<std::atomic<int>>(-1);
      stream->hold();
      rig.gpu([] {}, {}, {v});
      rig.gpu([] {}, {v}, {w});
      // A host op reading w, and one writing v (after the GPU read of v).
      rig.engine->push([stream, seen](const RunContext&) { seen->store(stream->finished_on_device()); }, {w}, {host},
                       OpMeta("host reads w"));
      rig.engine->push([stream, seen](const RunContext&) { EXPECT_GE(stream->finished_on_device(), 2); }, {}, {v},
                       OpMeta("host writes v"));
      ASSERT_TRUE(eventually([&] { return stream->begun() == 2 * (round + 1); }));
      const int before = stream->finished_on_device();
      stream->release();
      rig.engine->wait_for_var(host);
      EXPECT_EQ(seen->load(), before + 2) << "the host op ran after both device ops finished";
      rig.engine->wait_for_var(w);
      EXPECT_GE(stream->finished_on_device(), before + 2);
    }
    rig.engine->wait_all();
  });
}

TEST(ThreadedEngineGpu, ADeviceFaultReachesTheSyncPointOfAnOpSubmittedBehindIt) {
  run_with_timeout([] {
    Rig rig;
    SimulatedStream* stream = &rig.stream();
    Var* bad = rig.engine->new_var();
    Var* after = rig.engine->new_var();
    Var* last = rig.engine->new_var();
    stream->hold();
    rig.gpu([stream] { stream->fail_current(); }, {}, {bad}, "faulty_kernel");
    rig.gpu([] {}, {bad}, {after}, "reads_bad");
    rig.gpu([] {}, {after}, {last}, "reads_after");
    ASSERT_TRUE(eventually([&] { return stream->begun() == 3; })) << "submitted behind the fault, before it was known";
    stream->release();
    for (Var* v : {after, last}) {
      try {
        rig.engine->wait_for_var(v);
        FAIL() << "expected OpError";
      } catch (const OpError& e) {
        EXPECT_EQ(e.op_name(), "faulty_kernel");
      }
    }
    EXPECT_THROW(rig.engine->wait_all(), OpError);
    EXPECT_EQ(rig.engine->stats().failed, 1u) << "the followers are skipped, not failed";
    Var* next = rig.engine->new_var();
    rig.gpu([] {}, {}, {next});
    EXPECT_NO_THROW(rig.engine->wait_for_var(next));
  });
}

TEST(ThreadedEngineGpu, AStreamSuccessorWithAnErrorOnAnotherInputIsSkippedAtLaunch) {
  // Its input `produced` is granted by stream order (its producer is still on
  // the device) and `broken` the usual way, carrying a host op's error: the
  // launch sees the settled error and never runs the function; the error of
  // the producer, still unknown at launch, is left to the completer.
  run_with_timeout([] {
    Rig rig;
    SimulatedStream* stream = &rig.stream();
    Var* broken = rig.engine->new_var();
    Var* produced = rig.engine->new_var();
    Var* out = rig.engine->new_var();
    rig.engine->push([](const RunContext&) { throw std::runtime_error("host failure"); }, {}, {broken},
                     OpMeta("host_fails"));
    EXPECT_THROW(rig.engine->wait_for_var(broken), OpError);
    stream->hold();
    rig.gpu([] {}, {}, {produced}, "producer");
    auto ran = std::make_shared<std::atomic<bool>>(false);
    rig.engine->push([ran](const RunContext&) { ran->store(true); }, {produced, broken}, {out},
                     OpMeta("follower", Device::cuda(0)));
    ASSERT_TRUE(eventually([&] { return stream->begun() == 1; }));
    stream->release();
    try {
      rig.engine->wait_for_var(out);
      FAIL() << "expected OpError";
    } catch (const OpError& e) {
      EXPECT_EQ(e.op_name(), "host_fails");
    }
    EXPECT_FALSE(ran->load()) << "skipped at launch, not run";
    EXPECT_THROW(rig.engine->wait_all(), OpError);
  });
}

TEST(ThreadedEngineGpu, WithTwoStreamsADependentOpWaitsForTheDevice) {
  run_with_timeout([] {
    Rig rig(2);
    Var* v = rig.engine->new_var();
    Var* w = rig.engine->new_var();
    for (SimulatedStream* st : rig.streams) st->hold();
    rig.gpu([] {}, {}, {v});
    rig.gpu([] {}, {v}, {w});
    const auto begun = [&rig] { return rig.streams[0]->begun() + rig.streams[1]->begun(); };
    ASSERT_TRUE(eventually([&] { return begun() == 1; }));
    // The other stream could run it at once, unordered: it must wait.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(begun(), 1);
    for (SimulatedStream* st : rig.streams) st->release();
    rig.engine->wait_all();
    EXPECT_EQ(begun(), 2);
  });
}

TEST(ThreadedEngineGpu, CancelWithOpsSubmittedByStreamOrderLeavesTheEngineUsable) {
  run_with_timeout([] {
    Rig rig;
    SimulatedStream* stream = &rig.stream();
    Var* v = rig.engine->new_var();
    stream->hold();
    for (int i = 0; i < 50; ++i) rig.gpu([] {}, {v}, {v});
    ASSERT_TRUE(eventually([&] { return stream->begun() >= 1; }));
    rig.engine->cancel();
    stream->release();
    try {
      rig.engine->wait_all();
    } catch (const CancelledError&) {
      // whatever had not launched yet was dropped
    }
    EXPECT_EQ(rig.engine->stats().pending, 0u);
    Var* next = rig.engine->new_var();
    rig.gpu([] {}, {}, {next});
    EXPECT_NO_THROW(rig.engine->wait_for_var(next));
  });
}

TEST(ThreadedEngineGpu, StreamFactoryFailureFailsEngineCreation) {
  EngineOptions options;
  options.gpu_streams = 1;
  options.stream_factory = [](Device, int) -> std::unique_ptr<DeviceStream> {
    throw std::runtime_error("no device here");
  };
  EXPECT_THROW(make_engine(options), std::runtime_error);
  options.kind = EngineKind::naive;
  EXPECT_THROW(make_engine(options), std::invalid_argument);
  options.kind = EngineKind::threaded;
  options.gpu_streams = -1;
  EXPECT_THROW(make_engine(options), std::invalid_argument);
}

TEST(ThreadedEngineGpu, GpuStreamsNeedAStreamFactory) {
  // The scheduler knows no GPU backend: whoever asks for streams says how to make them.
  EngineOptions options;
  options.gpu_streams = 1;
  try {
    make_engine(options);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stream_factory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asyncscope
