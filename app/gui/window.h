// Window: the desktop window and its ImGui context: GLFW (platform) +
// OpenGL 3 (renderer), fonts scaled to the monitor's content scale, ImGui's
// layout file under the XDG config folder, a frame limiter (Xvfb and some
// drivers ignore the swap interval) with idle throttling, and PNG screenshots.
// Threading: UI thread only.
#pragma once

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
  // Waits for input or the next frame slot: at most `fps` frames a second
  // while `animating` (a run is live), otherwise until an event arrives (or
  // a quarter second passes), so an idle app costs nothing.
  void wait_for_frame(bool animating, int fps = 60);
  void begin_frame();
  // Renders the frame; if `screenshot_path` is set, saves the frame to it
  // first (PNG). Returns "" or the error of a failed screenshot.
  std::string end_frame(const std::string& screenshot_path = "");

  // Key presses since the last call, in order. Dear ImGui 1.86 only keeps
  // which keys are down at each frame, so a tap shorter than a frame (an
  // idle app draws only on events) would be missed by IsKeyPressed.
  std::vector<KeyPress> take_key_presses() { return std::exchange(key_presses_, {}); }

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
  double last_frame_ = 0;
};

// Saves the current framebuffer (width x height) as PNG; "" or the reason it failed.
std::string save_framebuffer_png(const std::string& path, int width, int height);

}  // namespace asyncscope::app
