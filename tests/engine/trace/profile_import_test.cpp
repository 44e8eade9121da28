// The importers of real profilers' traces: each file of ../shared/traces
// read into the lanes and spans it holds (counted by hand from its raw
// events), the format told by content, and bad input of every kind either
// refused with one line naming the file or opened with what was skipped.
#include "engine/trace/profile.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <zlib.h>

#include "engine/trace/real_traces.h"
#include "engine/trace/trace_file.h"

namespace asyncscope::trace {
namespace {

using nlohmann::json;
using testing::raw_events;

ProfileTrace parse(const std::string& text) { return parse_profile(std::string_view(text), "t.json"); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

const SkippedEvents* skipped(const ProfileTrace& p, const std::string& reason) {
  for (const SkippedEvents& s : p.skipped) {
    if (s.reason == reason) return &s;
  }
  return nullptr;
}

struct Expected {
  const char* file;
  ProfileFormat format;
  size_t threads, streams;  // lanes with spans
};

TEST(ProfileImport, EveryRealTraceOpensWithItsFormatLanesAndSpans) {
  const Expected files[] = {
      {"event_sync.json.gz", ProfileFormat::kineto, 2, 2},
      {"event_sync_multi_stream.json.gz", ProfileFormat::kineto, 2, 4},
      {"triton_example.json.gz", ProfileFormat::kineto, 3, 1},
      {"amd_mi250_minitoy.json.gz", ProfileFormat::kineto, 3, 1},
      {"simple_add.json.gz", ProfileFormat::kineto, 2, 3},
      {"cpu_only.json.gz", ProfileFormat::kineto, 4, 0},
      {"legacy_inference.json.gz", ProfileFormat::kineto_2021, 2, 1},
      {"sampled_training.json.gz", ProfileFormat::kineto, 3, 5},
      {"mxnet_data_copy.json", ProfileFormat::mxnet, 4, 0},
      {"torch113_cpu_chapter.json", ProfileFormat::json_array, 1, 0},
  };
  for (const Expected& x : files) {
    SCOPED_TRACE(x.file);
    ASYNCSCOPE_REAL_TRACE(path, x.file);
    const ProfileTrace p = read_profile(path);
    EXPECT_EQ(p.format, x.format);
    size_t threads = 0, streams = 0;
    for (const ProfileLane& l : p.lanes) {
      if (l.spans > 0) ++(l.gpu ? streams : threads);
    }
    EXPECT_EQ(threads, x.threads);
    EXPECT_EQ(streams, x.streams);
    // By hand: every complete event (X) but the [memory] instants written as X,
    // each B/E pair, and each async b/e pair but MXNet's copies of its operators.
    const json events = raw_events(path);
    EXPECT_EQ(p.events, events.size());
    size_t spans = 0, begins = 0;
    for (const json& e : events) {
      const std::string ph = e.value("ph", "");
      if (ph == "X" && e.value("name", "") != "[memory]") ++spans;
      if (ph == "B" || (ph == "b" && e.value("cat", "") != "operator")) ++begins;
    }
    EXPECT_EQ(p.spans.size(), spans + begins);
    // Spans come sorted by lane and start, each lane's rows never overlapping.
    for (uint32_t l = 0; l < p.lanes.size(); ++l) {
      const auto [first, last] = p.lane_spans(l);
      std::map<uint16_t, int64_t> row_end;
      for (size_t i = first; i < last; ++i) {
        const ProfileSpan& s = p.spans[i];
        EXPECT_EQ(s.lane, l);
        if (i > first) {
          EXPECT_GE(s.start, p.spans[i - 1].start);
        }
        EXPECT_LT(s.row, p.lanes[l].rows);
        if (row_end.count(s.row) > 0) {
          EXPECT_GE(s.start, row_end[s.row]);
        }
        row_end[s.row] = s.end();
      }
    }
  }
}

TEST(ProfileImport, GpuOpsAreLinkedToTheirLaunchesByCorrelation) {
  ASYNCSCOPE_REAL_TRACE(path, "event_sync.json.gz");
  const ProfileTrace p = read_profile(path);
  size_t gpu_ops = 0;
  for (const ProfileSpan& s : p.spans) {
    if (!is_gpu_op(s.kind)) continue;
    ++gpu_ops;
    ASSERT_NE(s.link, kNoSpan) << p.name(s);
    const ProfileSpan& launch = p.spans[s.link];
    EXPECT_EQ(launch.correlation, s.correlation);
    EXPECT_EQ(launch.link, static_cast<uint32_t>(&s - p.spans.data()));
    EXPECT_FALSE(p.lanes[launch.lane].gpu);
  }
  EXPECT_EQ(gpu_ops, 5u);  // 4 kernels and a copy
  EXPECT_EQ(p.flows_used, 0u);
}

TEST(ProfileImport, FlowsLinkLaunchesWhenTheCorrelationIsMissing) {
  // A launch and a kernel without args.correlation, tied by an ac2g flow only.
  const std::string text = R"({"schemaVersion":1,"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":9,"pid":1,"tid":1,"ts":10},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":3},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":9,"pid":0,"tid":7,"ts":20,"bp":"e"}]})";
  const ProfileTrace p = parse(text);
  ASSERT_EQ(p.spans.size(), 2u);
  EXPECT_EQ(p.flows_used, 1u);
  const ProfileSpan& kernel = p.spans[1];
  ASSERT_EQ(kernel.kind, EventKind::kernel);
  EXPECT_EQ(kernel.link, 0u);
  EXPECT_EQ(p.spans[0].link, 1u);
}

TEST(ProfileImport, TimesKeepNanosecondsFromFractionalAndStringTimestamps) {
  const std::string text = R"({"baseTimeNanoseconds":1700000000000000000,"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":"100.125","dur":"2.5"},
    {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":103.0005,"dur":1}]})";
  const ProfileTrace p = parse(text);
  ASSERT_EQ(p.spans.size(), 2u);
  EXPECT_EQ(p.spans[0].start, 0);
  EXPECT_EQ(p.spans[0].dur, 2500);
  EXPECT_EQ(p.spans[1].start, 2876);  // 103.0005 us rounds to 103.001
  EXPECT_EQ(p.origin_ns, 1700000000000000000 + 100125);
  EXPECT_EQ(p.format, ProfileFormat::kineto);
}

TEST(ProfileImport, OverlappingSpansOnAStreamGetSubRowsNotDropped) {
  const std::string text = R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":5,"dur":10},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":12,"dur":2}]})";
  const ProfileTrace p = parse(text);
  ASSERT_EQ(p.spans.size(), 3u);
  EXPECT_EQ(p.lanes[0].rows, 2u);
  EXPECT_EQ(p.spans[0].row, 0);
  EXPECT_EQ(p.spans[1].row, 1);
  EXPECT_EQ(p.spans[2].row, 0);
  EXPECT_TRUE(p.spans[0].top);
  EXPECT_FALSE(p.spans[2].top);  // inside b
}

