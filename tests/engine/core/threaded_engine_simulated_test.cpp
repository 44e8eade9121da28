// Simulated GPUs in the engine (EngineOptions::simulated_gpus): a pool of host
// workers per device, each running the ops pushed to its device, two devices
// at once; their lanes in the trace; what is refused. The process-wide
// setting (engine/core/device.h) and the ops on simulated devices are tested
// from Python (tests/python/core/test_simulated_gpus.py), in a process of their own.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "engine/core/engine.h"
#include "engine/trace/model.h"
#include "support/timeout.h"

namespace asyncscope {
namespace {

using testing::run_with_timeout;

// Spins until `flag` is set, for at most 10 s; whether it was.
bool await(const std::atomic<bool>& flag) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  return flag.load();
}

TEST(ThreadedEngineSimulated, EachDeviceHasItsWorkersAndTwoDevicesComputeAtOnce) {
  run_with_timeout([] {
    EngineOptions options;
    options.cpu_workers = 1;
    options.simulated_gpus = 2;
    options.recorder = std::make_shared<trace::Recorder>();
    auto engine = make_engine(options);
    EXPECT_EQ(engine->num_workers(Device::cuda(0)), 1);
    EXPECT_EQ(engine->num_workers(Device::cuda(1)), 1);
    EXPECT_EQ(engine->num_workers(Device::cuda(2)), 0);
    // Each op waits until the other started: only two devices running at
    // once finish both (one worker each, so not one device's pool).
    std::atomic<bool> started0{false}, started1{false}, both{true};
    Var* a = engine->new_var();
    Var* b = engine->new_var();
    engine->push(
        [&](const RunContext& rc) {
          EXPECT_EQ(rc.device, Device::cuda(0));
          started0 = true;
          if (!await(started1)) both = false;
        },
        {}, {a}, OpMeta("on0", Device::cuda(0)));
    engine->push(
        [&](const RunContext& rc) {
          EXPECT_EQ(rc.device, Device::cuda(1));
          started1 = true;
          if (!await(started0)) both = false;
        },
        {}, {b}, OpMeta("on1", Device::cuda(1)));
    std::atomic<int> after{0};
    engine->push([&](const RunContext&) { after = started0 && started1 ? 1 : -1; }, {a, b}, {},
                 OpMeta("cpu", Device::cpu()));
    engine->wait_all();
    EXPECT_TRUE(both) << "the two devices' ops did not run at the same time";
    EXPECT_EQ(after.load(), 1);
    const trace::TraceModel m = trace::snapshot(*options.recorder);
    int lanes = 0;
    for (const trace::WorkerLane& lane : m.workers) {
      if (lane.device != trace::DeviceKind::cuda) continue;
      ++lanes;
      ASSERT_EQ(lane.ops.size(), 1u);
      const trace::OpInfo& op = m.ops[lane.ops[0]];
      EXPECT_EQ(m.op_name(op), lane.device_index == 0 ? "on0" : "on1");
      EXPECT_NE(lane.name.find(" sim worker "), std::string::npos) << lane.name;
    }
    EXPECT_EQ(lanes, 2);
    engine->delete_var(a);
    engine->delete_var(b);
  });
}

TEST(ThreadedEngineSimulated, WhatIsRefusedSaysWhy) {
  run_with_timeout([] {
    EngineOptions options;
    options.cpu_workers = 1;
    options.simulated_gpus = 1;
    auto engine = make_engine(options);
    try {
      engine->push([](const RunContext&) {}, {}, {}, OpMeta("x", Device::cuda(1)));
      FAIL() << "an op on a device without workers was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("cuda:1"), std::string::npos) << e.what();
    }
    options.simulated_gpus = 17;
    EXPECT_THROW(make_engine(options), std::invalid_argument);
    options.simulated_gpus = 1;
    options.simulated_workers = 0;
    EXPECT_THROW(make_engine(options), std::invalid_argument);
    options.simulated_workers = 1;
    options.gpu_streams = 1;
    options.stream_factory = [](Device, int) -> std::unique_ptr<DeviceStream> { return nullptr; };
    EXPECT_THROW(make_engine(options), std::invalid_argument);
  });
}

}  // namespace
}  // namespace asyncscope
