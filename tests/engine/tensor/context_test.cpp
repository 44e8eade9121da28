// Context: options, the device a context may use, and (without a GPU) why not.
#include "engine/tensor/context.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/cuda/cuda.h"

namespace asyncscope {
namespace {

TEST(Context, OnAGpuWithoutCudaSaysWhy) {
  if (cuda::available()) GTEST_SKIP() << "a CUDA device is present";
  Context::Options options;
  options.device = Device::cuda(0);
  try {
    Context::create(options);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(cuda::status().reason), std::string::npos) << e.what();
  }
  EXPECT_FALSE(cuda::status().reason.empty());
}

}  // namespace
}  // namespace asyncscope
