#include "widgets/canvas.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace asyncscope::widgets {

// --- ImGui ----------------------------------------------------------------------

void ImGuiCanvas::rect_filled(ImVec2 a, ImVec2 b, ImU32 color, float rounding, ImDrawFlags corners) {
  list_->AddRectFilled(a, b, color, rounding, corners);
}
void ImGuiCanvas::rect(ImVec2 a, ImVec2 b, ImU32 color, float rounding, float thickness) {
  list_->AddRect(a, b, color, rounding, 0, thickness);
}
void ImGuiCanvas::line(ImVec2 a, ImVec2 b, ImU32 color, float thickness) { list_->AddLine(a, b, color, thickness); }
void ImGuiCanvas::triangle_filled(ImVec2 a, ImVec2 b, ImVec2 c, ImU32 color) {
  list_->AddTriangleFilled(a, b, c, color);
}
void ImGuiCanvas::circle_filled(ImVec2 centre, float radius, ImU32 color) {
  list_->AddCircleFilled(centre, radius, color);
}
void ImGuiCanvas::bezier(ImVec2 a, ImVec2 c1, ImVec2 c2, ImVec2 b, ImU32 color, float thickness) {
  list_->AddBezierCubic(a, c1, c2, b, color, thickness);
}
void ImGuiCanvas::text(ImVec2 pos, ImU32 color, std::string_view text, const ImVec4* clip) {
  list_->AddText(ImGui::GetFont(), ImGui::GetFontSize(), pos, color, text.data(), text.data() + text.size(), 0.0f,
                 clip);
}

void ImGuiCanvas::band(std::span<const ImVec2> top, std::span<const ImVec2> bottom, ImU32 top_color,
                       ImU32 bottom_color) {
  const size_t n = std::min(top.size(), bottom.size());
  if (n < 2) return;
  // A triangle strip: one vertex pair per point, two triangles per step.
  const ImVec2 uv = ImGui::GetFontTexUvWhitePixel();
  list_->PrimReserve(static_cast<int>((n - 1) * 6), static_cast<int>(n * 2));
  const auto base = static_cast<unsigned>(list_->_VtxCurrentIdx);
  for (size_t i = 0; i < n; ++i) {
    list_->PrimWriteVtx(top[i], uv, top_color);
    list_->PrimWriteVtx(bottom[i], uv, bottom_color);
  }
  for (unsigned i = 0; i + 1 < static_cast<unsigned>(n); ++i) {
    const unsigned v = base + i * 2;  // top, bottom, next top, next bottom
    for (unsigned k : {0u, 1u, 2u, 1u, 3u, 2u}) list_->PrimWriteIdx(static_cast<ImDrawIdx>(v + k));
  }
}

void ImGuiCanvas::push_clip(ImVec2 a, ImVec2 b, bool intersect) { list_->PushClipRect(a, b, intersect); }
void ImGuiCanvas::pop_clip() { list_->PopClipRect(); }
ImVec2 ImGuiCanvas::clip_min() const { return list_->GetClipRectMin(); }
ImVec2 ImGuiCanvas::clip_max() const { return list_->GetClipRectMax(); }

uint32_t ImGuiCanvas::vertices_left() const {
  // Dear ImGui's 16-bit indices cap a draw list at 65536 vertices unless the
  // backend lets it offset them.
  if (sizeof(ImDrawIdx) > 2 || (list_->Flags & ImDrawListFlags_AllowVtxOffset)) return UINT32_MAX;
  constexpr unsigned limit = 1u << 16;
  return list_->_VtxCurrentIdx < limit ? limit - list_->_VtxCurrentIdx : 0;
}

// --- SVG --------------------------------------------------------------------------

namespace {

// A coordinate with one decimal (the frame is in pixels), without trailing zeros.
void num(std::string& out, float v) {
  char buf[32];
  const double r = static_cast<double>(std::lround(static_cast<double>(v) * 10.0)) / 10.0;
  int n = std::snprintf(buf, sizeof buf, "%.1f", r);
  if (n >= 2 && buf[n - 1] == '0' && buf[n - 2] == '.') n -= 2;
  if (n == 2 && buf[0] == '-' && buf[1] == '0') {
    buf[0] = '0';
    n = 1;
  }
  out.append(buf, static_cast<size_t>(n));
}

void attr(std::string& out, const char* name, float v) {
  out += ' ';
  out += name;
  out += "=\"";
  num(out, v);
  out += '"';
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
          // XML 1.0 has no other C0 controls than tab, newline and return.
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            out += "\xEF\xBF\xBD";
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // A whole, shortest-form UTF-8 sequence passes; anything else is U+FFFD.
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && len == 3) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);  // overlong, surrogate
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

