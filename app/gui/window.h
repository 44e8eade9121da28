// Window: the desktop window and its ImGui context: GLFW (platform) +
// OpenGL 3 (renderer), fonts scaled to the monitor's content scale, ImGui's
// layout file under the XDG config folder, a frame limiter (Xvfb and some
// drivers ignore the swap interval), frames only when something can have
// changed, and PNG screenshots.
// Threading: UI thread only.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct GLFWwindow;
struct ImFont;

namespace asyncscope::app {

// A key press as the platform reported it (GLFW key code and modifiers).
struct KeyPress {
  int key = 0;
  bool ctrl = false;
};

class Window {
 public:
  // How big the window opens.
  struct Size {
    int width = 1280, height = 800;
    // Exactly this (--window-size, a scripted screenshot: pictures are
    // reproducible); else the size the window last closed at (kept beside
    // the layout in the user's config folder), made to fit the screen's
    // work area, and remembered again when the window closes.
    bool exact = false;
  };
  // Throws std::runtime_error with the reason if no window can be opened
  // (e.g. no display).
  Window(const char* title, Size size);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool should_close() const;
  // Waits for the next frame, and says whether the window needs it drawn:
  // true for the first kSettleFrames after input (or a resize, or an
  // expose), else false, and the caller draws only if what it shows
  // changed. While `animating` (a run is live): sleeps out the frame slot
  // (at most `fps` frames a second), then takes the events that came.
  // Otherwise sleeps until an event arrives or a frame is due (wake() also
  // ends the wait), so an idle window costs nothing; due, and true, are
  // also the frames after input that still differ from the one before
  // (ImGui settles what input changed over a few frames; at most
  // kChangingFrames more) and those where something animates (a text
  // field's caret blinks, a modal's dimming fades in, want_frame_within).
  bool wait_for_frame(bool animating, int fps = 60);
  // The frame being drawn changes again within `seconds` without input
  // (negative: no such thing). Call between begin_frame and end_frame.
  void want_frame_within(double seconds);
  void begin_frame();
  // Renders the frame; if `screenshot_path` is set, saves the frame to it
  // first (PNG). A frame that draws exactly what the window already shows
  // (the same draw lists, nothing exposed or resized since) is not rendered
  // again: under a software renderer that is most of a frame's CPU. Returns
  // "" or the error of a failed screenshot.
  std::string end_frame(const std::string& screenshot_path = "");
  // Frames end_frame rendered and frames it found unchanged (not rendered).
  uint64_t frames_rendered() const noexcept { return frames_rendered_; }
  uint64_t frames_unchanged() const noexcept { return frames_unchanged_; }

  // Key presses since the last call, in order. Dear ImGui 1.86 only keeps
  // which keys are down at each frame, so a tap shorter than a frame (an
  // idle app draws only on events) would be missed by IsKeyPressed.
  std::vector<KeyPress> take_key_presses() { return std::exchange(key_presses_, {}); }

  // The threads the window system and the graphics driver started while the
  // window opened (kernel thread ids): where rendering spends CPU besides the
  // UI thread (Mesa's software renderer rasterises on threads of its own,
  // llvmpipe-N, and the app's render CPU counts them).
  const std::vector<pid_t>& driver_threads() const noexcept { return driver_threads_; }
  // The CPU a frame costs, in seconds, averaged over the last frames: the UI
  // thread's from begin_frame to end_frame, and the driver threads' since the
  // frame before (a software renderer rasterises there, after the swap). 0
  // before the second frame.
  double frame_cpu_seconds() const noexcept { return frame_cpu_s_; }
  float scale() const noexcept { return scale_; }
  // A fixed-width font for program output, or nullptr (then use the default font).
  ImFont* mono_font() const noexcept { return mono_font_; }
  void set_title(const std::string& title);
  // Ends a wait_for_frame now. Any thread (the only member that is).
  static void wake();

 private:
  GLFWwindow* window_ = nullptr;
  float scale_ = 1.0f;
  ImFont* mono_font_ = nullptr;
  std::string ini_path_;
  std::string size_path_;  // where the window's size is remembered ("": it is not)
  std::vector<KeyPress> key_presses_;
  std::vector<pid_t> driver_threads_;
  std::vector<clockid_t> driver_clocks_;
  int64_t ui_cpu_at_begin_ = 0;     // ns, this thread's CPU clock at begin_frame
  int64_t driver_cpu_at_end_ = -1;  // ns, the driver threads' at the last end_frame (-1: none yet)
  double frame_cpu_s_ = 0;
  double last_frame_ = 0;
  uint64_t events_ = 0;     // input, resize and expose events so far (the callbacks count them)
  static constexpr int kSettleFrames = 3;    // frames drawn after input, changed or not
  static constexpr int kChangingFrames = 8;  // then at most this many more while each differs from the one before
  int settle_frames_ = kSettleFrames;  // frames still to draw after the last input (the first frames too)
  int changing_frames_ = kChangingFrames;
  bool animating_ = false;  // as the last wait_for_frame was told
  double due_ = -1;        // glfwGetTime() at which a frame is due for what animates; negative: none
  double wanted_in_ = -1;  // this frame's want_frame_within
  uint64_t drawn_hash_ = 0;   // the last frame's draw lists, hashed
  bool damaged_ = true;       // exposed or resized since the last render: render even if unchanged
  uint64_t frames_rendered_ = 0, frames_unchanged_ = 0;

  static Window* of(GLFWwindow* window);
  static void damaged(GLFWwindow* window);  // an event after which the window must be rendered again
};

// Saves the current framebuffer (width x height) as PNG; "" or the reason it failed.
std::string save_framebuffer_png(const std::string& path, int width, int height);

}  // namespace asyncscope::app
