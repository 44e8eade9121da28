#include "widgets/colors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace asyncscope::widgets {

ImU32 StateColor(trace::LaneState state) noexcept {
  switch (state) {
    case trace::LaneState::busy: return IM_COL32(0, 158, 115, 255);
    case trace::LaneState::held: return IM_COL32(230, 159, 0, 255);
    case trace::LaneState::starved: return IM_COL32(204, 121, 167, 255);
    case trace::LaneState::running: return IM_COL32(86, 180, 233, 255);
    case trace::LaneState::enqueuing: return IM_COL32(0, 114, 178, 255);
    case trace::LaneState::inflight_bound: return IM_COL32(240, 228, 66, 255);
    default: return IM_COL32(213, 94, 0, 255);  // waiting in a sync point
  }
}

namespace {

// Medium-light colours at least 55 RGB units apart from each other: they stand
// out on the dark background and carry dark text.
constexpr std::array<ImU32, 16> kPalette = {
    IM_COL32(80, 150, 240, 255),   // 0 blue
    IM_COL32(90, 200, 120, 255),   // 1 green
    IM_COL32(245, 160, 60, 255),   // 2 orange
    IM_COL32(235, 95, 110, 255),   // 3 red
    IM_COL32(165, 130, 240, 255),  // 4 violet
    IM_COL32(40, 190, 190, 255),   // 5 teal
    IM_COL32(240, 225, 90, 255),   // 6 yellow
    IM_COL32(250, 150, 140, 255),  // 7 salmon
    IM_COL32(175, 225, 75, 255),   // 8 lime
    IM_COL32(240, 120, 200, 255),  // 9 pink
    IM_COL32(150, 200, 255, 255),  // 10 light blue
    IM_COL32(200, 160, 120, 255),  // 11 tan
    IM_COL32(70, 215, 250, 255),   // 12 cyan
    IM_COL32(150, 240, 190, 255),  // 13 mint
    IM_COL32(215, 165, 240, 255),  // 14 orchid
    IM_COL32(255, 205, 165, 255),  // 15 peach
};
constexpr ImU32 kInternalColor = IM_COL32(112, 120, 134, 255);

constexpr uint32_t fnv1a(std::string_view s) noexcept {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

struct KnownKind {
  std::string_view name;
  uint8_t palette;
};
// The engine's op kinds. Kinds of one family share a colour (add, add_inplace);
// kinds that appear together in a demo (the MLP: dot, add, relu, relu_grad,
// sub, mul_scalar, sum_axis0, transpose, normal, mean, add_scaled, zeros ...)
// get different ones.
constexpr KnownKind kKnown[] = {
    {"dot", 0},          {"add", 1},         {"add_inplace", 1}, {"add_scalar", 9},  {"add_scaled", 8},
    {"mul", 2},          {"mul_inplace", 2}, {"mul_scalar", 15}, {"sub", 3},         {"sub_inplace", 3},
    {"sub_scalar", 3},   {"rsub_scalar", 3}, {"div", 10},        {"div_scalar", 10}, {"rdiv_scalar", 10},
    {"sum", 12},         {"sum_axis0", 5},   {"sum_axis1", 13},  {"mean", 4},        {"norm", 4},
    {"uniform", 6},      {"normal", 6},      {"ones", 11},       {"zeros", 11},      {"full", 11},
    {"relu", 7},         {"relu_grad", 14},  {"copy", 13},       {"from_host", 5},   {"transpose", 10},
    {"negative", 9},
};

struct KnownTable {
  std::array<uint32_t, std::size(kKnown)> hashes{};
  constexpr KnownTable() {
    for (size_t i = 0; i < std::size(kKnown); ++i) hashes[i] = fnv1a(kKnown[i].name);
  }
};
constexpr KnownTable kKnownTable;

int channel(ImU32 c, int shift) noexcept { return static_cast<int>((c >> shift) & 0xFF); }
ImU32 pack(float r, float g, float b, int a) noexcept {
  const auto clamp8 = [](float v) { return static_cast<ImU32>(std::clamp(v, 0.0f, 255.0f) + 0.5f); };
  return IM_COL32(clamp8(r), clamp8(g), clamp8(b), static_cast<ImU32>(std::clamp(a, 0, 255)));
}

// Op kinds present in a model, scanned incrementally as a live model grows.
// A few entries so two stacked timelines do not evict each other every frame.
struct KindCache {
  const trace::TraceModel* model = nullptr;
  const trace::OpInfo* data = nullptr;  // a reallocation or a new model rescans
  size_t scanned = 0;
  std::vector<uint8_t> seen;            // by NameId: 0 no, 1 user op, 2 internal only
  std::vector<trace::NameId> order;     // kinds in order of first appearance
  uint64_t used = 0;
};
std::array<KindCache, 4> g_kind_caches;
uint64_t g_kind_clock = 0;

KindCache& kinds_of(const trace::TraceModel& model) {
  KindCache* slot = &g_kind_caches[0];
  for (KindCache& c : g_kind_caches) {
    if (c.model == &model) {
      slot = &c;
      break;
    }
    if (c.used < slot->used) slot = &c;
  }
  KindCache& c = *slot;
  c.used = ++g_kind_clock;
  if (c.model != &model || c.data != model.ops.data() || c.scanned > model.ops.size()) {
    c = KindCache{&model, model.ops.data(), 0, {}, {}, c.used};
  }
  for (; c.scanned < model.ops.size(); ++c.scanned) {
    const trace::OpInfo& op = model.ops[c.scanned];
    if (!op.known()) continue;
    if (op.name >= c.seen.size()) c.seen.resize(op.name + 1, 0);
    const uint8_t kind = op.internal ? 2 : 1;
    if (c.seen[op.name] == 0) c.order.push_back(op.name);
    if (c.seen[op.name] == 0 || kind == 1) c.seen[op.name] = kind;
  }
  return c;
}

}  // namespace

ImU32 with_alpha(ImU32 color, int alpha) noexcept {
  return (color & ~IM_COL32_A_MASK) | (static_cast<ImU32>(std::clamp(alpha, 0, 255)) << IM_COL32_A_SHIFT);
}

ImU32 scale_rgb(ImU32 color, float factor) noexcept {
  return pack(channel(color, IM_COL32_R_SHIFT) * factor, channel(color, IM_COL32_G_SHIFT) * factor,
              channel(color, IM_COL32_B_SHIFT) * factor, channel(color, IM_COL32_A_SHIFT));
}

ImU32 mix(ImU32 a, ImU32 b, float t) noexcept {
  const auto lerp = [t](int x, int y) { return static_cast<float>(x) + (static_cast<float>(y - x)) * t; };
  return pack(lerp(channel(a, IM_COL32_R_SHIFT), channel(b, IM_COL32_R_SHIFT)),
              lerp(channel(a, IM_COL32_G_SHIFT), channel(b, IM_COL32_G_SHIFT)),
              lerp(channel(a, IM_COL32_B_SHIFT), channel(b, IM_COL32_B_SHIFT)),
              static_cast<int>(lerp(channel(a, IM_COL32_A_SHIFT), channel(b, IM_COL32_A_SHIFT)) + 0.5f));
}

ImU32 text_on(ImU32 fill) noexcept {
  // Rec. 709 luma; the palette sits well above the threshold, muted fills below.
  const float luma = 0.2126f * channel(fill, IM_COL32_R_SHIFT) + 0.7152f * channel(fill, IM_COL32_G_SHIFT) +
                     0.0722f * channel(fill, IM_COL32_B_SHIFT);
  return luma > 120.0f ? theme::kTextDark : theme::kText;
}

ImU32 subdued(ImU32 color) noexcept { return mix(color, theme::kBackground, 0.55f); }

void draw_hatch(Canvas& draw, ImVec2 a, ImVec2 b, ImU32 color) {
  draw.push_clip(a, b, true);
  const float h = b.y - a.y;
  for (float x = std::floor((a.x - h) / 6.0f) * 6.0f; x < b.x; x += 6.0f) {
    draw.line(ImVec2(x, b.y), ImVec2(x + h, a.y), color);
  }
  draw.pop_clip();
}

void draw_arrow(Canvas& draw, ImVec2 a, ImVec2 b, ImU32 color) {
  const float dx = std::max(std::fabs(b.x - a.x) * 0.5f, 24.0f);
  const float lift = std::fabs(b.y - a.y) < 1.0f ? -18.0f : 0.0f;  // same lane: arc over the spans
  const ImVec2 c1(a.x + dx, a.y + lift);
  const ImVec2 c2(b.x - dx, b.y + lift);
  draw.bezier(a, c1, c2, b, color, 1.5f);
  ImVec2 dir(b.x - c2.x, b.y - c2.y);
  const float len = std::sqrt(dir.x * dir.x + dir.y * dir.y);
  if (len < 1e-3f) return;
  dir = ImVec2(dir.x / len, dir.y / len);
  const ImVec2 n(-dir.y, dir.x);
  draw.triangle_filled(b, ImVec2(b.x - dir.x * 7 + n.x * 3.5f, b.y - dir.y * 7 + n.y * 3.5f),
                          ImVec2(b.x - dir.x * 7 - n.x * 3.5f, b.y - dir.y * 7 - n.y * 3.5f), color);
}

ImU32 OpColor(std::string_view op_name) {
  if (op_name == "free") return kInternalColor;
  const uint32_t h = fnv1a(op_name);
  for (size_t i = 0; i < std::size(kKnown); ++i) {
    if (kKnownTable.hashes[i] == h && kKnown[i].name == op_name) return kPalette[kKnown[i].palette];
  }
  return kPalette[(h ^ (h >> 16)) % kPalette.size()];
}

namespace {

// One swatch and its label, wrapping before it when it would not fit.
void legend_item(ImU32 color, std::string_view label, bool first, float right, bool dim = false) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float swatch = ImGui::GetTextLineHeight() * 0.8f;
  const float w = swatch + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label.data(), label.data() + label.size()).x;
  if (!first) {
    ImGui::SameLine(0, style.ItemSpacing.x * 2);
    if (ImGui::GetCursorScreenPos().x + w > right) ImGui::NewLine();
  }
  ImGui::BeginGroup();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float pad = (ImGui::GetTextLineHeight() - swatch) * 0.5f;
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + pad), ImVec2(p.x + swatch, p.y + pad + swatch), color, 2.0f);
  ImGui::Dummy(ImVec2(swatch, ImGui::GetTextLineHeight()));
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  ImGui::PushStyleColor(ImGuiCol_Text, dim ? theme::kTextDim : theme::kText);
  ImGui::TextUnformatted(label.data(), label.data() + label.size());
  ImGui::PopStyleColor();
  ImGui::EndGroup();
}

}  // namespace

