#include "app/gui/window.h"

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "app/interrupt.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/trace_record/counter_sampler.h"

namespace asyncscope::app {
namespace {

std::string glfw_error;

void on_glfw_error(int code, const char* description) {
  glfw_error = description ? description : ("GLFW error " + std::to_string(code));
}

// $XDG_CONFIG_HOME/asyncscope (or ~/.config/asyncscope), created on demand; "" if impossible.
std::string config_dir() {
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::filesystem::path(home) / ".config";
  } else {
    return "";
  }
  std::error_code ec;
  std::filesystem::create_directories(base / "asyncscope", ec);
  return ec ? "" : (base / "asyncscope").string();
}

const char* first_existing(std::initializer_list<const char*> paths) {
  for (const char* p : paths) {
    if (std::filesystem::exists(p)) return p;
  }
  return nullptr;
}

void apply_style(float scale) {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 4;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.TabRounding = 3;
  style.WindowPadding = ImVec2(10, 10);
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 6);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.105f, 0.11f, 0.125f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0.09f, 0.095f, 0.11f, 1.0f);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.13f, 0.135f, 0.155f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.32f, 0.48f, 0.75f);
  c[ImGuiCol_Button] = ImVec4(0.20f, 0.30f, 0.46f, 0.85f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.40f, 0.62f, 1.0f);
  // The chosen tab stands out from the others, focused window or not.
  c[ImGuiCol_Tab] = c[ImGuiCol_TabUnfocused] = ImVec4(0.15f, 0.16f, 0.19f, 1.0f);
  c[ImGuiCol_TabHovered] = c[ImGuiCol_ButtonHovered];
  c[ImGuiCol_TabActive] = c[ImGuiCol_TabUnfocusedActive] = ImVec4(0.22f, 0.32f, 0.48f, 1.0f);
  style.ScaleAllSizes(scale);
}

// A CPU clock's time in ns; 0 when it cannot be read (a thread that ended).
int64_t cpu_ns(clockid_t clock) { return trace::read_cpu_clock_ns(clock).value_or(0); }

