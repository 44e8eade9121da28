// What the timeline draws on: one layout, two renderers. The lanes, the
// ruler, the counter plots and the selection draw through this small
// interface; ImGuiCanvas puts it on an ImGui draw list (the app's window),
// SvgCanvas writes it as SVG elements (a picture for a slide, a paper or a
// notebook: text stays text, each span a <rect>). Coordinates are pixels of
// the frame, y down; colours are ImGui's packed RGBA (IM_COL32). Text is
// measured with ImGui (CalcTextSize), so an ImGui context with its font must
// exist for either renderer; SvgCanvas names a font with the same metrics
// (DejaVu Sans, ImGui's default here) at ImGui's size.
// Threading: a canvas is used by one thread.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace asyncscope::widgets {

class Canvas {
 public:
  virtual ~Canvas() = default;
  // `corners`: ImDrawFlags_RoundCorners* (0: all of them, where rounded).
  virtual void rect_filled(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, ImDrawFlags corners = 0) = 0;
  virtual void rect(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, float thickness = 1.0f) = 0;
  virtual void line(ImVec2 a, ImVec2 b, ImU32 color, float thickness = 1.0f) = 0;
  virtual void triangle_filled(ImVec2 a, ImVec2 b, ImVec2 c, ImU32 color) = 0;
  virtual void circle_filled(ImVec2 centre, float radius, ImU32 color) = 0;
  virtual void bezier(ImVec2 a, ImVec2 c1, ImVec2 c2, ImVec2 b, ImU32 color, float thickness) = 0;
  // Text with its top-left corner at `pos`, in ImGui's current font and size,
  // clipped to `clip` (min x, min y, max x, max y) when given.
  virtual void text(ImVec2 pos, ImU32 color, std::string_view text, const ImVec4* clip = nullptr) = 0;
  // The area between two polylines over the same x values (a counter's
  // plot): `top[i]` and `bottom[i]` share x; shaded from `top_color` at the
  // top to `bottom_color` at the bottom.
  virtual void band(std::span<const ImVec2> top, std::span<const ImVec2> bottom, ImU32 top_color,
                    ImU32 bottom_color) = 0;
  // Clipping, nested: what is drawn until the matching pop stays inside.
  virtual void push_clip(ImVec2 a, ImVec2 b, bool intersect = true) = 0;
  virtual void pop_clip() = 0;
  virtual ImVec2 clip_min() const = 0;
  virtual ImVec2 clip_max() const = 0;
  // Where the frame may draw at most this many more vertices (ImGui's 16-bit
  // index limit); UINT32_MAX where it has no such limit.
  virtual uint32_t vertices_left() const { return UINT32_MAX; }
};

// The canvas of an ImGui draw list (a window's).
class ImGuiCanvas final : public Canvas {
 public:
  explicit ImGuiCanvas(ImDrawList* list) : list_(list) {}
  ImDrawList* list() const noexcept { return list_; }

  void rect_filled(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, ImDrawFlags corners = 0) override;
  void rect(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, float thickness = 1.0f) override;
  void line(ImVec2 a, ImVec2 b, ImU32 color, float thickness = 1.0f) override;
  void triangle_filled(ImVec2 a, ImVec2 b, ImVec2 c, ImU32 color) override;
  void circle_filled(ImVec2 centre, float radius, ImU32 color) override;
  void bezier(ImVec2 a, ImVec2 c1, ImVec2 c2, ImVec2 b, ImU32 color, float thickness) override;
  void text(ImVec2 pos, ImU32 color, std::string_view text, const ImVec4* clip = nullptr) override;
  void band(std::span<const ImVec2> top, std::span<const ImVec2> bottom, ImU32 top_color, ImU32 bottom_color) override;
  void push_clip(ImVec2 a, ImVec2 b, bool intersect = true) override;
  void pop_clip() override;
  ImVec2 clip_min() const override;
  ImVec2 clip_max() const override;
  uint32_t vertices_left() const override;

 private:
  ImDrawList* list_;
};

// A canvas that writes SVG: finish() gives the document. Spans narrower than
// a pixel are kept as drawn (the lanes fold them before they draw), so the
// size follows what is visible, not the trace's op count.
class SvgCanvas final : public Canvas {
 public:
  SvgCanvas(float width, float height, ImU32 background);

  void rect_filled(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, ImDrawFlags corners = 0) override;
  void rect(ImVec2 a, ImVec2 b, ImU32 color, float rounding = 0.0f, float thickness = 1.0f) override;
  void line(ImVec2 a, ImVec2 b, ImU32 color, float thickness = 1.0f) override;
  void triangle_filled(ImVec2 a, ImVec2 b, ImVec2 c, ImU32 color) override;
  void circle_filled(ImVec2 centre, float radius, ImU32 color) override;
  void bezier(ImVec2 a, ImVec2 c1, ImVec2 c2, ImVec2 b, ImU32 color, float thickness) override;
  void text(ImVec2 pos, ImU32 color, std::string_view text, const ImVec4* clip = nullptr) override;
  void band(std::span<const ImVec2> top, std::span<const ImVec2> bottom, ImU32 top_color, ImU32 bottom_color) override;
  void push_clip(ImVec2 a, ImVec2 b, bool intersect = true) override;
  void pop_clip() override;
  ImVec2 clip_min() const override;
  ImVec2 clip_max() const override;

  // Adds a raw element (a <title>, a group's start or end): for callers that
  // annotate what they draw. `xml` must be well-formed.
  void raw(std::string_view xml);
  // The whole document: the XML declaration, <svg> with its size, the
  // definitions (clip paths, gradients) and the elements.
  std::string finish() const;
  size_t elements() const noexcept { return elements_; }

 private:
  struct Clip {
    ImVec2 min, max;
  };
  // ` fill="#rrggbb"` and ` fill-opacity=".."` where not opaque.
  static void paint(std::string& out, const char* what, ImU32 color);

  float width_, height_;
  std::string defs_, body_;
  std::vector<Clip> clips_;  // the frame's, then each pushed one
  int next_id_ = 0;
  size_t elements_ = 0;
};

// `text` escaped for XML character data and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace asyncscope::widgets
