// The Python frontend's cost, measured from Python through the interpreter
// embedded in asyncscope (the same package a script imports):
//  - PythonAddLoop: `y = x + 1` on a 1x2 array in a Python loop with one
//    waitall at the end, per iteration, beside the same loop in NumPy and in
//    PyTorch CPU (when python3-torch is installed; it is no dependency), the
//    three in rotating order within each iteration so drift hits them alike.
//  - SourceAttribution: the same asyncscope loop with tracing each push back
//    to its source line on and off, alternating; the difference per push is
//    what attribution costs.
//  - PythonRoundTrip: `y = x + 1; y.wait_to_read()` timed one by one (the
//    push + wait round trip), on 1 element and on 128x128, beside NumPy's
//    `y = x + 1` on the same shapes, the two sides taking turns; the
//    counters are the medians. C++'s own round trip is BM_PushWaitRoundTrip.
//  - MemoryExperiment: assets/scripts/memory.py run as a script, beside the
//    C++ memory-and-sync demo with the same sizes: the RSS increase with and
//    without the per-batch sync.
// Threading: the benchmark's thread (it takes the GIL).
#include <benchmark/benchmark.h>
#include <pybind11/embed.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/demos/registry.h"
#include "engine/demos/run_env.h"
#include "python/embed/interpreter.h"
#include "python/embed/script_program.h"

