// The look the app's panels share: muted and error text, section labels,
// hover help and the centred hint of an empty view, so every panel says
// "nothing here yet" and "this failed" the same way.
// Threading: UI thread only.
#pragma once

#include <imgui.h>

#include <string_view>

namespace asyncscope::app {

inline const ImVec4 kErrorColor(1.0f, 0.45f, 0.42f, 1.0f);
inline const ImVec4 kMutedColor(0.62f, 0.65f, 0.72f, 1.0f);

// A small muted capitalised heading ("KNOBS").
void section_label(std::string_view text);
// Text wrapped to the available width, muted or in the error colour.
void wrapped_text(std::string_view text, bool is_error = false);
// Text in the current colour wrapped to the available width at spaces only
// (ImGui's own wrapping also breaks after a full stop, splitting a figure
// such as "3.969 µs" over two lines); a word wider than the width gets a
// line of its own.
void words_wrapped(std::string_view text);
// A tooltip with `text` while the last item is hovered.
void hover_help(std::string_view text);
// A muted line centred in the rest of the current window: what an empty view shows.
void centred_hint(std::string_view text);

}  // namespace asyncscope::app
