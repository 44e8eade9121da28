// The counters asyncscope knows, in one table: the column name a trace
// records each under, and how it is shown (label, unit, colour, and whether
// and where the timeline draws it as a lane). Samplers, exporters and
// widgets spell a counter only through this table and its name constants.
// Threading: any thread (constant data).
#pragma once

#include <cstdint>
#include <string_view>

namespace asyncscope::trace {

// Column names of the counters a demo session records.
inline constexpr const char* kRssCounter = "rss_bytes";
inline constexpr const char* kLiveCounter = "live_bytes";
inline constexpr const char* kPooledCounter = "pooled_bytes";
inline constexpr const char* kQueueCounter = "queue_depth";
inline constexpr const char* kRunningCounter = "running_ops";
// Only in runs on a GPU: the device memory pool's live and cached bytes.
inline constexpr const char* kDeviceLiveCounter = "device_live_bytes";
inline constexpr const char* kDevicePooledCounter = "device_pooled_bytes";
// Only in runs started from the app: the CPU the app used to show the run
// (its UI thread, which reads the trace and draws, and the graphics driver's
// threads), as a share of one core, so its own load shows beside what it
// measures.
inline constexpr const char* kRenderCpuCounter = "app_render_cpu";

// permille: a share in thousandths (of one core, for a CPU share), shown as
// a percentage with one decimal.
enum class CounterUnit : uint8_t { count, bytes, permille };

// Where the timeline draws a counter: not as a lane, or as a lane above or
// below the worker lanes.
enum class CounterLane : uint8_t { none, above_workers, below_workers };

// A colour packed as ImGui's IM_COL32 packs it (R in the low byte, A in the
// high one), so widgets use it as an ImU32 while this layer stays free of ImGui.
constexpr uint32_t pack_rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) noexcept {
  return uint32_t{a} << 24 | uint32_t{b} << 16 | uint32_t{g} << 8 | uint32_t{r};
}

struct CounterSpec {
  const char* name;   // the column name in a trace (TraceModel::counter_names)
  const char* label;  // what a person reads
  CounterUnit unit;
  uint32_t color;     // pack_rgba
  CounterLane lane;
};

// In the order a session records them; lanes on one side of the workers
// draw in this order.
inline constexpr CounterSpec kCounters[] = {
    {kRssCounter, "RSS", CounterUnit::bytes, pack_rgba(97, 175, 239), CounterLane::below_workers},
    {kLiveCounter, "live bytes", CounterUnit::bytes, pack_rgba(152, 206, 121), CounterLane::below_workers},
    {kPooledCounter, "pooled bytes", CounterUnit::bytes, pack_rgba(120, 150, 104), CounterLane::below_workers},
    {kQueueCounter, "queue depth", CounterUnit::count, pack_rgba(229, 192, 123), CounterLane::above_workers},
    {kRunningCounter, "running ops", CounterUnit::count, pack_rgba(209, 154, 102), CounterLane::none},
    {kDeviceLiveCounter, "GPU memory", CounterUnit::bytes, pack_rgba(86, 196, 186), CounterLane::below_workers},
    {kDevicePooledCounter, "GPU pooled bytes", CounterUnit::bytes, pack_rgba(70, 140, 134), CounterLane::below_workers},
    // Grey: the app, not the program.
    {kRenderCpuCounter, "app render CPU", CounterUnit::permille, pack_rgba(176, 184, 198), CounterLane::below_workers},
};

// The table's entry for a counter name, or null for a counter it does not know.
constexpr const CounterSpec* find_counter(std::string_view name) noexcept {
  for (const CounterSpec& spec : kCounters) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

}  // namespace asyncscope::trace
