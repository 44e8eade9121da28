// `asyncscope attach`: follows a program that publishes its trace live
// (engine/trace/live.h): lists them, opens the app attached to one, or
// follows one headless for a while and writes or describes what arrived.
// Exit code: 0; 2 with one line on err for bad input (a PID that is not a
// number, --seconds not a finite number), a program that does not publish
// (or cannot be attached to), an output that cannot be written; 128 + the
// signal after Ctrl+C (what arrived is still written, unless the signal
// came during the write, which it then abandons).
#include "app/cli/command.h"
#include "app/cli/commands.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <ostream>
#include <thread>
#include <vector>

#include "app/cli/report.h"
#include "app/interrupt.h"
#include "engine/base/format.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/live.h"
#include "engine/trace/model.h"

namespace asyncscope::app {
namespace {

// What a headless attach keeps at most unless told otherwise (--max-ops):
// beyond it, it stops following and says so, so that --seconds S is over
// within S + 5 s whatever the program's rate (writing and describing what
// arrived included: a Chrome trace is about 1.5 KB an op).
constexpr uint64_t kMaxAttachOps = 250'000;

struct AttachRequest {
  std::string pid;       // as given; "": the only program that publishes
  bool list = false;     // list the publishers and exit
  bool headless = false; // follow here (--seconds, --trace, --print, --max-ops) instead of opening the app
  double seconds = 0;    // headless: at most this long (0: until the program ends, or Ctrl+C)
  bool from_start = false;  // everything since the program started (else from trace::kDefaultCatchUp before)
  uint64_t max_ops = 0;  // headless: ops kept at most (0: kMaxAttachOps)
  std::string trace;     // headless: write what arrived here
  bool print = false;    // headless: describe what arrived
  GuiRequest gui;        // the window's options (--screenshot, --quit-after-run, --tab)
};

std::string started_text(int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  char text[32] = "";
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", std::localtime(&t));
  return text;
}

void print_publishers(std::ostream& out, const std::vector<trace::Publisher>& found) {
  for (const trace::Publisher& p : found) {
    out << p.hello.pid << "  " << quote(p.hello.title) << "  since " << started_text(p.hello.started_unix_ms) << "  "
        << quote(p.hello.command) << '\n';
  }
}

// say() names the program itself.
std::string without_prefix(const std::string& message) {
  const std::string prefix = "asyncscope: ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// "12345" as a pid; 0 for anything else.
int parse_pid(const std::string& text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), ::isdigit)) return 0;
  return std::stoi(text);
}

// "the run from 12.5 s to 14.5 s (ops 1,024 to 2,047)": what a trace received live holds.
std::string held(const trace::TraceModel& model, const trace::LiveClient& client) {
  int64_t first_ns = -1;
  uint64_t first_op = 0, last_op = 0;
  for (const trace::OpInfo& op : model.ops) {
    if (!op.known() || op.enqueue == trace::kNoTime) continue;
    if (first_ns < 0) first_ns = op.enqueue, first_op = op.id;
    last_op = op.id;
  }
  const int64_t from = std::max<int64_t>(0, client.from_ns() - client.hello().origin_ns);
  std::string text = "the run from " + format_value(static_cast<double>(from) * 1e-9, "s") + " to " +
                     format_value(static_cast<double>(std::max(from, model.end_time())) * 1e-9, "s") + " of its clock";
  if (first_ns >= 0) text += " (ops " + std::to_string(first_op) + " to " + std::to_string(last_op) + ")";
  return text;
}

