#include "widgets/results_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

namespace asyncscope::widgets {
namespace {

constexpr const char* kDash = "\xE2\x80\x94";  // — (U+2014), a missing cell
constexpr float kMaxSubtitleWidth = 260.0f;     // longer parameter lists wrap

struct Grid {
  std::vector<std::string> keys;
  std::vector<std::string> labels;
  // cells[row * columns + column]: index into that column's cells, or -1.
  std::vector<int> cells;
};

Grid build_grid(std::span<const ResultColumn> columns) {
  Grid g;
  std::unordered_map<std::string, size_t> row_of;
  for (const ResultColumn& column : columns) {
    for (const ResultCell& cell : column.cells) {
      if (row_of.emplace(cell.key, g.keys.size()).second) {
        g.keys.push_back(cell.key);
        g.labels.push_back(cell.label.empty() ? cell.key : cell.label);
      }
    }
  }
  g.cells.assign(g.keys.size() * columns.size(), -1);
  for (size_t c = 0; c < columns.size(); ++c) {
    const auto& cells = columns[c].cells;
    for (size_t i = 0; i < cells.size(); ++i) {
      int& slot = g.cells[row_of[cells[i].key] * columns.size() + c];
      if (slot < 0) slot = static_cast<int>(i);  // a repeated key keeps its first value
    }
  }
  return g;
}

ImU32 current_column_bg() {
  ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive);
  c.w = 0.22f;
  return ImGui::GetColorU32(c);
}

void cell_tooltip(const ResultColumn& column, const ResultCell& cell, const ResultCell* first) {
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(column.title.c_str());
  ImGui::TextDisabled("%s (%s)", cell.label.empty() ? cell.key.c_str() : cell.label.c_str(), cell.key.c_str());
  ImGui::Text("%.12g %s", cell.value, cell.unit.c_str());  // enough digits to quote, no float noise
  if (first) {
    const std::string change = FormatChange(cell.value, first->value);
    ImGui::Text("first run: %s%s%s", FormatValue(first->value, first->unit).c_str(), change.empty() ? "" : ", change ",
                change.c_str());
  }
  ImGui::EndTooltip();
}

}  // namespace

std::vector<std::string> ResultRowKeys(std::span<const ResultColumn> columns) { return build_grid(columns).keys; }

void ResultsTable(const char* id, std::span<const ResultColumn> columns, ImVec2 size) {
  ImGui::PushID(id);
  if (columns.empty()) {
    ImGui::TextDisabled("No results yet: run a demo and its numbers appear here, next to earlier runs.");
    ImGui::PopID();
    return;
  }
  const Grid grid = build_grid(columns);
  const size_t ncols = columns.size();
  const ImGuiStyle& style = ImGui::GetStyle();

  // Format every cell once: the texts size the columns and are drawn below.
  std::vector<std::string> values(grid.cells.size()), hints(grid.cells.size());
  std::vector<float> widths(ncols, 0.0f);
  for (size_t c = 0; c < ncols; ++c) {
    widths[c] = std::max(ImGui::CalcTextSize(columns[c].title.c_str()).x,
                         std::min(ImGui::CalcTextSize(columns[c].subtitle.c_str()).x, kMaxSubtitleWidth));
  }
  for (size_t r = 0; r < grid.keys.size(); ++r) {
    const int first_index = grid.cells[r * ncols];
    const ResultCell* first = first_index >= 0 ? &columns[0].cells[first_index] : nullptr;
    for (size_t c = 0; c < ncols; ++c) {
      const size_t g = r * ncols + c;
      if (grid.cells[g] < 0) continue;
      const ResultCell& cell = columns[c].cells[grid.cells[g]];
      values[g] = FormatValue(cell.value, cell.unit);
      if (c > 0 && first && first->unit == cell.unit) hints[g] = FormatChange(cell.value, first->value);
      float w = ImGui::CalcTextSize(values[g].c_str()).x;
      if (!hints[g].empty()) w += style.ItemSpacing.x + ImGui::CalcTextSize(hints[g].c_str()).x;
      widths[c] = std::max(widths[c], w);
    }
  }
  float label_width = ImGui::CalcTextSize("result").x;
  for (const std::string& label : grid.labels)
    label_width = std::max(label_width, ImGui::CalcTextSize(label.c_str()).x);

  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_BordersOuter |
                                ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoSavedSettings;
  // ImGui applies a fixed column's width only when the table is created, so a
  // table first drawn with no rows (a run just started) would keep a label
  // column sized for "result". A new shape (rows, runs) makes a new table.
  ImGui::PushID(static_cast<int>(grid.keys.size() * 1000 + ncols));
  if (!ImGui::BeginTable("##results", static_cast<int>(ncols) + 1, flags, size)) {
    ImGui::PopID();
    ImGui::PopID();
    return;
  }
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("result", ImGuiTableColumnFlags_WidthFixed | ImGuiTableColumnFlags_NoHide, label_width);
  for (size_t c = 0; c < ncols; ++c) {
    ImGui::TableSetupColumn(columns[c].title.c_str(), ImGuiTableColumnFlags_WidthFixed,
                            widths[c] + style.CellPadding.x);
  }
  const ImU32 current_bg = current_column_bg();

  // Header: title, then the run's parameters, dimmed and wrapped to the column.
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableSetColumnIndex(0);
  ImGui::TableHeader("result");
  for (size_t c = 0; c < ncols; ++c) {
    ImGui::TableSetColumnIndex(static_cast<int>(c) + 1);
    ImGui::PushID(static_cast<int>(c));
    if (columns[c].current) {
      ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, current_bg);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram));
    }
    ImGui::TableHeader(columns[c].title.c_str());
    if (columns[c].current) ImGui::PopStyleColor();
    if (!columns[c].subtitle.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped("%s", columns[c].subtitle.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::PopID();
  }

  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(grid.keys.size()));
  while (clipper.Step()) {
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(grid.labels[r].c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", grid.keys[r].c_str());
      const int first_index = grid.cells[r * ncols];
      const ResultCell* first = first_index >= 0 ? &columns[0].cells[first_index] : nullptr;
      for (size_t c = 0; c < ncols; ++c) {
        ImGui::TableSetColumnIndex(static_cast<int>(c) + 1);
        if (columns[c].current) ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, current_bg);
        const size_t g = r * ncols + c;
        if (grid.cells[g] < 0) {
          ImGui::TextDisabled("%s", kDash);
          continue;
        }
        // Numbers right-aligned so their magnitudes line up down a column.
        const float value_w = ImGui::CalcTextSize(values[g].c_str()).x;
        const float hint_w = hints[g].empty() ? 0.0f : style.ItemSpacing.x + ImGui::CalcTextSize(hints[g].c_str()).x;
        const float slack = ImGui::GetContentRegionAvail().x - value_w - hint_w;
        if (slack > 0) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + slack);
        ImGui::TextUnformatted(values[g].c_str());
        const bool hovered = ImGui::IsItemHovered();
        if (!hints[g].empty()) {
          ImGui::SameLine();
          ImGui::TextDisabled("%s", hints[g].c_str());
        }
        if (hovered || ImGui::IsItemHovered()) {
          cell_tooltip(columns[c], columns[c].cells[grid.cells[g]],
                       c > 0 && first && first->unit == columns[c].cells[grid.cells[g]].unit ? first : nullptr);
        }
      }
    }
  }
  ImGui::EndTable();
  ImGui::PopID();  // the shape ID
  ImGui::PopID();
}

}  // namespace asyncscope::widgets