SvgCanvas::SvgCanvas(float width, float height, ImU32 background) : width_(width), height_(height) {
  rect_filled(ImVec2(0, 0), ImVec2(width, height), background);
  clips_.push_back(Clip{ImVec2(0, 0), ImVec2(width, height)});
}

void SvgCanvas::paint(std::string& out, const char* what, ImU32 color) {
  char buf[64];
  const unsigned r = color & 0xFF, g = (color >> 8) & 0xFF, b = (color >> 16) & 0xFF, a = (color >> 24) & 0xFF;
  std::snprintf(buf, sizeof buf, " %s=\"#%02x%02x%02x\"", what, r, g, b);
  out += buf;
  if (a != 255) {
    // fill-opacity, stroke-opacity; a gradient stop's is stop-opacity.
    const std::string_view name(what);
    const std::string opacity = name == "stop-color" ? "stop-opacity" : std::string(name) + "-opacity";
    std::snprintf(buf, sizeof buf, " %s=\"%.3g\"", opacity.c_str(), static_cast<double>(a) / 255.0);
    out += buf;
  }
}

void SvgCanvas::rect_filled(ImVec2 a, ImVec2 b, ImU32 color, float rounding, ImDrawFlags corners) {
  // Some corners only: square ones (a tag's rounding is a detail of the window).
  if (corners != 0 && (corners & ImDrawFlags_RoundCornersAll) != ImDrawFlags_RoundCornersAll) rounding = 0;
  if ((color >> 24) == 0 || b.x <= a.x || b.y <= a.y) return;
  body_ += "<rect";
  attr(body_, "x", a.x);
  attr(body_, "y", a.y);
  attr(body_, "width", b.x - a.x);
  attr(body_, "height", b.y - a.y);
  if (rounding > 0) attr(body_, "rx", rounding);
  paint(body_, "fill", color);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::rect(ImVec2 a, ImVec2 b, ImU32 color, float rounding, float thickness) {
  if ((color >> 24) == 0) return;
  // ImGui strokes inside the box's pixel edges: half a pixel in.
  body_ += "<rect";
  attr(body_, "x", a.x + 0.5f);
  attr(body_, "y", a.y + 0.5f);
  attr(body_, "width", std::max(0.0f, b.x - a.x - 1.0f));
  attr(body_, "height", std::max(0.0f, b.y - a.y - 1.0f));
  if (rounding > 0) attr(body_, "rx", rounding);
  body_ += " fill=\"none\"";
  paint(body_, "stroke", color);
  if (thickness != 1.0f) attr(body_, "stroke-width", thickness);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::line(ImVec2 a, ImVec2 b, ImU32 color, float thickness) {
  if ((color >> 24) == 0) return;
  body_ += "<line";
  attr(body_, "x1", a.x);
  attr(body_, "y1", a.y);
  attr(body_, "x2", b.x);
  attr(body_, "y2", b.y);
  paint(body_, "stroke", color);
  if (thickness != 1.0f) attr(body_, "stroke-width", thickness);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::triangle_filled(ImVec2 a, ImVec2 b, ImVec2 c, ImU32 color) {
  body_ += "<path d=\"M";
  for (const ImVec2& p : {a, b, c}) {
    num(body_, p.x);
    body_ += ',';
    num(body_, p.y);
    body_ += ' ';
  }
  body_ += "Z\"";
  paint(body_, "fill", color);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::circle_filled(ImVec2 centre, float radius, ImU32 color) {
  body_ += "<circle";
  attr(body_, "cx", centre.x);
  attr(body_, "cy", centre.y);
  attr(body_, "r", radius);
  paint(body_, "fill", color);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::bezier(ImVec2 a, ImVec2 c1, ImVec2 c2, ImVec2 b, ImU32 color, float thickness) {
  body_ += "<path d=\"M";
  num(body_, a.x);
  body_ += ',';
  num(body_, a.y);
  body_ += " C";
  for (const ImVec2& p : {c1, c2, b}) {
    num(body_, p.x);
    body_ += ',';
    num(body_, p.y);
    body_ += ' ';
  }
  body_ += "\" fill=\"none\"";
  paint(body_, "stroke", color);
  attr(body_, "stroke-width", thickness);
  body_ += "/>\n";
  ++elements_;
}

void SvgCanvas::text(ImVec2 pos, ImU32 color, std::string_view text, const ImVec4* clip) {
  if (text.empty()) return;
  const float size = ImGui::GetFontSize();
  const ImFont* font = ImGui::GetFont();
  const float ascent = font != nullptr && font->FontSize > 0 ? font->Ascent * size / font->FontSize : size * 0.8f;
  bool clipped = false;
  if (clip != nullptr) {
    const ImVec2 extent = ImGui::CalcTextSize(text.data(), text.data() + text.size());
    clipped = pos.x < clip->x || pos.x + extent.x > clip->z || pos.y < clip->y || pos.y + extent.y > clip->w;
  }
  if (clipped) {
    const int id = next_id_++;
    defs_ += "<clipPath id=\"t" + std::to_string(id) + "\"><rect";
    attr(defs_, "x", clip->x);
    attr(defs_, "y", clip->y);
    attr(defs_, "width", std::max(0.0f, clip->z - clip->x));
    attr(defs_, "height", std::max(0.0f, clip->w - clip->y));
    defs_ += "/></clipPath>\n";
    body_ += "<text clip-path=\"url(#t" + std::to_string(id) + ")\"";
  } else {
    body_ += "<text";
  }
  attr(body_, "x", pos.x);
  attr(body_, "y", pos.y + ascent);
  attr(body_, "font-size", size);
  paint(body_, "fill", color);
  body_ += " xml:space=\"preserve\">";
  body_ += xml_escape(text);
  body_ += "</text>\n";
  ++elements_;
}

void SvgCanvas::band(std::span<const ImVec2> top, std::span<const ImVec2> bottom, ImU32 top_color,
                     ImU32 bottom_color) {
  const size_t n = std::min(top.size(), bottom.size());
  if (n < 2) return;
  float y_min = top[0].y, y_max = bottom[0].y;
  for (size_t i = 0; i < n; ++i) {
    y_min = std::min(y_min, top[i].y);
    y_max = std::max(y_max, bottom[i].y);
  }
  const int id = next_id_++;
  defs_ += "<linearGradient id=\"g" + std::to_string(id) + "\" gradientUnits=\"userSpaceOnUse\" x1=\"0\" x2=\"0\"";
  attr(defs_, "y1", y_min);
  attr(defs_, "y2", std::max(y_max, y_min + 1.0f));
  defs_ += "><stop offset=\"0\"";
  paint(defs_, "stop-color", top_color);
  defs_ += "/><stop offset=\"1\"";
  paint(defs_, "stop-color", bottom_color);
  defs_ += "/></linearGradient>\n";
  body_ += "<path d=\"M";
  for (size_t i = 0; i < n; ++i) {
    num(body_, top[i].x);
    body_ += ',';
    num(body_, top[i].y);
    body_ += ' ';
  }
  for (size_t i = n; i-- > 0;) {
    num(body_, bottom[i].x);
    body_ += ',';
    num(body_, bottom[i].y);
    body_ += ' ';
  }
  body_ += "Z\" fill=\"url(#g" + std::to_string(id) + ")\"/>\n";
  ++elements_;
}

void SvgCanvas::push_clip(ImVec2 a, ImVec2 b, bool intersect) {
  Clip c{a, b};
  if (intersect && !clips_.empty()) {
    const Clip& outer = clips_.back();
    c.min = ImVec2(std::max(a.x, outer.min.x), std::max(a.y, outer.min.y));
    c.max = ImVec2(std::min(b.x, outer.max.x), std::min(b.y, outer.max.y));
  }
  clips_.push_back(c);
  const int id = next_id_++;
  defs_ += "<clipPath id=\"c" + std::to_string(id) + "\"><rect";
  attr(defs_, "x", c.min.x);
  attr(defs_, "y", c.min.y);
  attr(defs_, "width", std::max(0.0f, c.max.x - c.min.x));
  attr(defs_, "height", std::max(0.0f, c.max.y - c.min.y));
  defs_ += "/></clipPath>\n";
  body_ += "<g clip-path=\"url(#c" + std::to_string(id) + ")\">\n";
}

void SvgCanvas::pop_clip() {
  if (clips_.size() <= 1) return;  // the frame's own stays
  clips_.pop_back();
  body_ += "</g>\n";
}

ImVec2 SvgCanvas::clip_min() const { return clips_.back().min; }
ImVec2 SvgCanvas::clip_max() const { return clips_.back().max; }

void SvgCanvas::raw(std::string_view xml) { body_ += xml; }

std::string SvgCanvas::finish() const {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"";
  attr(out, "width", width_);
  attr(out, "height", height_);
  out += " viewBox=\"0 0 ";
  num(out, width_);
  out += ' ';
  num(out, height_);
  out += "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n";
  if (!defs_.empty()) out += "<defs>\n" + defs_ + "</defs>\n";
  out += body_;
  for (size_t i = 1; i < clips_.size(); ++i) out += "</g>\n";  // clips left open
  out += "</svg>\n";
  return out;
}

}  // namespace asyncscope::widgets
