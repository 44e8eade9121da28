// Every demo's trace exports as a well-formed Chrome trace (what Perfetto and
// chrome://tracing load: nesting spans per thread, paired flows, names) and
// reads back into the same model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/trace/chrome_trace.h"
#include "engine/trace/chrome_trace_checks.h"
#include "engine/trace/model_checks.h"
#include "support/run_program.h"

namespace asyncscope::demos {
namespace {

const std::map<std::string, std::vector<std::pair<std::string, std::string>>>& small_configs() {
  static const std::map<std::string, std::vector<std::pair<std::string, std::string>>> configs = {
      {"queued-vs-finished", {{"size", "128"}}},
      {"sync-functions", {{"size", "96"}, {"unrelated", "2"}}},
      {"sync-vs-async", {{"iterations", "40"}, {"size", "32"}}},
      {"dependency-graph", {{"size", "64"}}},
      {"memory-and-sync", {{"batches", "3"}, {"batch-size", "32"}}},
      {"host-vs-gpu", {{"repeats", "2"}, {"size", "64"}}},
  };
  return configs;
}

TEST(DemoTraces, EveryDemoExportsAWellFormedTraceThatReadsBackExactly) {
  for (const auto& demo : all_demos()) {
    SCOPED_TRACE(demo->name());
    ASSERT_TRUE(small_configs().count(demo->name())) << "add a small configuration for " << demo->name();
    const trace::TraceModel model = testing::run_program(*demo, small_configs().at(demo->name())).model;

    const std::string text = trace::to_chrome_trace_json(model, {demo->name(), {}});
    const nlohmann::json doc = nlohmann::json::parse(text);
    const auto spans = trace::checks::spans_by_tid(doc);
    trace::checks::expect_spans_nest(spans);
    trace::checks::expect_flows_pair_up(doc, spans);
    size_t thread_names = 0, counters = 0;
    for (const auto& e : doc["traceEvents"]) {
      thread_names += e["ph"] == "M" && e["name"] == "thread_name";
      counters += e["ph"] == "C";
    }
    EXPECT_GE(thread_names, 2u + model.workers.size() - 1);
    EXPECT_GT(counters, 0u);

    const trace::TraceModel back = trace::parse_chrome_trace(text, demo->name());
    trace::expect_same_model(model, back);
  }
}

}  // namespace
}  // namespace asyncscope::demos
