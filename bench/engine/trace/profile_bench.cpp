// Opening a real profiler's trace: open_trace (read, gzip if any, parse,
// link, HTA's figures, the model the app draws) on
//   - a generated PyTorch-profiler trace of the shape HTA was measured on
//     (54 MB of text, 19,000 kernels, 28,000 memory events; HTA took 2.1 s
//     and 329 MB of RSS on this 2-core machine): the target is 0.5 s and
//     300 MB;
//   - the same written with gzip (as PyTorch's export_chrome_trace(*.gz));
//   - the largest file in ../shared/traces (sampled_training.json.gz);
//   - a generated 1 GB trace (once): it opens without swapping, within the
//     memory budget.
// Counters: text_MB, spans, memory_events, and peak_rss_MB (the process's
// peak resident memory during the open, measured from a reset of the
// kernel's high-water mark, so it includes what the process held before:
// rss_before_MB).
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>
#include <algorithm>
#include <string>

#include "engine/trace/profile_model.h"
#include "support/process_memory.h"
#include "support/kineto_trace.h"

namespace asyncscope::trace {
namespace {

namespace fs = std::filesystem;

std::string generated(const std::string& name, const bench::KinetoShape& shape, bool gz) {
  const std::string path = (fs::temp_directory_path() / ("asyncscope_bench_" + name)).string();
  if (fs::exists(path)) return path;
  const std::string plain = gz ? path + ".tmp" : path;
  std::FILE* f = std::fopen(plain.c_str(), "wb");
  if (f == nullptr) return "";
  bench::write_kineto_trace(f, shape);
  std::fclose(f);
  if (gz) {
    std::ifstream in(plain, std::ios::binary);
    gzFile out = gzopen(path.c_str(), "wb6");
    std::vector<char> buf(1 << 20);
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      if (in.gcount() > 0) gzwrite(out, buf.data(), static_cast<unsigned>(in.gcount()));
    }
    gzclose(out);
    fs::remove(plain);
  }
  return path;
}

void open_and_report(benchmark::State& state, const std::string& path) {
  if (path.empty() || !fs::exists(path)) {
    state.SkipWithError(("no trace at '" + path + "'").c_str());
    return;
  }
  const double rss_before = static_cast<double>(bench::status_kb("VmRSS")) / 1024.0;
  double peak = 0;
  size_t spans = 0, memory = 0;
  for (auto _ : state) {
    bench::reset_peak_rss();
    OpenedTrace t = open_trace(path);
    peak = std::max(peak, static_cast<double>(bench::status_kb("VmHWM")) / 1024.0);
    spans = t.profile->spans.size();
    memory = t.profile->memory.size();
    benchmark::DoNotOptimize(t);
  }
  state.counters["spans"] = static_cast<double>(spans);
  state.counters["memory_events"] = static_cast<double>(memory);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(path)) / 1e6;
  state.counters["rss_before_MB"] = rss_before;
  state.counters["peak_rss_MB"] = peak;
}

void BM_OpenKinetoTrace54MB(benchmark::State& state) {
  open_and_report(state, generated("kineto_54mb.json", bench::KinetoShape{}, false));
}
BENCHMARK(BM_OpenKinetoTrace54MB)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_OpenKinetoTrace54MBGzip(benchmark::State& state) {
  open_and_report(state, generated("kineto_54mb.json.gz", bench::KinetoShape{}, true));
}
BENCHMARK(BM_OpenKinetoTrace54MBGzip)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_OpenLargestRealTrace(benchmark::State& state) {
  const char* env = std::getenv("ASYNCSCOPE_REAL_TRACES");
  const std::string dir = env != nullptr ? env : std::string(ASYNCSCOPE_BENCH_SOURCE_DIR) + "/../shared/traces";
  open_and_report(state, dir + "/sampled_training.json.gz");
}
BENCHMARK(BM_OpenLargestRealTrace)->Unit(benchmark::kMillisecond);

// About 1 GB of text: 19x the shape above.
void BM_OpenKinetoTrace1GB(benchmark::State& state) {
  bench::KinetoShape shape;
  shape.kernels *= 19;
  shape.memory_events *= 19;
  const std::string path = generated("kineto_1gb.json", shape, false);
  open_and_report(state, path);
  fs::remove(path);
}
BENCHMARK(BM_OpenKinetoTrace1GB)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace asyncscope::trace
