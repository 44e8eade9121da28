// A real profiler's trace as the TraceModel the widgets draw, and
// open_trace telling our own exports from profilers' traces by content.
#include "engine/trace/profile_model.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <zlib.h>

#include "engine/trace/chrome_trace.h"
#include "engine/trace_record/counters.h"
#include "engine/trace/insight.h"
#include "engine/trace/model_check.h"
#include "engine/trace/real_traces.h"

namespace asyncscope::trace {
namespace {

const char* const kRealTraces[] = {"event_sync.json.gz",       "event_sync_multi_stream.json.gz",
                                   "triton_example.json.gz",   "amd_mi250_minitoy.json.gz",
                                   "simple_add.json.gz",       "cpu_only.json.gz",
                                   "legacy_inference.json.gz", "sampled_training.json.gz",
                                   "mxnet_data_copy.json",     "torch113_cpu_chapter.json"};

TEST(ProfileModel, EveryRealTraceMapsToAModelThatKeepsTheRules) {
  for (const char* name : kRealTraces) {
    SCOPED_TRACE(name);
    ASYNCSCOPE_REAL_TRACE(path, name);
    const OpenedTrace t = open_trace(path);
    ASSERT_TRUE(t.foreign());
    EXPECT_EQ(first_violation(t.model), "");
    // Every span is an op on a lane, none lost.
    size_t on_lanes = 0;
    for (const WorkerLane& w : t.model.workers) on_lanes += w.ops.size();
    EXPECT_EQ(on_lanes, t.profile->spans.size());
    EXPECT_EQ(t.model.ops.size(), t.profile->spans.size());
    // The insight reads it whole without complaint, and the export writes and reads it back.
    RunInsight insight;
    insight.update(t.model, true);
    EXPECT_EQ(parse_chrome_trace(to_chrome_trace_json(t.model)).ops.size(), t.model.ops.size());
  }
}

TEST(ProfileModel, LaunchesAreEnqueuesAndGpuOpsRunOnTheirStreams) {
  ASYNCSCOPE_REAL_TRACE(path, "event_sync.json.gz");
  const OpenedTrace t = open_trace(path);
  const TraceModel& m = t.model;
  ASSERT_EQ(m.frontends.size(), 1u);
  EXPECT_EQ(m.frontends[0].name, "thread 948300 (python3.10)");
  EXPECT_EQ(m.frontends[0].enqueues.size(), 5u);
  for (uint32_t i : m.frontends[0].enqueues) {
    const OpInfo& op = m.ops[i];
    const ProfileSpan& s = t.profile->spans[i];
    const ProfileSpan& launch = t.profile->spans[s.link];
    EXPECT_EQ(op.enqueue, launch.start);
    EXPECT_EQ(op.push_ns, static_cast<uint32_t>(launch.dur));
    EXPECT_EQ(op.device, DeviceKind::cuda);
    EXPECT_EQ(m.workers[op.worker].name, "GPU 0 stream 7");
  }
  // Its synchronising calls are the frontend's waits.
  ASSERT_EQ(m.frontends[0].syncs.size(), 3u);
  EXPECT_EQ(m.syncs[m.frontends[0].syncs[0]].kind, SyncKind::wait_to_read);  // cudaStreamSynchronize
  EXPECT_EQ(m.syncs[m.frontends[0].syncs.back()].kind, SyncKind::wait_all);   // cudaDeviceSynchronize
  // The queue depth counter follows the stream's queue.
  ASSERT_GE(m.counter_index(kQueueCounter), 0);
  EXPECT_EQ(m.counter_peak(kQueueCounter), 1);
}

TEST(ProfileModel, OverlappingSpansBecomeSubRowLanes) {
  ASYNCSCOPE_REAL_TRACE(path, "sampled_training.json.gz");
  const OpenedTrace t = open_trace(path);
  size_t rows = 0;
  for (const ProfileLane& l : t.profile->lanes) rows += l.spans > 0 ? l.rows : 0;
  EXPECT_EQ(t.model.workers.size(), rows);
  bool sub_row = false;
  for (const WorkerLane& w : t.model.workers) sub_row = sub_row || w.name.rfind("  row 2 of ", 0) == 0;
  EXPECT_TRUE(sub_row);
}

TEST(ProfileModel, MemoryEventsBecomeLiveBytesCounters) {
  const OpenedTrace t = open_trace(std::string(ASYNCSCOPE_TEST_TRACES) + "/torch211_h200_chapter_cuda.json.gz");
  ASSERT_GE(t.model.counter_index(kDeviceLiveCounter), 0);
  int64_t cuda_peak = 0;
  for (const DeviceMemorySeries& d : t.figures->memory) {
    if (d.device_type == 1) cuda_peak = d.peak_bytes;
  }
  EXPECT_EQ(t.model.counter_peak(kDeviceLiveCounter), cuda_peak);
}

TEST(ProfileModel, OurOwnExportsOpenAsOursCompressedOrNot) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string plain = dir + "/asyncscope_own.json", packed = dir + "/asyncscope_own.json.gz";
  ASYNCSCOPE_REAL_TRACE(source, "event_sync.json.gz");
  const TraceModel model = open_trace(source).model;
  write_chrome_trace(model, plain);
  const std::string text = to_chrome_trace_json(model);
  gzFile f = gzopen(packed.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  for (const std::string& p : {plain, packed}) {
    const OpenedTrace t = open_trace(p);
    EXPECT_FALSE(t.foreign());
    EXPECT_EQ(t.format_key(), "asyncscope");
    EXPECT_EQ(t.model.ops.size(), model.ops.size());
    std::filesystem::remove(p);
  }
}

TEST(ProfileModel, ABadFileIsOneLineNamingIt) {
  const std::string path = std::filesystem::temp_directory_path().string() + "/asyncscope_bad_trace.json";
  std::ofstream(path) << "{\"traceEvents\": [ {\"ph\": ";
  try {
    open_trace(path);
    ADD_FAILURE() << "opened";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("'" + path + "': not valid JSON", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace asyncscope::trace
