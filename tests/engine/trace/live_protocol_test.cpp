// The live wire (live_protocol.h) as a hostile or broken publisher would use
// it: after a valid hello and start, each bad frame is refused with one line
// saying what was wrong, before anything of it reaches the viewer's
// recorder, and what was accepted still reads as a model the insight can
// take. Limits (threads, lanes, names, scopes) are counts, not timings.
#include "engine/trace/live_protocol.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/trace/insight.h"
#include "engine/trace/model.h"
#include "engine/trace/model_check.h"

namespace asyncscope::trace::live {
namespace {

LiveHello hello() {
  LiveHello h;
  h.pid = 4242;
  h.title = "python3 hostile.py";
  h.origin_ns = 1'000'000'000;
  h.first_op_id = 1;
  h.counters = {"rss_bytes"};
  return h;
}

std::string frame(Frame kind, uint32_t thread, uint64_t first, uint32_t count, const std::string& payload) {
  std::string out;
  put_frame(out, kind, thread, first, count, payload);
  return out;
}

// The start of a valid stream: from the origin, names "" and "op", one thread.
std::string valid_start() {
  std::string from;
  for (int i = 0; i < 8; ++i) from.push_back(static_cast<char>(static_cast<uint64_t>(1'000'000'000) >> (8 * i)));
  return frame(Frame::start, 0, 1, 0, from) + frame(Frame::names, 0, 0, 2, std::string("\0op\0", 4)) +
         frame(Frame::thread, 0, 0, 0, "frontend");
}

EnqueueEvent enqueue(uint64_t op) {
  EnqueueEvent e;
  e.op = op;
  e.t = 1'000'000'000 + static_cast<int64_t>(op) * 1000;
  e.name = 1;
  e.num_reads = 1;
  e.num_writes = 1;
  e.inline_vars[0] = op;
  e.inline_vars[1] = op + 1;
  return e;
}

std::string enqueues(const std::vector<EnqueueEvent>& list, uint64_t first = 0) {
  std::string payload;
  for (const EnqueueEvent& e : list) encode(payload, e, 0);
  return frame(Frame::enqueues, 0, first, static_cast<uint32_t>(list.size()), payload);
}

// Feeds a valid start, a few good ops, then `bad`: it must be refused with
// `fragment`, and what came before still makes a model that keeps the rules.
void expect_refused(const std::string& bad, const std::string& fragment) {
  StreamDecoder d(hello());
  d.feed(valid_start().data(), valid_start().size());
  const std::string good = enqueues({enqueue(1), enqueue(2)});
  d.feed(good.data(), good.size());
  const size_t before = d.recorder()->threads()[0]->enqueues.size();
  try {
    d.feed(bad.data(), bad.size());
    ADD_FAILURE() << "accepted; expected a refusal with: " << fragment;
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
  }
  EXPECT_EQ(d.recorder()->threads()[0]->enqueues.size(), before) << "a refused frame left entries behind";
  const TraceModel model = snapshot(*d.recorder());
  EXPECT_EQ(first_violation(model), "");
  RunInsight insight;
  insight.update(model, true);
  // And the decoder takes nothing more.
  d.feed(good.data(), good.size());
  EXPECT_EQ(d.recorder()->threads()[0]->enqueues.size(), before);
}

TEST(LiveProtocol, AVarOffsetNearTwoToTheSixtyFourIsRefused) {
  EnqueueEvent e = enqueue(3);
  e.num_reads = 4;
  e.num_writes = 1;
  e.vars_offset = UINT64_MAX - 2;  // offset + count wraps to a small number
  expect_refused(enqueues({e}, 2), "var ids at");
}

TEST(LiveProtocol, AWaitOfAnUnknownKindIsRefused) {
  std::string payload;
  SyncEvent s{1'000'100'000, 1'000'200'000, 1, 2, SyncKind::wait_all};
  encode(payload, s);
  payload[payload.size() - 1] = static_cast<char>(200);  // its kind, the last field
  expect_refused(frame(Frame::syncs, 0, 0, 1, payload), "a wait of kind 200");
}

TEST(LiveProtocol, AnOpIdFarBeyondWhatWasEnqueuedIsRefused) {
  expect_refused(enqueues({enqueue(uint64_t{1} << 40)}, 2), "far beyond");
  std::string payload;
  encode(payload, ExecEvent{uint64_t{1} << 40, 1'000'000'000, 1'000'000'100, 0, DeviceKind::cpu, 0, OpStatus::ok,
                            SpanKind::execute});
  expect_refused(frame(Frame::execs, 0, 0, 1, payload), "far beyond");
}

TEST(LiveProtocol, WorkerLanesAreCapped) {
  // 40,000 worker ids: the first 4096 lanes are taken, the next refused.
  std::string payload;
  for (uint32_t w = 0; w < 40'000; ++w) {
    encode(payload, ExecEvent{1, 1'000'000'000, 1'000'000'001, static_cast<uint16_t>(w), DeviceKind::cuda,
                              static_cast<uint8_t>(w >> 16), OpStatus::ok, SpanKind::execute});
  }
  expect_refused(frame(Frame::execs, 0, 0, 40'000, payload), "more than 4096 worker lanes");
}

TEST(LiveProtocol, ThreadsAreCapped) {
  StreamDecoder d(hello());
  d.feed(valid_start().data(), valid_start().size());
  std::string threads;
  for (uint32_t t = 1; t < 20'000; ++t) threads += frame(Frame::thread, t, 0, 0, "t");
  try {
    d.feed(threads.data(), threads.size());
    ADD_FAILURE() << "20,000 threads accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 512 threads"), std::string::npos) << e.what();
  }
  EXPECT_EQ(d.recorder()->threads().size(), 512u);
}

TEST(LiveProtocol, EveryFieldOutOfItsRangeIsRefused) {
  const auto with = [](const std::function<void(EnqueueEvent&)>& change) {
    EnqueueEvent e = enqueue(3);
    change(e);
    return enqueues({e}, 2);
  };
  expect_refused(with([](EnqueueEvent& e) { e.name = 99; }), "before that name was sent");
  expect_refused(with([](EnqueueEvent& e) { e.device = static_cast<DeviceKind>(7); }), "device kind 7");
  expect_refused(with([](EnqueueEvent& e) { e.t = INT64_MIN + 5; }), "a time out of range");
  expect_refused(enqueues({enqueue(3)}, 5), "a gap in the enqueues");
  expect_refused(frame(Frame::enqueues, 3, 2, 1, std::string(67, '\0')), "thread 3 before its name");
  expect_refused(frame(Frame::enqueues, 0, 2, 2, std::string(67, '\0')), "does not match its 2 entries");
  std::string exec;
  encode(exec, ExecEvent{1, 1'000'000'100, 1'000'000'000, 0, DeviceKind::cpu, 0, OpStatus::ok, SpanKind::execute});
  expect_refused(frame(Frame::execs, 0, 0, 1, exec), "ends before it starts");
  exec[exec.size() - 2] = 9;  // status
  expect_refused(frame(Frame::execs, 0, 0, 1, exec), "with status 9");
  std::string scope;
  encode(scope, ScopeEvent{1'000'000'000, 1, 1});
  scope.back() = 3;
  expect_refused(frame(Frame::scopes, 0, 0, 1, scope), "enter flag is 3");
  std::string deep;
  for (int i = 0; i < 300; ++i) encode(deep, ScopeEvent{1'000'000'000, 1, 1});
  expect_refused(frame(Frame::scopes, 0, 0, 300, deep), "nested deeper");
  expect_refused(frame(Frame::counter_names, 0, 0, 9, std::string("a\0b\0c\0d\0e\0f\0g\0h\0i\0", 18)),
                 "more than 8 counters");
  expect_refused(frame(Frame::names, 0, 5, 1, std::string("x\0", 2)), "names out of order");
  expect_refused(frame(static_cast<Frame>(77), 0, 0, 0, ""), "unknown kind 77");
  expect_refused(frame(Frame::start, 0, 1, 0, std::string(8, '\0')), "a second start");
  // A header that announces 2 GiB is refused from the header alone, without waiting for (or keeping) them.
  std::string huge;
  put_header(huge, FrameHeader{static_cast<uint16_t>(Frame::names), 0, 2, 1, uint32_t{1} << 31});
  expect_refused(huge, "frame of 2147483648 bytes");
}

TEST(LiveProtocol, NothingButAStartMayComeFirst) {
  StreamDecoder d(hello());
  const std::string names = frame(Frame::names, 0, 0, 1, std::string("\0", 1));
  EXPECT_THROW(d.feed(names.data(), names.size()), ProtocolError);
}

// What arrives intact, split anywhere, is what was sent.
TEST(LiveProtocol, EntriesRoundTripFieldByFieldWhateverTheSplit) {
  std::string stream = valid_start();
  EnqueueEvent wide = enqueue(2);
  wide.num_reads = 4;
  wide.num_writes = 1;
  wide.vars_offset = 10;  // the sender's offset, counted from its var log's base (10): 0 here
  wide.out_bytes = kMaxEnqueueOutBytes;
  wide.push_ns = kMaxPushNs;
  wide.iteration = 77;
  wide.device = DeviceKind::cuda;
  wide.device_index = 3;
  wide.internal = 1;
  std::string vars, enq;
  for (uint64_t v = 0; v < 5; ++v) encode(vars, 900 + v);
  encode(enq, enqueue(1), 10);
  encode(enq, wide, 10);
  stream += frame(Frame::vars, 0, 0, 5, vars) + frame(Frame::enqueues, 0, 0, 2, enq);
  std::string sync;
  encode(sync, SyncEvent{1'000'000'500, 1'000'000'900, 901, 2, SyncKind::inflight_bound});
  stream += frame(Frame::syncs, 0, 0, 1, sync);
  std::string execs;
  encode(execs, ExecEvent{2, 1'000'000'600, 1'000'000'800, 5, DeviceKind::cuda, 3, OpStatus::skipped, SpanKind::launch});
  stream += frame(Frame::execs, 0, 0, 1, execs);
  for (const size_t split : {size_t{1}, size_t{7}, size_t{24}, stream.size()}) {
    SCOPED_TRACE(split);
    StreamDecoder d(hello());
    for (size_t at = 0; at < stream.size(); at += split) d.feed(stream.data() + at, std::min(split, stream.size() - at));
    const ThreadBuffer& t = *d.recorder()->threads()[0];
    ASSERT_EQ(t.enqueues.size(), 2u);
    const EnqueueEvent& e = t.enqueues[1];
    EXPECT_EQ(e.vars_offset, 0u);
    EXPECT_EQ(t.vars[e.vars_offset + 4], 904u);
    EXPECT_EQ(e.out_bytes, kMaxEnqueueOutBytes);
    EXPECT_EQ(e.push_ns, kMaxPushNs);
    EXPECT_EQ(e.iteration, 77u);
    EXPECT_EQ(e.device, DeviceKind::cuda);
    EXPECT_EQ(e.device_index, 3);
    EXPECT_EQ(e.internal, 1);
    EXPECT_EQ(name_of(e.name), "op");
    ASSERT_EQ(t.syncs.size(), 1u);
    EXPECT_EQ(t.syncs[0].kind, SyncKind::inflight_bound);
    EXPECT_EQ(t.syncs[0].target, 901u);
    ASSERT_EQ(t.execs.size(), 1u);
    EXPECT_EQ(t.execs[0].worker, 5);
    EXPECT_EQ(t.execs[0].status, OpStatus::skipped);
    EXPECT_EQ(t.execs[0].span, SpanKind::launch);
    EXPECT_EQ(d.ops(), 2u);
  }
}

TEST(LiveProtocol, AHelloOfAnotherProtocolIsRefusedSayingSo) {
  EXPECT_EQ(parse_hello(hello_json(hello())).pid, 4242);
  std::string old = hello_json(hello());
  old.replace(old.find("\"protocol\":2"), 12, "\"protocol\":1");
  try {
    parse_hello(old);
    ADD_FAILURE();
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("speaks live protocol 1, this viewer protocol 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_hello("{\"protocol\": 2}"), ProtocolError);
  EXPECT_THROW(parse_hello("not json"), ProtocolError);
}

}  // namespace
}  // namespace asyncscope::trace::live