// Everything a frame's draw data draws, hashed: two frames with the same
// hash put the same pixels on the screen (one font texture, never changed).
uint64_t hash_draw_data(const ImDrawData& data) {
  uint64_t h = 0;
  const auto mix = [&h](const void* bytes, size_t size) {
    const size_t part = std::hash<std::string_view>{}(std::string_view(static_cast<const char*>(bytes), size));
    h = (h ^ part) * 0x9E3779B97F4A7C15ull + size;
  };
  const float view[] = {data.DisplayPos.x, data.DisplayPos.y, data.DisplaySize.x, data.DisplaySize.y,
                        data.FramebufferScale.x, data.FramebufferScale.y};
  mix(view, sizeof view);
  for (int i = 0; i < data.CmdListsCount; ++i) {
    const ImDrawList& list = *data.CmdLists[i];
    mix(list.VtxBuffer.Data, static_cast<size_t>(list.VtxBuffer.Size) * sizeof(ImDrawVert));
    mix(list.IdxBuffer.Data, static_cast<size_t>(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      const uintptr_t fields[] = {reinterpret_cast<uintptr_t>(cmd.TextureId), cmd.VtxOffset, cmd.IdxOffset, cmd.ElemCount,
                                  reinterpret_cast<uintptr_t>(cmd.UserCallback)};
      mix(&cmd.ClipRect, sizeof cmd.ClipRect);
      mix(fields, sizeof fields);
    }
  }
  return h;
}

// Seconds until what ImGui animates by itself looks different, or a negative
// number: the caret of the text field being edited blinks (ImGui shows it
// while its timer, modulo 1.2 s, is at most 0.8 s, and keeps it on for 0.3 s
// after each key), and a modal's dimming fades in over about 0.2 s (the
// Ctrl+Tab window list's highlight too).
double imgui_animates_within(double frame_slot) {
  const ImGuiContext& g = *GImGui;
  double within = -1;
  const auto at = [&within](double s) { within = within < 0 ? s : std::min(within, s); };
  if ((g.DimBgRatio > 0 && g.DimBgRatio < 1) || g.NavWindowingTargetAnim != nullptr) at(frame_slot);
  const ImGuiInputTextState* text = g.ActiveId != 0 ? ImGui::GetInputTextState(g.ActiveId) : nullptr;
  if (text != nullptr && g.IO.ConfigInputTextCursorBlink) {
    constexpr double kPeriod = 1.2, kOn = 0.8, kPastTheEdge = 0.005;
    const double t = text->CursorAnim;
    const double phase = t < 0 ? 0 : std::fmod(t, kPeriod);
    at((t < 0 ? -t : 0) + (phase <= kOn ? kOn - phase : kPeriod - phase) + kPastTheEdge);
  }
  return within;
}

// This process's threads, by kernel id (empty without /proc).
std::vector<pid_t> process_threads() {
  std::vector<pid_t> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/task", ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(static_cast<pid_t>(std::atoi(it->path().filename().c_str())));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

namespace {

// The size last remembered in `path` ("W H"), or `fallback`.
Window::Size remembered_size(const std::string& path, Window::Size fallback) {
  std::ifstream in(path);
  int w = 0, h = 0;
  if (in >> w >> h && w >= 320 && h >= 240 && w <= 16384 && h <= 16384) {
    fallback.width = w;
    fallback.height = h;
  }
  return fallback;
}

// `size` made to fit the primary monitor's work area (the screen less its
// panels), with room for the window's frame; unchanged without a monitor.
Window::Size fitted(Window::Size size) {
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  if (monitor == nullptr) return size;
  int x = 0, y = 0, w = 0, h = 0;
  glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
  constexpr int kFrame = 48;  // title bar and borders the window manager adds
  if (w > kFrame * 2) size.width = std::min(size.width, w - kFrame);
  if (h > kFrame * 2) size.height = std::min(size.height, h - kFrame);
  return size;
}

}  // namespace

Window::Window(const char* title, Size want) {
  const std::vector<pid_t> threads_before = process_threads();
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    throw std::runtime_error("cannot open a window: " + (glfw_error.empty() ? "no display" : glfw_error) +
                             " (is DISPLAY set? for a headless machine use xvfb-run)");
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  if (!want.exact) {
    if (const std::string dir = config_dir(); !dir.empty()) size_path_ = dir + "/window-size";
    want = fitted(size_path_.empty() ? want : remembered_size(size_path_, want));
  }
  window_ = glfwCreateWindow(want.width, want.height, title, nullptr, nullptr);
  if (!window_) {
    const std::string why = glfw_error;
    glfwTerminate();
    throw std::runtime_error("cannot open a window: " + (why.empty() ? "unknown GLFW error" : why));
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  // Installed before ImGui's backend, which chains to them (it installs
  // focus, cursor enter, mouse button, scroll, key and char callbacks).
  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
    Window* self = of(w);
    ++self->events_;
    if (action == GLFW_PRESS) self->key_presses_.push_back({key, (mods & GLFW_MOD_CONTROL) != 0});
  });
  // Every other event that can change what a frame shows is counted, so a
  // frame during a run is drawn for it (wait_for_frame).
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned) { ++of(w)->events_; });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { ++of(w)->events_; });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { ++of(w)->events_; });
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { ++of(w)->events_; });
  glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { ++of(w)->events_; });
  glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { ++of(w)->events_; });
  // These also mean the window's pixels must be rendered again.
  glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { damaged(w); });
  glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) { damaged(w); });
  glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { damaged(w); });
  glfwSetWindowIconifyCallback(window_, [](GLFWwindow* w, int) { damaged(w); });
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window_, &sx, &sy);
  scale_ = std::clamp(std::max(sx, sy), 1.0f, 4.0f);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  if (const std::string dir = config_dir(); !dir.empty()) {
    ini_path_ = dir + "/layout.ini";
    io.IniFilename = ini_path_.c_str();
  } else {
    io.IniFilename = nullptr;
  }
  // Latin-1 plus the symbols the tables and tooltips use (µ, ×, arrows, dashes).
  static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2010, 0x2044, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
  const float size = 15.0f * scale_;
  if (const char* sans = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"})) {
    io.Fonts->AddFontFromFileTTF(sans, size, nullptr, ranges);
  } else {
    ImFontConfig config;
    config.SizePixels = 13.0f * scale_;
    io.Fonts->AddFontDefault(&config);
  }
  // Program output lines up in columns only in a fixed-width font; without
  // one the console keeps the default font (ImGui's own is fixed-width).
  if (const char* mono = first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"})) {
    mono_font_ = io.Fonts->AddFontFromFileTTF(mono, size * 0.93f, nullptr, ranges);
  }
  apply_style(scale_);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 130");
  const std::vector<pid_t> threads_after = process_threads();
  std::set_difference(threads_after.begin(), threads_after.end(), threads_before.begin(), threads_before.end(),
                      std::back_inserter(driver_threads_));
  for (pid_t tid : driver_threads_) driver_clocks_.push_back(trace::thread_cpu_clock_of(tid));
  last_frame_ = glfwGetTime();
}