TEST(ProfileImport, MxnetPairsUnsortedBeginsAndEndsAndKeepsHugeThreadIds) {
  ASYNCSCOPE_REAL_TRACE(path, "mxnet_data_copy.json");
  const ProfileTrace p = read_profile(path);
  EXPECT_EQ(p.format, ProfileFormat::mxnet);
  EXPECT_TRUE(p.skipped.empty());
  std::set<std::string> names;
  for (const ProfileLane& l : p.lanes) names.insert(l.name);
  // 64-bit unsigned tids kept exactly (a double would round them).
  EXPECT_TRUE(names.count("gpu/0 thread 13084354670121613409")) << *names.begin();
  EXPECT_TRUE(names.count("MXNET_C_API thread 602310518397221010"));
  // Counters: MXNet's memory per device and its C API counts.
  std::set<std::string> counters;
  for (const ProfileCounter& c : p.counters) counters.insert(c.name);
  EXPECT_TRUE(counters.count("Memory: gpu/0"));
  EXPECT_TRUE(counters.count("Memory: cpu/0"));
}

TEST(ProfileImport, TheJsonArrayFormatSaysWhatItCannotShow) {
  ASYNCSCOPE_REAL_TRACE(path, "torch113_cpu_chapter.json");
  const ProfileTrace p = read_profile(path);
  EXPECT_EQ(p.format, ProfileFormat::json_array);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("without Kineto"), std::string::npos) << p.notes[0];
  for (const ProfileSpan& s : p.spans) EXPECT_EQ(s.kind, EventKind::cpu_op);
}

TEST(ProfileImport, AnyOtherChromeTraceOpensAsLanesAndSpansAndSaysSo) {
  const ProfileTrace p = parse(R"({"traceEvents":[{"ph":"X","cat":"v8","name":"Parse","pid":3,"tid":4,"ts":1,"dur":2},
    {"ph":"B","name":"outer","pid":3,"tid":4,"ts":0},{"ph":"E","pid":3,"tid":4,"ts":9}]})");
  EXPECT_EQ(p.format, ProfileFormat::chrome);
  EXPECT_EQ(p.spans.size(), 2u);
  ASSERT_FALSE(p.notes.empty());
  EXPECT_NE(p.notes[0].find("lanes and spans only"), std::string::npos);
}