void StateLegend() {
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  ImGui::TextDisabled("workers:");
  ImGui::SameLine();
  legend_item(StateColor(trace::LaneState::busy), "busy", true, right);
  legend_item(StateColor(trace::LaneState::held), "held (ops pending)", false, right);
  legend_item(StateColor(trace::LaneState::starved), "starved (nothing pushed)", false, right);
  ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 4);
  ImGui::TextDisabled("frontend:");
  ImGui::SameLine();
  legend_item(StateColor(trace::LaneState::running), "running", true, right);
  legend_item(StateColor(trace::LaneState::enqueuing), "enqueuing", false, right);
  legend_item(StateColor(trace::LaneState::wait_all), "waiting", false, right);
  legend_item(StateColor(trace::LaneState::inflight_bound), "in-flight bound", false, right);
}

void OpLegend(const trace::TraceModel& model) {
  const KindCache& kinds = kinds_of(model);
  if (kinds.order.empty()) {
    ImGui::TextDisabled("no ops yet");
    return;
  }
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  // A profiler's trace has hundreds of kinds, some with names of a thousand
  // characters (C++ kernel templates): the legend shows the first ones,
  // shortened, and counts the rest (a span's tooltip names it in full).
  constexpr size_t kMaxKinds = 24, kMaxLabel = 40;
  bool first = true;
  size_t shown = 0;
  std::string label;
  for (trace::NameId id : kinds.order) {
    if (shown == kMaxKinds) break;
    const std::string_view name = model.name(id);
    const bool internal = kinds.seen[id] == 2;
    label.assign(name.substr(0, kMaxLabel));
    if (name.size() > kMaxLabel) label += "...";
    legend_item(internal ? subdued(OpColor(name)) : OpColor(name), label, first, right, internal);
    first = false;
    ++shown;
  }
  if (shown < kinds.order.size()) {
    label = std::to_string(kinds.order.size() - shown);
    label.insert(0, 1, '+');
    label.append(" more kinds");
    legend_item(theme::kTextDim, label, false, right, true);
  }
}

}  // namespace asyncscope::widgets