Window::~Window() {
  if (!size_path_.empty()) {
    int w = 0, h = 0;
    glfwGetWindowSize(window_, &w, &h);
    if (w > 0 && h > 0) std::ofstream(size_path_) << w << ' ' << h << '\n';
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::should_close() const { return glfwWindowShouldClose(window_) != 0; }
void Window::set_title(const std::string& title) { glfwSetWindowTitle(window_, title.c_str()); }
void Window::wake() { glfwPostEmptyEvent(); }

Window* Window::of(GLFWwindow* window) { return static_cast<Window*>(glfwGetWindowUserPointer(window)); }

void Window::damaged(GLFWwindow* window) {
  Window* self = of(window);
  ++self->events_;
  self->damaged_ = true;
}

bool Window::wait_for_frame(bool animating, int fps) {
  const uint64_t events_before = events_;
  const double slot = 1.0 / std::max(fps, 1);
  if (animating) {
    // Sleep out the rest of the frame slot ourselves (the swap interval is
    // not always honoured), then take what came meanwhile, so input is
    // drawn in the slot it came in.
    const double wait = last_frame_ + slot - glfwGetTime();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    glfwPollEvents();
  } else {
    // Nothing changes without an event but what settles after input (drawn
    // a slot apart) and what animates.
    double due = due_;
    if (settle_frames_ > 0) due = due < 0 ? last_frame_ + slot : std::min(due, last_frame_ + slot);
    const double now = glfwGetTime();
    if (due < 0) {
      glfwWaitEvents();
    } else if (due > now) {
      glfwWaitEventsTimeout(due - now);
    } else {
      glfwPollEvents();
    }
  }
  last_frame_ = glfwGetTime();
  if (events_ != events_before) {
    settle_frames_ = kSettleFrames;
    changing_frames_ = kChangingFrames;
  }
  // While animating, the app's own frames show what moves.
  animating_ = animating;
  const bool draw = settle_frames_ > 0 || (!animating && due_ >= 0 && last_frame_ >= due_);
  if (draw && settle_frames_ > 0) --settle_frames_;
  return draw;
}

void Window::want_frame_within(double seconds) {
  if (seconds >= 0) wanted_in_ = wanted_in_ < 0 ? seconds : std::min(wanted_in_, seconds);
}

void Window::begin_frame() {
  ui_cpu_at_begin_ = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

std::string Window::end_frame(const std::string& screenshot_path) {
  ImGui::Render();
  // What animates asks for the frame it changes in.
  const double now = glfwGetTime();
  want_frame_within(imgui_animates_within(1.0 / 60));
  due_ = wanted_in_ < 0 ? -1 : now + wanted_in_;
  wanted_in_ = -1;
  // Idle, the frames after input go on while each differs from the one
  // before (ImGui still settling), up to a bound; the first unchanged one
  // ends them.
  const uint64_t hash = hash_draw_data(*ImGui::GetDrawData());
  const bool changed = hash != drawn_hash_;
  drawn_hash_ = hash;
  if (!animating_ && settle_frames_ == 0) {
    if (changed && changing_frames_ > 0) {
      --changing_frames_;
      settle_frames_ = 1;
    } else {
      changing_frames_ = 0;
    }
  }
  std::string error;
  if (changed || damaged_ || !screenshot_path.empty()) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (!screenshot_path.empty()) error = save_framebuffer_png(screenshot_path, w, h);
    glfwSwapBuffers(window_);
    damaged_ = false;
    ++frames_rendered_;
  } else {
    ++frames_unchanged_;
  }
  // What this frame cost: the UI thread's part now, the driver threads' as it comes.
  int64_t driver = 0;
  for (clockid_t clock : driver_clocks_) driver += cpu_ns(clock);
  if (driver_cpu_at_end_ >= 0) {
    const double cost =
        1e-9 * static_cast<double>(cpu_ns(CLOCK_THREAD_CPUTIME_ID) - ui_cpu_at_begin_ + driver - driver_cpu_at_end_);
    if (cost >= 0) frame_cpu_s_ = frame_cpu_s_ > 0 ? 0.75 * frame_cpu_s_ + 0.25 * cost : cost;
  }
  driver_cpu_at_end_ = driver;
  return error;
}

std::string save_framebuffer_png(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows go bottom-up; PNG's top-down.
  std::vector<unsigned char> flipped(pixels.size());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y) {
    std::memcpy(flipped.data() + static_cast<size_t>(y) * row, pixels.data() + static_cast<size_t>(height - 1 - y) * row,
                row);
  }
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque, whatever the framebuffer's alpha
  // Encoded in memory, then written like every other output (temporary file, rename; streams; special files refused).
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 4, flipped.data(), static_cast<int>(row))) {
    return "cannot write " + quote(path) + ": PNG encoding failed";
  }
  try {
    write_output(
        path, [&png](std::ostream& out) { out.write(png.data(), static_cast<std::streamsize>(png.size())); }, "",
        [] { return InterruptScope::signal_number() != 0; });
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace asyncscope::app
