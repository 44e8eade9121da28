// The one table of keyboard shortcuts: what each key does, and that the
// menu's labels name the keys that work.
#include "app/gui/actions.h"

#include <gtest/gtest.h>

#include <string>

namespace asyncscope::app {
namespace {

TEST(Actions, KeysMapToTheirActions) {
  EXPECT_EQ(action_for_key({' ', false}), Action::toggle_run);
  EXPECT_EQ(action_for_key({'F', false}), Action::fit);
  EXPECT_EQ(action_for_key({'L', false}), Action::toggle_follow);
  EXPECT_EQ(action_for_key({'S', true}), Action::export_trace);
  EXPECT_EQ(action_for_key({'O', true}), Action::open_trace);
  EXPECT_EQ(action_for_key({'P', true}), Action::screenshot);
  EXPECT_EQ(action_for_key({'Q', true}), Action::quit);
  // The modifier matters: a plain S or a Ctrl+F does nothing.
  EXPECT_EQ(action_for_key({'S', false}), std::nullopt);
  EXPECT_EQ(action_for_key({'F', true}), std::nullopt);
  EXPECT_EQ(action_for_key({'X', false}), std::nullopt);
}

TEST(Actions, MenuLabelsNameTheBoundKeys) {
  EXPECT_STREQ(shortcut_label(Action::toggle_run), "Space");
  EXPECT_STREQ(shortcut_label(Action::run), "Space");
  EXPECT_STREQ(shortcut_label(Action::stop), "Space");
  EXPECT_STREQ(shortcut_label(Action::export_trace), "Ctrl+S");
  EXPECT_EQ(shortcut_label(Action::about), nullptr);
  // Each label read back as a key press gives its action.
  for (Action a : {Action::toggle_run, Action::fit, Action::toggle_follow, Action::export_trace, Action::open_trace,
                   Action::screenshot, Action::quit}) {
    const std::string label = shortcut_label(a);
    const bool ctrl = label.rfind("Ctrl+", 0) == 0;
    const std::string key = ctrl ? label.substr(5) : label;
    const KeyPress press{key == "Space" ? ' ' : key[0], ctrl};
    EXPECT_EQ(action_for_key(press), a) << label;
  }
}

}  // namespace
}  // namespace asyncscope::app
