// Window: the desktop window and its ImGui context: GLFW (platform) +
// OpenGL 3 (renderer), fonts scaled to the monitor's content scale, ImGui's
// layout file under the XDG config folder, a frame limiter (Xvfb and some
// drivers ignore the swap interval) with idle throttling, and PNG screenshots.
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
  // Throws std::runtime_error with the reason if no window can be opened
  // (e.g. no display).
  Window(const char* title, int width, int height);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  bool should_close() const;
  // Waits for the next frame, and says whether the window needs it drawn.
  // While `animating` (a run is live): sleeps out the frame slot (at most
  // `fps` frames a second), then takes the events that came; true when input
  // (or a resize, or an expose) came in this slot or the two before it (ImGui
  // settles what input changed over a few frames), else false: the caller
  // then draws only if what it shows changed. Otherwise waits until an event
  // arrives (or a quarter second passes), so an idle app costs nothing, and
  // returns true.
  bool wait_for_frame(bool animating, int fps = 60);
  void begin_frame();
  // Renders the frame; if `screenshot_path` is set, saves the frame to it
  // first (PNG). Returns "" or the error of a failed screenshot.
  std::string end_frame(const std::string& screenshot_path = "");

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
  std::vector<KeyPress> key_presses_;
  std::vector<pid_t> driver_threads_;
  std::vector<clockid_t> driver_clocks_;
  int64_t ui_cpu_at_begin_ = 0;     // ns, this thread's CPU clock at begin_frame
  int64_t driver_cpu_at_end_ = -1;  // ns, the driver threads' at the last end_frame (-1: none yet)
  double frame_cpu_s_ = 0;
  double last_frame_ = 0;
  uint64_t events_ = 0;     // input, resize and expose events so far (the callbacks count them)
  int settle_frames_ = 0;  // frames still to draw after the last input

  static Window* of(GLFWwindow* window);
};

// Saves the current framebuffer (width x height) as PNG; "" or the reason it failed.
std::string save_framebuffer_png(const std::string& path, int width, int height);

}  // namespace asyncscope::app
