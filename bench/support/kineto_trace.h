// A synthetic PyTorch-profiler (Kineto) trace of a given shape, for the
// import benchmarks and the large-file test: per kernel, a framework op with
// a nested one, its cudaLaunchKernel, the kernel on one of a few streams
// (with the args Kineto writes), the ac2g flow linking them, and memory
// events (an allocation and, later, its free). Its events are in the order a
// profiler writes them (per thread, then the GPU's), not globally sorted.
// Threading: any thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace asyncscope::bench {

struct KinetoShape {
  uint64_t kernels = 19'000;
  uint64_t memory_events = 28'000;  // allocations and frees, about half each
  int streams = 4;
  int name_padding = 1220;  // characters of template arguments in each kernel's name, as real ones have
};

// Writes the trace to `out`; returns the bytes written.
inline uint64_t write_kineto_trace(std::FILE* out, const KinetoShape& shape) {
  uint64_t bytes = 0;
  char buf[4096];
  const auto put = [&](int n) {
    std::fwrite(buf, 1, static_cast<size_t>(n), out);
    bytes += static_cast<uint64_t>(n);
  };
  const std::string pad(static_cast<size_t>(shape.name_padding), 'x');
  put(std::snprintf(buf, sizeof buf,
                    "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"Synthetic GPU\"}],"
                    "\"traceEvents\":[\n"
                    "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1234,\"tid\":0,\"args\":{\"name\":\"python3\"}},\n"
                    "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1234,\"tid\":1234,"
                    "\"args\":{\"name\":\"thread 1234 (python3)\"}}"));
  const int64_t base = 1700000000000000;  // absolute microseconds, as older Kineto writes them
  const uint64_t allocs_per_kernel_x1000 = shape.memory_events * 500 / (shape.kernels == 0 ? 1 : shape.kernels);
  uint64_t alloc_budget = 0, live = 0, next_free = 0, allocated = 0;
  // CPU side first, then the GPU side, as Kineto groups them.
  for (uint64_t i = 0; i < shape.kernels; ++i) {
    const int64_t t = base + static_cast<int64_t>(i) * 50;
    put(std::snprintf(buf, sizeof buf,
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1234,\"tid\":1234,"
                      "\"ts\":%lld,\"dur\":40,\"args\":{\"External id\":%llu,\"Record function id\":0,\"Ev Idx\":%llu,"
                      "\"Input Dims\":[[128, 512], [1024, 512], [1024]],\"Input type\":[\"float\", \"float\", \"float\"],"
                      "\"Concrete Inputs\":[\"\", \"\", \"\"]}}"
                      ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1234,\"tid\":1234,"
                      "\"ts\":%lld,\"dur\":30,\"args\":{\"External id\":%llu,\"Record function id\":0,\"Ev Idx\":%llu}}"
                      ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1234,\"tid\":1234,"
                      "\"ts\":%lld,\"dur\":6,\"args\":{\"External id\":%llu,\"cbid\":211,\"correlation\":%llu}}"
                      ",\n{\"ph\":\"s\",\"id\":%llu,\"pid\":1234,\"tid\":1234,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
                      static_cast<long long>(t), static_cast<unsigned long long>(2 * i),
                      static_cast<unsigned long long>(3 * i), static_cast<long long>(t + 2),
                      static_cast<unsigned long long>(2 * i + 1), static_cast<unsigned long long>(3 * i + 1),
                      static_cast<long long>(t + 5), static_cast<unsigned long long>(2 * i + 1),
                      static_cast<unsigned long long>(i + 1), static_cast<unsigned long long>(i + 1),
                      static_cast<long long>(t + 5)));
    // Memory: allocations inside aten::addmm, each freed a few kernels later.
    alloc_budget += allocs_per_kernel_x1000;
    while (alloc_budget >= 1000) {
      alloc_budget -= 1000;
      const uint64_t size = 4096 * (1 + (i % 64));
      allocated += size;
      put(std::snprintf(buf, sizeof buf,
                        ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1234,"
                        "\"tid\":1234,\"ts\":%lld,\"args\":{\"Total Reserved\":2147483648,\"Total Allocated\":%llu,"
                        "\"Bytes\":%llu,\"Device Id\":0,\"Device Type\":1,\"Addr\":%llu}}",
                        static_cast<long long>(t + 3), static_cast<unsigned long long>(allocated),
                        static_cast<unsigned long long>(size),
                        static_cast<unsigned long long>(0x7f0000000000ULL + live * 0x100000ULL)));
      ++live;
      if (live - next_free > 8) {
        const uint64_t freed = 4096 * (1 + ((i + next_free) % 64));
        allocated -= std::min(allocated, freed);
        put(std::snprintf(buf, sizeof buf,
                          ",\n{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1234,"
                          "\"tid\":1234,\"ts\":%lld,\"args\":{\"Total Reserved\":2147483648,\"Total Allocated\":%llu,"
                          "\"Bytes\":-%llu,\"Device Id\":0,\"Device Type\":1,\"Addr\":%llu}}",
                          static_cast<long long>(t + 4), static_cast<unsigned long long>(allocated),
                          static_cast<unsigned long long>(freed),
                          static_cast<unsigned long long>(0x7f0000000000ULL + next_free * 0x100000ULL)));
        ++next_free;
      }
    }
  }
  for (uint64_t i = 0; i < shape.kernels; ++i) {
    const int64_t t = base + static_cast<int64_t>(i) * 50 + 15;
    const int stream = 7 + static_cast<int>(i % static_cast<uint64_t>(shape.streams < 1 ? 1 : shape.streams));
    put(std::snprintf(buf, sizeof buf,
                      ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::elementwise_kernel<128, 4, "
                      "at::native::gpu_kernel_impl<%s>(at::TensorIteratorBase&)::{lambda(int)#1}>(int)\","
                      "\"pid\":0,\"tid\":%d,\"ts\":%lld,\"dur\":%d,\"args\":{\"External id\":%llu,\"queued\":0,"
                      "\"device\":0,\"context\":1,\"stream\":%d,\"correlation\":%llu,\"registers per thread\":32,"
                      "\"shared memory\":0,\"blocks per SM\":1.185185,\"warps per SM\":4.740741,\"grid\":[128, 1, 1],"
                      "\"block\":[128, 1, 1],\"est. achieved occupancy %%\":7}}"
                      ",\n{\"ph\":\"f\",\"id\":%llu,\"pid\":0,\"tid\":%d,\"ts\":%lld,\"cat\":\"ac2g\",\"name\":\"ac2g\","
                      "\"bp\":\"e\"}",
                      pad.c_str(), stream, static_cast<long long>(t), 10 + static_cast<int>(i % 30),
                      static_cast<unsigned long long>(2 * i + 1), stream, static_cast<unsigned long long>(i + 1),
                      static_cast<unsigned long long>(i + 1), stream, static_cast<long long>(t)));
  }
  put(std::snprintf(buf, sizeof buf, "\n]}\n"));
  return bytes;
}

}  // namespace asyncscope::bench
