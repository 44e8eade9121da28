#include "app/cli_attach.h"

#include <atomic>
#include <chrono>
#include <ctime>
#include <ostream>
#include <thread>
#include <vector>

#include "app/cli_report.h"
#include "app/interrupt.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/live.h"
#include "engine/trace/model.h"

namespace asyncscope::app {
namespace {

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

}  // namespace

int attach_command(AttachRequest request, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
  try {
    if (request.list || request.pid == 0) {
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
      request.pid = found.front().hello.pid;
    }
    if (!request.headless) {
      // The window attaches itself; a program it cannot attach to is bad input, said here.
      trace::probe_publisher(request.pid);
      request.gui.attach_pid = request.pid;
      if (!request.gui.screenshot.empty()) {
        if (const std::string why = check_writable(request.gui.screenshot); !why.empty()) {
          say(err, "cannot write --screenshot " + quote(request.gui.screenshot) + ": " + why);
          return 2;
        }
      }
      return launch_gui(request.gui);
    }
    if (!request.trace.empty()) {
      if (const std::string why = check_writable(request.trace); !why.empty()) {
        say(err, "cannot write --trace " + quote(request.trace) + ": " + why);
        return 2;
      }
    }
    trace::LiveClient client(request.pid);
    std::atomic<bool> interrupted{false};
    {
      InterruptScope scope([&interrupted] { interrupted.store(true); });
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(request.seconds > 0 ? request.seconds : 1e9));
      while (client.state() == trace::LiveClient::State::streaming && !interrupted.load() &&
             std::chrono::steady_clock::now() < until) {
        client.wait_for_end(std::chrono::milliseconds(50));
      }
      client.detach();
    }
    const trace::TraceModel model = trace::snapshot(*client.recorder());
    size_t ops = 0, waits = model.syncs.size();
    for (const trace::OpInfo& op : model.ops) ops += op.known() ? 1 : 0;
    out << "Attached to process " << client.hello().pid << " (" << quote(client.hello().title) << "): " << ops
        << " ops, " << waits << " waits, " << client.bytes_received() << " bytes received";
    if (client.dropped() > 0) out << ", " << client.dropped() << " events dropped by the program's recorder";
    out << "; " << client.message() << ".\n";
    if (!request.trace.empty()) {
      trace::write_chrome_trace(model, request.trace);
      out << "Trace written to " << quote(request.trace) << ".\n";
    }
    if (request.print) {
      const RunAnswers answers = answers_of(model);
      print_answers(out, answers);
    }
    if (const int signal = InterruptScope::signal_number(); signal != 0 && interrupted.load()) return 128 + signal;
    return 0;
  } catch (const trace::LiveError& e) {
    say(err, without_prefix(e.what()));
    return 2;
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
}

}  // namespace asyncscope::app
