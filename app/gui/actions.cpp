#include "app/gui/actions.h"

namespace asyncscope::app {
namespace {

struct Binding {
  bool ctrl;
  int key;  // GLFW's key codes: letters are their ASCII capitals, space is ' '
  Action action;
  const char* label;
};

constexpr Binding kBindings[] = {
    {false, ' ', Action::toggle_run, "Space"},      {false, 'F', Action::fit, "F"},
    {false, 'L', Action::toggle_follow, "L"},       {true, 'S', Action::export_trace, "Ctrl+S"},
    {true, 'O', Action::open_trace, "Ctrl+O"},      {true, 'P', Action::screenshot, "Ctrl+P"},
    {true, 'Q', Action::quit, "Ctrl+Q"},
};

}  // namespace

std::optional<Action> action_for_key(const KeyPress& key) {
  for (const Binding& b : kBindings) {
    if (b.ctrl == key.ctrl && b.key == key.key) return b.action;
  }
  return std::nullopt;
}

const char* shortcut_label(Action action) {
  // Run and Stop are the two halves of the Space toggle.
  if (action == Action::run || action == Action::stop) action = Action::toggle_run;
  for (const Binding& b : kBindings) {
    if (b.action == action) return b.label;
  }
  return nullptr;
}

}  // namespace asyncscope::app