namespace asyncscope::bench {
namespace {

namespace py = pybind11;

constexpr int kLoop = 20000;

// The loops, defined once in a module of their own.
py::dict& loops() {
  static py::dict* globals = [] {
    python::ensure_interpreter(/*signal_handlers=*/false);
    py::gil_scoped_acquire gil;
    auto* g = new py::dict;
    (*g)["__builtins__"] = py::module_::import("builtins");
    py::exec(R"(
import numpy
import asyncscope
from asyncscope import nd
x = nd.ones((1, 2))
xn = numpy.ones((1, 2), dtype=numpy.float32)
try:
    import torch
    xt = torch.ones((1, 2))
    torch.set_num_threads(1)
except ImportError:
    torch = None

def engine_loop(n):
    for _ in range(n):
        y = x + 1
    nd.waitall()

def numpy_loop(n):
    for _ in range(n):
        y = xn + 1

def torch_loop(n):
    for _ in range(n):
        y = xt + 1

def attribution(on):
    asyncscope._core._set_source_attribution(on)

import time
shapes = {1: ((1,), (1,)), 128: ((128, 128), (128, 128))}
arrays = {n: (nd.ones(s), numpy.ones(s, dtype=numpy.float32)) for n, (s, _) in shapes.items()}

def median_ns(samples):
    samples.sort()
    return samples[len(samples) // 2]

def round_trip(x, reps, wait):
    clock, samples = time.perf_counter_ns, []
    for _ in range(reps):
        t0 = clock()
        y = x + 1.0
        if wait:
            y.wait_to_read()
        samples.append(clock() - t0)
    return median_ns(samples)

def engine_round_trip(n, reps):
    return round_trip(arrays[n][0], reps, True)

def numpy_round_trip(n, reps):
    return round_trip(arrays[n][1], reps, False)
)", *g);
    return g;
  }();
  return *globals;
}

double seconds(const py::object& fn, int n) {
  const auto t0 = std::chrono::steady_clock::now();
  fn(n);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void PythonAddLoop(benchmark::State& state) {
  py::dict& g = loops();
  py::gil_scoped_acquire gil;
  const bool have_torch = !g["torch"].is_none();
  std::array<py::object, 3> fns{g["engine_loop"], g["numpy_loop"], g["torch_loop"]};
  const int sides = have_torch ? 3 : 2;
  for (int i = 0; i < sides; ++i) fns[i](1000);  // warm up (the engine's threads, NumPy's dispatch, torch's)
  std::array<double, 3> total{};
  int rotation = 0;
  for (auto _ : state) {
    double iteration = 0;
    for (int k = 0; k < sides; ++k) {
      const int side = (rotation + k) % sides;
      const double t = seconds(fns[side], kLoop);
      total[side] += t;
      iteration += t;
    }
    rotation = (rotation + 1) % sides;
    state.SetIterationTime(iteration);
  }
  const double n = static_cast<double>(state.iterations()) * kLoop;
  state.counters["asyncscope_us"] = total[0] / n * 1e6;
  state.counters["numpy_us"] = total[1] / n * 1e6;
  if (have_torch) state.counters["torch_cpu_us"] = total[2] / n * 1e6;
  state.SetLabel(have_torch ? "per iteration: asyncscope, NumPy, PyTorch CPU"
                            : "per iteration: asyncscope, NumPy (python3-torch not installed)");
}
BENCHMARK(PythonAddLoop)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

void SourceAttribution(benchmark::State& state) {
  py::dict& g = loops();
  py::gil_scoped_acquire gil;
  const py::object loop = g["engine_loop"];
  const py::object attribution = g["attribution"];
  loop(1000);
  double on = 0, off = 0;
  bool on_first = true;
  for (auto _ : state) {
    double iteration = 0;
    for (int k = 0; k < 2; ++k) {
      const bool with = (k == 0) == on_first;
      attribution(with);
      const double t = seconds(loop, kLoop);
      (with ? on : off) += t;
      iteration += t;
    }
    on_first = !on_first;
    state.SetIterationTime(iteration);
  }
  attribution(true);
  const double n = static_cast<double>(state.iterations()) * kLoop;
  state.counters["on_us"] = on / n * 1e6;
  state.counters["off_us"] = off / n * 1e6;
  state.counters["cost_ns"] = (on - off) / n * 1e9;
}
BENCHMARK(SourceAttribution)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

void PythonRoundTrip(benchmark::State& state) {
  py::dict& g = loops();
  py::gil_scoped_acquire gil;
  const int n = static_cast<int>(state.range(0));
  constexpr int kReps = 2000;
  const std::array<py::object, 2> fns{g["engine_round_trip"], g["numpy_round_trip"]};
  for (const py::object& fn : fns) fn(n, 200);  // warm up
  std::array<std::vector<double>, 2> medians;
  int first = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 2; ++k) {
      const int side = (first + k) % 2;
      medians[side].push_back(fns[side](n, kReps).cast<double>());
    }
    first = 1 - first;
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const auto median = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double ours = median(medians[0]) / 1e3, numpy = median(medians[1]) / 1e3;
  state.counters["asyncscope_us"] = ours;
  state.counters["numpy_us"] = numpy;
  state.counters["ratio"] = ours / numpy;
  state.SetLabel("median of each side's medians: push + wait (asyncscope), x + 1 (NumPy)");
}
BENCHMARK(PythonRoundTrip)->Arg(1)->Arg(128)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);

// The number in "<label>, memory grew by <number> MB", a line memory.py prints.
double megabytes_after(const std::vector<std::string>& lines, const std::string& label) {
  for (const std::string& line : lines) {
    const size_t at = line.find(label);
    if (at == std::string::npos) continue;
    const size_t by = line.find("grew by", at);
    if (by != std::string::npos) return std::strtod(line.c_str() + by + 7, nullptr);
  }
  return -1;
}

void MemoryExperiment(benchmark::State& state) {
  const int batches = 200, batch_size = 256;
  ::setenv("BATCHES", std::to_string(batches).c_str(), 1);
  ::setenv("BATCH_SIZE", std::to_string(batch_size).c_str(), 1);
  const std::string script = std::string(ASYNCSCOPE_SOURCE_DIR) + "/assets/scripts/memory.py";
  const python::ScriptProgram program(script);
  const demos::Program& demo = *demos::find_demo("memory-and-sync");
  double py_sync = 0, py_none = 0, cpp_sync = 0, cpp_none = 0;
  for (auto _ : state) {
    std::vector<std::string> printed;
    demos::RunHooks hooks;
    hooks.console = [&printed](std::string_view line) { printed.emplace_back(line); };
    demos::RunControl control;
    demos::run_program(program, program.defaults(), hooks, control);
    py_sync = megabytes_after(printed, "with a sync every batch");
    py_none = megabytes_after(printed, "without a sync");
    for (const char* sync : {"item", "none"}) {
      demos::ParamValues v = demo.defaults();
      v.set("batches", std::to_string(batches));
      v.set("batch-size", std::to_string(batch_size));
      v.set("sync", sync);
      demos::RunHooks h;
      demos::RunControl c;
      const demos::Results r = demos::run_program(demo, v, h, c);
      (std::string(sync) == "item" ? cpp_sync : cpp_none) = r.value("rss_increase_mb");
    }
    state.SetIterationTime(1);
  }
  state.counters["python_sync_MB"] = py_sync;
  state.counters["python_nosync_MB"] = py_none;
  state.counters["cpp_sync_MB"] = cpp_sync;
  state.counters["cpp_nosync_MB"] = cpp_none;
}
BENCHMARK(MemoryExperiment)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace asyncscope::bench
