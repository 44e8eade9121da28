// The live stream's wire format (live.h): versioned, every field encoded
// explicitly (little-endian, fixed widths, no struct's raw bytes), so that
// changing the recorder's structs never changes the wire unnoticed, and
// every field, enum, index and count a publisher sends is checked before a
// viewer uses it.
//
// A stream is a sequence of frames, each a 24-byte header and `bytes` of
// payload:
//   u16 kind, u16 reserved (0), u32 thread, u64 first, u32 count, u32 bytes
// The publisher speaks first: a hello (JSON: who it is, kProtocol), or a
// refusal. A viewer that follows then sends a request (`first`: the steady
// clock ns from which it wants the run, 0 for all of it); one that only
// looks (a listing) closes. The publisher answers with a start frame
// (`first`: the first op id of what it sends; payload: i64 the instant the
// stream starts from) and then the run's events: names, threads, each
// thread's logs (enqueues, var ids, executions, waits, markers, source
// lines, scopes) as runs of entries from `first` on, counters, errors, a
// status (events its recorder dropped), and an end. Log indices count from
// the start of the stream, not of the run.
//
// StreamDecoder is the viewer's side: it takes bytes as they arrive, checks
// each frame against the protocol and against the limits (threads, lanes,
// names, bytes: whatever a hostile or broken publisher sends costs the
// viewer bounded memory and time), and appends what it accepts to a
// recorder of its own. A frame it refuses ends the stream with one line
// saying why. The encoders are the publisher's side.
//
// Threading: a StreamDecoder is used by one thread at a time; the
// encoders are pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/trace_record/events.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {

// What a publisher says about itself when a viewer connects.
struct LiveHello {
  int pid = 0;
  uint32_t uid = 0;
  std::string title;    // what the program calls itself ("python3 train.py")
  std::string command;  // its command line, arguments separated by spaces
  std::string cwd;      // its working directory (relative source paths are from here)
  int64_t started_unix_ms = 0;  // when it started publishing (wall clock)
  int64_t origin_ns = 0;        // its recorder's origin (steady clock: the same on one machine)
  uint64_t first_op_id = 1;
  std::vector<std::string> counters;  // its recorder's counter names
};

// A stream that breaks the protocol or the limits: one line, for the user.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace live {

// The version of the wire; a viewer refuses another.
inline constexpr int kProtocol = 2;

enum class Frame : uint16_t {
  hello = 1,      // payload: JSON (LiveHello and "protocol")
  refusal,        // payload: why the viewer is refused; the publisher closes
  request,        // viewer -> publisher: first = from which steady ns (0: all)
  start,          // first: the first op id sent; payload: i64 the instant the stream starts from
  names,          // first: the first name id; count names, each ended by '\0'
  thread,         // thread: its index; payload: its name
  enqueues,       // log frames: `count` entries of thread `thread`'s log from entry `first` on
  vars,
  execs,
  syncs,
  markers,
  sources,
  scopes,
  counters,       // count samples from `first` on
  counter_names,  // payload: names, each ended by '\0'
  error,          // first: the op; payload: its error text
  status,         // first: events the publisher's recorder dropped so far
  end,            // payload: why the stream ends; the publisher closes
};

inline constexpr size_t kHeaderBytes = 24;

struct FrameHeader {
  uint16_t kind = 0;
  uint32_t thread = 0;
  uint64_t first = 0;
  uint32_t count = 0;
  uint32_t bytes = 0;
};

// What one viewer accepts from one publisher, at most.
struct Limits {
  size_t max_payload = size_t{16} << 20;      // bytes of one frame's payload (a round is ~2 MB a log)
  size_t max_hello = size_t{1} << 20;         // bytes of the hello
  size_t max_threads = 512;                   // threads (each costs its buffer's directories)
  size_t max_lanes = 4096;                    // distinct worker lanes (device, index, worker, span)
  size_t max_names = size_t{1} << 20;         // distinct names
  size_t max_name_bytes = size_t{64} << 20;   // all names' bytes together
  size_t max_name_length = size_t{64} << 10;  // one name, thread name or message
  size_t max_error_bytes = size_t{64} << 20;  // all error texts together
  uint64_t max_ops_ahead = uint64_t{1} << 20; // op ids beyond the enqueues received (ops are dense)
  uint64_t max_bytes = uint64_t{4} << 30;     // bytes received in all
  size_t max_scope_depth = 256;               // scopes one thread is in at once
  uint64_t max_ops = 0;                       // ops kept (0: no bound); the stream stops there
};

