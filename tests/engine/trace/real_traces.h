// The real profilers' traces the tests read (../shared/traces beside the
// checkout, or ASYNCSCOPE_REAL_TRACES), and their raw events, for figures
// computed by hand.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/trace/trace_file.h"

namespace asyncscope::trace::testing {

inline std::string real_traces_dir() {
  if (const char* env = std::getenv("ASYNCSCOPE_REAL_TRACES")) return env;
  return ASYNCSCOPE_REAL_TRACES;
}

// The path of a real trace, or "" when the folder is not there.
inline std::string real_trace(const std::string& name) {
  const std::string path = real_traces_dir() + "/" + name;
  return std::filesystem::exists(path) ? path : "";
}

#define ASYNCSCOPE_REAL_TRACE(var, name)                                                                  \
  const std::string var = ::asyncscope::trace::testing::real_trace(name);                                \
  if (var.empty()) GTEST_SKIP() << "no " << (name) << " in " << ::asyncscope::trace::testing::real_traces_dir() \
                                << " (the real traces live in ../shared/traces beside the checkout)"

// The file's events as JSON (the bare list, or traceEvents).
inline nlohmann::json raw_events(const std::string& path) {
  TraceFile file(path);
  std::string text((std::istreambuf_iterator<char>(file.stream())), std::istreambuf_iterator<char>());
  nlohmann::json doc = nlohmann::json::parse(text);
  return doc.is_array() ? doc : doc["traceEvents"];
}

// ts or dur of a raw event in ns (numbers or strings of microseconds).
inline int64_t raw_ns(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<int64_t>() * 1000;  // exact, unlike a double of absolute microseconds
  const double us = v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>();
  return static_cast<int64_t>(std::llround(us * 1000.0));
}

}  // namespace asyncscope::trace::testing
