// Helpers for running widgets without a window: a headless ImGui context for
// tests and benchmarks (display size set, font atlas built, no renderer).
// Threading: the thread that owns the context.
#pragma once

#include <imgui.h>

namespace asyncscope::widgets {

class HeadlessContext {
 public:
  explicit HeadlessContext(float width = 1280, float height = 800);
  // With a TrueType font (the app's, so text measures as it draws there) at
  // `font_px`; ImGui's own font where the file cannot be read.
  HeadlessContext(float width, float height, const char* font_file, float font_px);
  ~HeadlessContext();
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  // Starts a frame with one full-screen window to draw into; end_frame() renders
  // the draw lists (no GPU) and returns them.
  void begin_frame(float dt = 1.0f / 60.0f);
  ImDrawData* end_frame();
  ImGuiContext* context() const noexcept { return context_; }

 private:
  ImGuiContext* context_;
};

}  // namespace asyncscope::widgets
