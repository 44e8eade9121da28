// Frames asked for by what changes with time alone. The app draws a frame
// only on input, a window event or a change in what it shows; a widget that
// moves without any of them (a pulsing node) asks, while it draws, for the
// next frame within some time, and the app waits no longer than that.
// Threading: UI thread only.
#pragma once

namespace asyncscope::widgets {

// What this frame drew changes again within `seconds`, without input.
void RequestFrameWithin(double seconds);
// Seconds until the earliest frame asked for since the last call, or a
// negative number when none was; clears the requests.
double TakeFrameRequest();

}  // namespace asyncscope::widgets
