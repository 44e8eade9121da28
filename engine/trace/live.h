// Live attach: a process that records a trace (a Python program that imports
// asyncscope, a notebook's kernel) publishes it while it records, and a
// viewer in another process of the same user (the app's File > Attach to
// process, `asyncscope attach`) follows it as it grows.
//
// Transport: one Unix domain socket per publishing process, DIR/PID.sock,
// where DIR is publish_directory(): $XDG_RUNTIME_DIR/asyncscope, or
// asyncscope-UID under the temporary directory when XDG_RUNTIME_DIR is unset.
// The folder is made with mode 0700 and used only while it is a real
// directory owned by this user with no access for anyone else; the socket is
// 0600; and each side checks the other's credentials (SO_PEERCRED), so
// another user can neither attach nor pose as a publisher.
//
// What travels (live_protocol.h: versioned, every field encoded and checked):
// the recorder's logs, read by the server's own thread as any reader reads
// them (the program's threads never wait for it), in rounds of bounded size
// while the viewer takes them, from the instant the viewer asked for (the
// run's start, or a few seconds before it attached). The server keeps at most
// kMaxPendingBytes unsent per viewer and never waits for one: a slow viewer
// falls behind and catches up (the program's recorder keeps every event
// anyway, so nothing is lost on the way), a vanished one is dropped. Events
// the program's recorder itself dropped (its bounds) are counted, and the
// viewer's recorder reports them in dropped(). When the program ends, the
// server sends what is left within a deadline and says so; a viewer sees a
// process that vanished without saying so as lost.
//
// A viewer cannot cripple the program either: at most kMaxConnections at
// once, each closed if it has not asked for the stream within
// kRequestDeadline, accept errors (no descriptors left) backed off instead
// of retried at once. And a program cannot crash or exhaust its viewer:
// every frame is checked, and what one publisher may send is bounded
// (live::Limits).
//
// Threading: LiveServer and LiveClient from any one thread each (each runs
// a thread of its own); the free functions from any thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/trace/live_protocol.h"
#include "engine/trace_record/recorder.h"

namespace asyncscope::trace {

// Why publishing or attaching cannot go on: one line, for the user.
class LiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The folder the sockets live in (see above), made if missing. `create`:
// make it when missing (a publisher); a viewer only looks. Throws LiveError
// when it is not private to this user (not a directory, a link, another
// owner, access for group or others).
std::string publish_directory(bool create = true);

// Unsent bytes a server keeps per viewer, at most (one round more: rounds are bounded too).
inline constexpr size_t kMaxPendingBytes = size_t{4} << 20;
// Connections a server keeps at once (viewers, listings); more are refused.
inline constexpr size_t kMaxConnections = 16;
// What a viewer asks for of the time before it attached, unless it asks for
// all of it (the app's attach, `asyncscope attach`): enough to see what the
// program was doing, bounded however fast or long it has recorded.
inline constexpr std::chrono::seconds kDefaultCatchUp{2};
// A connection that has not said what it wants (follow, from when) by then is closed.
inline constexpr std::chrono::milliseconds kRequestDeadline{5000};

// Publishes a recorder at DIR/PID.sock until finish() or destruction.
class LiveServer {
 public:
  struct Options {
    std::string directory;  // "" = publish_directory()
    std::string title;      // "" = the process's name
    // A round of the logs is read this often while a viewer follows.
    std::chrono::milliseconds round{20};
    // A connection that has not asked for the stream by then is closed.
    std::chrono::milliseconds request_deadline = kRequestDeadline;
  };
  // Starts publishing: the socket is made (a stale one of this pid, and of
  // processes that no longer exist, removed) and the server's thread waits
  // for viewers. Throws LiveError with the reason.
  LiveServer(std::shared_ptr<const Recorder> recorder, Options options);
  ~LiveServer();  // finish() with no time to send the rest
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  const std::string& path() const noexcept { return path_; }
  // Sends viewers what is left, for at most `limit`, tells them the program
  // ended (`reason`), closes them and removes the socket. Idempotent. In a
  // forked child (the server belongs to its parent) it does nothing.
  void finish(std::chrono::milliseconds limit, const std::string& reason = "the program ended");

  // Viewers following now (not those that only looked, as a listing does).
  size_t viewers() const noexcept { return viewers_.load(std::memory_order_relaxed); }
  // Connections refused: from another user, beyond kMaxConnections, or
  // closed for not asking in time.
  uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }
  // Bytes sent to viewers so far.
  uint64_t bytes_sent() const noexcept { return bytes_sent_.load(std::memory_order_relaxed); }

