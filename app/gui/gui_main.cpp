#include <imgui.h>

#include <ostream>

#include "app/gui/gui.h"
#include "app/gui/gui_app.h"
#include "app/gui/window.h"
#include "engine/base/quote.h"

namespace asyncscope::app {

int run_gui(const GuiRequest& request, std::ostream& err) {
  try {
    Window window("asyncscope", request.width, request.height);
    GuiApp app(window, request);
    while (!window.should_close()) {
      window.wait_for_frame(app.animating());
      window.begin_frame();
      const bool keep_going = app.frame();
      const std::string shot = app.take_screenshot_request();
      const std::string error = window.end_frame(shot);
      if (!shot.empty()) {
        if (!error.empty()) err << "asyncscope: " << escape_controls(error) << "\n";
        app.screenshot_done(error);
      }
      if (!keep_going) break;
    }
    return app.exit_code();
  } catch (const std::exception& e) {
    err << "asyncscope: " << escape_controls(e.what()) << "\n";
    return 1;
  }
}

}  // namespace asyncscope::app