int attach(AttachRequest request, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  try {
    int pid = 0;
    if (!request.pid.empty()) {
      pid = parse_pid(request.pid);
      if (pid <= 0) {
        say(err, "PID " + quote(request.pid) + ": expected a process id (a number); 'asyncscope attach --list' shows them");
        return 2;
      }
    }
    if (!std::isfinite(request.seconds) || request.seconds < 0 || request.seconds > 1e6) {
      say(err, "--seconds: expected a number of seconds from 0 to 1000000");
      return 2;
    }
    if (request.list || pid == 0) {
      std::vector<std::string> removed;
      const std::vector<trace::Publisher> found = trace::list_publishers("", &removed);
      if (request.list) {
        if (found.empty()) out << "No program of this user publishes its trace (start one with ASYNCSCOPE_SERVE=1).\n";
        print_publishers(out, found);
        for (const std::string& path : removed) out << "(removed a stale socket: " << quote(path) << ")\n";
        return 0;
      }
      if (found.empty()) {
        say(err, "no program of this user publishes its trace: start one with ASYNCSCOPE_SERVE=1, or call "
                 "asyncscope.serve() in it");
        return 2;
      }
      if (found.size() > 1) {
        say(err, std::to_string(found.size()) + " programs publish: name one (asyncscope attach PID); see "
                 "'asyncscope attach --list'");
        return 2;
      }
      pid = found.front().hello.pid;
    }
    if (!request.headless) {
      // The window attaches itself; a program it cannot attach to is bad input, said here.
      trace::probe_publisher(pid);
      request.gui.attach_pid = pid;
      request.gui.attach_from_start = request.from_start;
      if (!request.gui.screenshot.empty()) {
        if (const std::string why = check_writable(request.gui.screenshot); !why.empty()) {
          say(err, "cannot write --screenshot " + quote(request.gui.screenshot) + ": " + why);
          return 2;
        }
      }
      return launch_gui(request.gui);
    }
    OutputSet outputs(out, err);
    if (!request.trace.empty()) outputs.add("--trace", request.trace);
    trace::LiveClient::Options options;
    const uint64_t max_ops = request.max_ops > 0 ? request.max_ops : kMaxAttachOps;
    options.limits.max_ops = max_ops;
    if (!request.from_start) {
      options.from_ns = trace::now_ns() - std::chrono::duration_cast<std::chrono::nanoseconds>(trace::kDefaultCatchUp).count();
    }
    trace::LiveClient client(pid, options);
    std::atomic<bool> interrupted{false};
    // Ctrl+C while following stops following; during the write it abandons the write.
    InterruptScope scope([&interrupted] { interrupted.store(true); });
    {
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(request.seconds > 0 ? request.seconds : 1e9));
      while (client.state() == trace::LiveClient::State::streaming && !interrupted.load() &&
             std::chrono::steady_clock::now() < until) {
        client.wait_for_end(std::chrono::milliseconds(20));
      }
      client.detach();
    }
    const bool stopped_following = interrupted.load();
    const trace::TraceModel model = trace::snapshot(*client.recorder());
    size_t ops = 0, waits = model.syncs.size();
    for (const trace::OpInfo& op : model.ops) ops += op.enqueue != trace::kNoTime ? 1 : 0;
    out << "Attached to process " << client.hello().pid << " (" << quote(client.hello().title) << "): " << ops
        << " ops, " << waits << " waits, " << client.bytes_received() << " bytes received";
    if (client.dropped() > 0) out << ", " << client.dropped() << " events dropped by the program's recorder";
    out << "; " << escape_controls(client.message()) << ".\n";
    out << "The trace holds " << held(model, client)
        << (request.from_start ? "" : "; attach --from-start for everything since the program started") << ".\n";
    if (client.ops_received() >= max_ops) {
      out << "That is " << max_ops << " ops, the most this attach keeps (--max-ops for more; --seconds to follow "
          << "for less time).\n";
    }
    const int code = stopped_following ? 128 + InterruptScope::signal_number() : 0;
    if (!request.trace.empty()) {
      // What arrived is written; a signal during the write abandons it (no file, no temporary left).
      const unsigned signals_before = InterruptScope::signals_received();
      outputs.set_content("--trace", [&model](std::ostream& o) { trace::write_chrome_trace(model, o); });
      outputs.stop_when([signals_before] { return InterruptScope::signals_received() != signals_before; });
      try {
        outputs.commit();
      } catch (const std::exception& e) {
        if (InterruptScope::signals_received() != signals_before) {
          say(err, std::string("interrupted by ") + InterruptScope::signal_name(InterruptScope::signal_number()) +
                       " while writing the trace: no file was written or replaced");
          return 128 + InterruptScope::signal_number();
        }
        say(err, e.what());
        return 1;
      }
      out << "Trace written to " << quote(request.trace) << ".\n";
    }
    if (request.print) print_answers(out, answers_of(model));
    return code;
  } catch (const trace::LiveError& e) {
    say(err, without_prefix(e.what()));
    return 2;
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
}

class AttachCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    attach_ = root.add_subcommand(
        "attach",
        "Follow a running program that publishes its trace (started with ASYNCSCOPE_SERVE=1, or calling "
        "asyncscope.serve()): live in the app, or headless with --seconds, --trace or --print");
    attach_->add_option("PID", r_.pid, "the program's process id (default: the only one that publishes; see --list)");
    attach_->add_flag("--list", r_.list, "list this user's programs that publish, and exit");
    attach_->add_option("--seconds", r_.seconds,
                        "headless: follow for at most this long (default: until the program ends, or Ctrl+C)");
    attach_->add_option("--max-ops", r_.max_ops,
                        "headless: keep at most this many ops, then stop following (default " +
                            std::to_string(kMaxAttachOps) + ": with it --seconds S is over within S + 5 s)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
    attach_->add_flag("--from-start", r_.from_start,
                      "receive everything the program recorded since it started (default: from " +
                          std::to_string(trace::kDefaultCatchUp.count()) + " s before attaching on)");
    attach_->add_option("--trace", r_.trace, "headless: write what arrived as Chrome trace JSON");
    attach_->add_flag("--print", r_.print, "headless: describe what arrived on the terminal");
    add_window_options(*attach_, r_.gui);
    return attach_;
  }
  int run(const CommandIo& io) override {
    AttachRequest request = r_;
    request.headless = attach_->count("--seconds") > 0 || attach_->count("--trace") > 0 || request.print ||
                       attach_->count("--max-ops") > 0;
    io.globals.size_window(request.gui);
    return attach(request, io.out, io.err, io.launch_gui);
  }

 private:
  CLI::App* attach_ = nullptr;
  AttachRequest r_;
};

}  // namespace

std::unique_ptr<Command> attach_command() { return std::make_unique<AttachCommand>(); }

}  // namespace asyncscope::app
