// ResultsTable: the result tables of the session's runs side by side, one
// column per run, rows the union of their keys, the current run highlighted
// and later runs hinting at their change against the first.
// Threading: UI thread only.
#pragma once

#include "engine/base/format.h"
#include <imgui.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace asyncscope::widgets {

// One number of one run. unit: "s", "us", "MB", "x", "GFLOP/s", "%" or "".
struct ResultCell {
  std::string key, label;
  double value = 0;
  std::string unit;
};

// One run: title e.g. "run 3: memory-and-sync", subtitle its parameters.
struct ResultColumn {
  std::string title;
  std::string subtitle;
  std::vector<ResultCell> cells;
  bool current = false;
};

// Draws the table in the available region (or `size`): a frozen label column,
// a frozen header row, resizable run columns that scroll horizontally when
// they do not fit. Draws a short hint instead when there are no columns.
void ResultsTable(const char* id, std::span<const ResultColumn> columns, ImVec2 size = ImVec2(0, 0));

// The table's formatting is the project's one result formatter (the CLI
// prints the same text): see engine/base/format.h.
inline std::string FormatValue(double value, std::string_view unit) { return format_value(value, unit); }
inline std::string FormatChange(double value, double first) { return format_change(value, first); }

// Row keys in column order of first appearance (what the table's rows are).
std::vector<std::string> ResultRowKeys(std::span<const ResultColumn> columns);

}  // namespace asyncscope::widgets
