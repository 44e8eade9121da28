// A value-parameterised test fixture that runs each test on the threaded
// engine (2 workers) and on the naive reference engine.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/tensor/context.h"

namespace asyncscope::testing {

class BothEngines : public ::testing::TestWithParam<EngineKind> {
 protected:
  ContextPtr ctx() {
    Context::Options options;
    options.engine.kind = GetParam();
    options.engine.cpu_workers = 2;
    return Context::create(options);
  }
};

// Test names say which engine ran: Suite/Test/threaded, Suite/Test/naive.
inline std::string engine_name(const ::testing::TestParamInfo<EngineKind>& info) { return to_string(info.param); }

}  // namespace asyncscope::testing