 private:
  struct Viewer;
  void serve();
  void accept_viewers(int64_t now);
  // Reads what a viewer sent: its request starts its stream.
  void read_request(Viewer& viewer);
  // Where `viewer`'s stream starts: every log's first entry at or after `from_ns`.
  void start_stream(Viewer& viewer, int64_t from_ns);
  // Queues the next round of events for `viewer`; false when there was nothing new.
  bool fill_round(Viewer& viewer);

  const std::shared_ptr<const Recorder> recorder_;
  const Options options_;
  const pid_t owner_;
  std::string path_;
  std::string hello_;  // the hello frame, sent to every viewer
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: finish() wakes the thread
  int64_t accept_paused_until_ = 0;  // the server's thread: after an accept error
  std::thread thread_;
  std::mutex finish_mutex_;
  std::atomic<bool> finishing_{false};
  std::atomic<int64_t> deadline_ns_{0};
  std::string end_reason_;  // set before finishing_
  bool finished_ = false;   // guarded by finish_mutex_
  std::atomic<size_t> viewers_{0};
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> bytes_sent_{0};
  std::vector<std::unique_ptr<Viewer>> list_;  // the server's thread only
};

// A publisher found in the folder.
struct Publisher {
  std::string path;
  LiveHello hello;
};

// The processes that publish now, by pid. Sockets nobody listens on (their
// process ended without removing them) are removed and, when `removed` is
// given, named there.
std::vector<Publisher> list_publishers(const std::string& directory = "",
                                       std::vector<std::string>* removed = nullptr);

// Checks that process `pid` publishes (in `directory`, "" =
// publish_directory()) and reads its hello, without following it: throws
// the LiveError that attaching would.
LiveHello probe_publisher(int pid, const std::string& directory = "");

// Follows one publishing process: its events arrive in recorder(), a
// recorder of this process made for them (same origin, same op ids, lanes
// named as there), so whatever reads a live run reads it unchanged.
class LiveClient {
 public:
  enum class State {
    streaming,  // connected, events arriving
    ended,      // the program said it ended; everything it recorded arrived
    lost,       // the connection broke without an end (the process was killed?)
    detached    // detach() was called
  };

  struct Options {
    std::string directory;  // "" = publish_directory()
    // The publisher's steady-clock instant from which to receive the run
    // (0: all of it, from its start); the same clock here, one machine.
    int64_t from_ns = 0;
    live::Limits limits;
  };
  // Connects to process `pid`, checks that it belongs to this user, reads
  // its hello, asks for the stream and starts receiving. Throws LiveError
  // (no such publisher, a stale socket (then removed), refused, another
  // version).
  explicit LiveClient(int pid, const std::string& directory = "");
  LiveClient(int pid, Options options);
  ~LiveClient();  // detach()
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  const LiveHello& hello() const noexcept { return hello_; }
  const std::shared_ptr<Recorder>& recorder() const noexcept { return recorder_; }
  State state() const noexcept { return state_.load(std::memory_order_acquire); }
  // Why it is no longer streaming ("" while it is).
  std::string message() const;
  uint64_t bytes_received() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  // Ops whose enqueue arrived so far.
  uint64_t ops_received() const noexcept { return ops_.load(std::memory_order_relaxed); }
  // Events the program dropped (its recorder's bounds), as last reported.
  uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  // The publisher's steady-clock instant the stream starts from (its
  // origin when it sends the whole run); 0 until its start frame arrived.
  int64_t from_ns() const noexcept { return from_ns_.load(std::memory_order_acquire); }
  // Disconnects (the program goes on); the events received stay.
  void detach();
  // Waits up to `limit` for the stream to end; whether it did.
  bool wait_for_end(std::chrono::milliseconds limit) const;

 private:
  void receive();
  void end(State state, std::string message);

  LiveHello hello_;
  std::unique_ptr<live::StreamDecoder> decoder_;  // the receiving thread's
  std::shared_ptr<Recorder> recorder_;
  int fd_ = -1;
  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<State> state_{State::streaming};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<int64_t> from_ns_{0};
  std::atomic<uint64_t> ops_{0};
  mutable std::mutex mutex_;  // guards message_
  std::string message_;
};

const char* to_string(LiveClient::State state) noexcept;

}  // namespace asyncscope::trace
