// The left panel: the program picker with its summary and explanation, the
// knobs (with what is wrong with a value typed in), Run/Stop, the live run's
// progress and the app's last message. It owns the selected program and its
// parameter values, and returns what the user asked for instead of acting:
// the app starts and stops runs.
// Threading: UI thread only.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/actions.h"
#include "app/gui/explanation.h"
#include "engine/demos/program.h"

namespace asyncscope::app {

// How the live run is doing, as the panel shows it.
struct RunProgress {
  bool running = false;
  double fraction = 0;  // 0..1
  std::string text;     // what the program is doing now
};

// The app's last message for the user (shown while no run is live).
struct StatusLine {
  std::string text;  // "" = none yet
  bool is_error = false;
};

class ProgramPanel {
 public:
  explicit ProgramPanel(const demos::Program& program);

  // Selects a program, with its default values.
  void select(const demos::Program& program);
  const demos::Program& program() const noexcept { return *program_; }
  // The values the next run gets (the app sets them for --param and --vary).
  demos::ParamValues& values() noexcept { return values_; }

  // The scripts the picker lists after the demos (the app's ScriptLibrary;
  // it must outlive the panel), or null for none.
  void set_scripts(const std::vector<const demos::Program*>* scripts) noexcept { scripts_ = scripts; }

  // Draws in the available region of the current window. Returns
  // Action::run or Action::stop when the button was pressed. `body`, when
  // given, draws in place of the explanation (the script view), in a region
  // of its own.
  std::optional<Action> draw(const RunProgress& progress, const StatusLine& status,
                             const std::function<void()>& body = {});

 private:
  void draw_picker(bool running);
  void draw_knobs(bool running);
  void draw_knob(const demos::Param& param, float label_width);
  static void draw_status(const StatusLine& status);

  const demos::Program* program_;
  const std::vector<const demos::Program*>* scripts_ = nullptr;
  demos::ParamValues values_;
  std::map<std::string, std::string> knob_errors_;  // by parameter: why the text typed was refused
  Explanations explanations_;
};

}  // namespace asyncscope::app