TEST(ProfileImport, BadEventsAreSkippedAndCountedByReason) {
  const std::string text = R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"ok","pid":1,"tid":1,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"neg","pid":1,"tid":1,"ts":0,"dur":-5},
    {"ph":"X","cat":"cpu_op","name":"nodur","pid":1,"tid":1,"ts":0},
    {"ph":"X","cat":"cpu_op","name":"badts","pid":1,"tid":1,"ts":"soon","dur":1},
    {"ph":"X","cat":"cpu_op","name":"objts","pid":1,"tid":1,"ts":{"a":1},"dur":1},
    {"ph":"X","cat":7,"name":"badcat","pid":1,"tid":1,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"badpid","pid":[1],"tid":1,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"bigts","pid":1,"tid":1,"ts":1e300,"dur":1},
    {"ph":"X","cat":"mystery","name":"unknown category","pid":1,"tid":1,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"hugeids","pid":18446744073709551615,"tid":18446744073709551615,"ts":0,"dur":1,
     "args":{"correlation":18446744073709551615}},
    {"ph":"E","name":"lonely end","pid":1,"tid":2,"ts":3},
    {"ph":"B","name":"lonely begin","pid":1,"tid":3,"ts":3},
    {"cat":"cpu_op","name":"noph","pid":1,"tid":1,"ts":0,"dur":1},
    {"ph":"Q","name":"odd phase","pid":1,"tid":1,"ts":0},
    [1,2,3], 17, null
  ]})";
  const ProfileTrace p = parse(text);
  EXPECT_EQ(p.spans.size(), 3u);  // ok, unknown category (kind other), huge ids
  EXPECT_EQ(p.events, 17u);
  for (const auto& [reason, count] : std::map<std::string, uint64_t>{{"negative dur", 1},
                                                                     {"an X event without dur", 1},
                                                                     {"ts not a number", 1},
                                                                     {"ts of the wrong type", 1},
                                                                     {"cat of the wrong type", 1},
                                                                     {"pid of the wrong type", 1},
                                                                     {"ts out of range", 1},
                                                                     {"an E without its B", 1},
                                                                     {"a B without its E", 1},
                                                                     {"no ph", 1},
                                                                     {"ph 'Q' (not drawn)", 1},
                                                                     {"an event that is not an object", 3}}) {
    const SkippedEvents* s = skipped(p, reason);
    ASSERT_NE(s, nullptr) << reason;
    EXPECT_EQ(s->count, count) << reason;
  }
  EXPECT_EQ(skipped(p, "negative dur")->first_name, "neg");
  EXPECT_EQ(skipped(p, "negative dur")->first_event, 1u);
  EXPECT_EQ(p.skipped_count(), 14u);
}

TEST(ProfileImport, WhatIsNotATraceIsRefusedWithOneLine) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "t.json: not valid JSON"},
           {"{\"traceEvents\":[", "t.json: not valid JSON"},
           {"{\"a\":1}", "t.json: no traceEvents array: not a trace"},
           {"{\"traceEvents\":7}", "t.json: traceEvents is not an array"},
           {"{\"traceEvents\":[],\"traceEvents\":[]}", "t.json: traceEvents appears twice"},
           {"\"text\"", "t.json: no traceEvents array: not a trace"},
       }) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind(expected, 0), 0u) << "for " << text << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(ProfileImport, OurOwnExportIsRecognisedWhereverItsMetadataIs) {
  EXPECT_THROW(parse(R"({"traceEvents":[],"otherData":{"asyncscope_version":5}})"), AsyncscopeExport);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("asyncscope_profile_" + name)).string();
}

void write_gz(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(f);
}

std::string read_error(const std::string& path) {
  try {
    read_profile(path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ProfileImport, GzipIsReadAsItIsParsedAndBadGzipIsOneLine) {
  const std::string text = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]})";
  const std::string good = temp_path("good.json.gz");
  write_gz(good, text);
  EXPECT_EQ(read_profile(good).spans.size(), 1u);
  // The name does not matter: content decides.
  const std::string renamed = temp_path("renamed.txt");
  std::filesystem::copy_file(good, renamed, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(read_profile(renamed).spans.size(), 1u);
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string truncated = temp_path("truncated.json.gz");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  EXPECT_EQ(read_error(truncated),
            "cannot read trace '" + truncated + "': the gzip data is truncated (the file ends inside it)");
  std::string corrupt = bytes;
  for (size_t i = 12; i < corrupt.size() - 8; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  const std::string bad = temp_path("corrupt.json.gz");
  std::ofstream(bad, std::ios::binary) << corrupt;
  const std::string e = read_error(bad);
  EXPECT_EQ(e.rfind("cannot read trace '" + bad + "': the gzip data is corrupt", 0), 0u) << e;
  for (const std::string& p : {good, renamed, truncated, bad}) std::filesystem::remove(p);
}

TEST(ProfileImport, ADecompressionBombIsRefusedAtTheCapOnText) {
  // 8 MB of spaces compress to a few KB; the cap (here 1 MB) is on the text.
  const std::string bomb = temp_path("bomb.json.gz");
  write_gz(bomb, "[" + std::string(8 << 20, ' ') + "]");
  EXPECT_LT(std::filesystem::file_size(bomb), 64u << 10);
  TraceFile file(bomb, 1 << 20);
  EXPECT_TRUE(file.compressed());
  try {
    parse_profile(file.stream(), "bomb");
    ADD_FAILURE() << "the bomb was read";
  } catch (const TraceReadError& e) {
    EXPECT_STREQ(e.what(), "it decompresses to more than 1048576 bytes, the most a trace may have");
  }
  std::filesystem::remove(bomb);
}

TEST(ProfileImport, TraceFileHeadDoesNotConsumeTheText) {
  const std::string path = temp_path("head.json.gz");
  write_gz(path, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]");
  TraceFile file(path);
  EXPECT_EQ(file.head(2), "[{");
  EXPECT_EQ(parse_profile(file.stream(), "h").spans.size(), 1u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace asyncscope::trace