void put_header(std::string& out, const FrameHeader& header);
FrameHeader get_header(const char* data) noexcept;  // kHeaderBytes of them
void put_frame(std::string& out, Frame kind, uint32_t thread, uint64_t first, uint32_t count, std::string_view payload);

// The size of one entry of a log frame on the wire (0 for other kinds).
size_t entry_bytes(Frame kind) noexcept;

// Entries encoded one by one, appended to `out`.
void encode(std::string& out, const EnqueueEvent& e, uint64_t vars_base);  // vars_offset counted from vars_base
void encode(std::string& out, uint64_t var_id);
void encode(std::string& out, const ExecEvent& e);
void encode(std::string& out, const SyncEvent& e);
void encode(std::string& out, const MarkerEvent& e);
void encode(std::string& out, const SourceEvent& e);
void encode(std::string& out, const ScopeEvent& e);
void encode(std::string& out, const CounterSample& e);

// The hello a publisher sends, and a viewer's reading of one: throws
// ProtocolError ("speaks live protocol 1, this viewer 2: ...", a missing or
// malformed field, a field beyond the limits).
std::string hello_json(const LiveHello& hello);
LiveHello parse_hello(std::string_view payload, const Limits& limits = {});

// The viewer's side of a stream (see above).
class StreamDecoder {
 public:
  explicit StreamDecoder(const LiveHello& hello, Limits limits = {});

  // Takes the next bytes of the stream (any split): complete frames are
  // checked and applied, a partial one is kept for the next call. Throws
  // ProtocolError naming the frame and what was wrong; after that the
  // decoder takes nothing more.
  void feed(const char* data, size_t bytes);
  // One frame, header already split off (what feed() does per frame).
  void apply(const FrameHeader& header, const char* payload);

  const std::shared_ptr<Recorder>& recorder() const noexcept { return recorder_; }
  bool started() const noexcept { return started_; }
  bool ended() const noexcept { return ended_; }
  // Limits::max_ops ops arrived: the rest of the stream is not taken.
  bool full() const noexcept { return full_; }
  // Why the publisher ended the stream (its own words, as sent).
  const std::string& end_reason() const noexcept { return end_reason_; }
  // The instant (the publisher's steady ns) the stream starts from: the run's
  // origin when it sends all of it.
  int64_t from_ns() const noexcept { return from_ns_; }
  uint64_t dropped() const noexcept { return dropped_; }
  uint64_t bytes() const noexcept { return bytes_; }
  // Ops enqueued in what arrived (every op has one enqueue).
  uint64_t ops() const noexcept { return enqueued_; }

 private:
  struct Thread {
    ThreadBuffer* buffer = nullptr;
    uint64_t enqueues = 0, vars = 0, execs = 0, syncs = 0, markers = 0, sources = 0, scopes = 0;
    std::vector<size_t> scope_lengths;  // the names' lengths of the scopes it is in
    size_t scope_bytes = 0;
  };
  Thread& thread(uint32_t index);
  void names(const FrameHeader& h, const char* payload);
  void check_time(int64_t t, const char* what) const;
  void check_op(uint64_t op, const char* what) const;
  void check_name(NameId name, const char* what) const;

  const LiveHello hello_;
  const Limits limits_;
  std::shared_ptr<Recorder> recorder_;
  std::string pending_;  // a partial frame
  bool failed_ = false, started_ = false, ended_ = false, full_ = false;
  std::string end_reason_;
  int64_t from_ns_ = 0;
  uint64_t first_op_ = 1;
  uint64_t enqueued_ = 0;  // enqueues received, of all threads
  uint64_t dropped_ = 0, bytes_ = 0;
  size_t name_bytes_ = 0, error_bytes_ = 0;
  std::vector<NameId> names_;  // remote name id -> this process's
  std::vector<size_t> name_lengths_;  // remote name id -> its length
  std::vector<Thread> threads_;
  std::set<std::tuple<uint8_t, uint8_t, uint16_t, uint8_t>> lanes_;  // (device, index, worker, span)
  size_t counters_ = 0;  // samples received
};

}  // namespace live
}  // namespace asyncscope::trace
