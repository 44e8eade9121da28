#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <ostream>

#include "app/gui/gui.h"
#include "app/gui/gui_app.h"
#include "app/gui/output_capture.h"
#include "app/gui/window.h"
#include "app/interrupt.h"
#include "engine/base/quote.h"
#include "widgets/frame_request.h"

namespace asyncscope::app {
namespace {

// How long closing the app waits for a stopped run to end.
constexpr std::chrono::milliseconds kRunEndLimit{5000};

}  // namespace

int run_gui(const GuiRequest& request, std::ostream& err) {
  try {
    // A scripted picture is always of the size asked for; a person's window fits their screen.
    Window window("asyncscope", Window::Size{request.width, request.height,
                                             request.size_given || !request.screenshot.empty()});
    // Outlives the app, whose end stops and joins a run still going: a signal
    // then ends the frame loop as closing the window does, and an export or a
    // screenshot under way is abandoned with its temporary file removed.
    InterruptScope interrupt([] { Window::wake(); });
    GuiApp app(window, request);
    // For tests of when the app draws: a line on stderr per frame drawn.
    const char* log_frames = std::getenv("ASYNCSCOPE_FRAME_LOG");
    const bool frame_log = log_frames != nullptr && *log_frames != '\0';
    while (!window.should_close() && InterruptScope::signal_number() == 0) {
      const bool input = window.wait_for_frame(app.animating(), app.frame_rate());
      if (InterruptScope::signal_number() != 0) break;
      // A live run takes the cores the app draws on: with no input and
      // nothing new to show, the frame is not drawn.
      if (!app.update() && !input) continue;
      window.begin_frame();
      const bool keep_going = app.frame();
      window.want_frame_within(widgets::TakeFrameRequest());
      const std::string shot = app.take_screenshot_request();
      const uint64_t rendered = window.frames_rendered();
      const std::string error = window.end_frame(shot);
      if (frame_log) err << "asyncscope: frame " << (window.frames_rendered() != rendered ? "rendered" : "unchanged") << "\n";
      if (!shot.empty()) {
        if (!error.empty()) err << "asyncscope: " << escape_controls(error) << "\n";
        app.screenshot_done(error);
      }
      if (!keep_going || app.quitting()) break;
    }
    const int signal = InterruptScope::signal_number();
    const bool was_running = app.running();
    const int code = signal != 0 ? 128 + signal : app.exit_code();
    if (signal != 0) {
      err << "asyncscope: interrupted by " << InterruptScope::signal_name(signal) << ": the app was closed"
          << (was_running ? " and its run stopped" : "") << "\n";
    }
    // Closing the app ends its run first. A script blocked in a call that a
    // stop cannot interrupt (a read of a socket, a C extension's wait) would
    // keep the process alive: past the limit it ends without that thread.
    if (was_running && !app.stop_run_within(kRunEndLimit)) {
      // Past the run's capture of stderr, whose thread would not forward it in time.
      err.flush();
      OutputCapture::write_uncaptured(2, "asyncscope: the run did not end within " +
                                             std::to_string(kRunEndLimit.count() / 1000) +
                                             " s of its stop (its script waits in a call that a stop cannot "
                                             "interrupt); closing without it\n");
      std::fflush(nullptr);
      std::_Exit(code);
    }
    return code;
  } catch (const std::exception& e) {
    err << "asyncscope: " << escape_controls(e.what()) << "\n";
    return 1;
  }
}

}  // namespace asyncscope::app
