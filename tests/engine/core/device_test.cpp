// Device names as the frameworks write them, read once for every frontend.
#include "engine/core/device.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace asyncscope {
namespace {

TEST(DeviceName, TheFrameworksNamesAreRead) {
  EXPECT_EQ(parse_device_name("cpu").kind, DeviceKind::cpu);
  EXPECT_EQ(parse_device_name("cpu").index, -1);
  EXPECT_EQ(parse_device_name("cpu:0").index, 0);
  EXPECT_EQ(parse_device_name("cpu(0)").index, 0);
  EXPECT_EQ(parse_device_name("cuda").kind, DeviceKind::cuda);
  EXPECT_EQ(parse_device_name("cuda").index, -1);
  EXPECT_EQ(parse_device_name("cuda").device(), Device::cuda(0));
  EXPECT_EQ(parse_device_name("cuda:3").device(), Device::cuda(3));
  EXPECT_EQ(parse_device_name("gpu(1)").device(), Device::cuda(1));
  EXPECT_EQ(parse_device_name("gpu").device(), Device::cuda(0));
  EXPECT_EQ(to_string(parse_device_name("gpu(2)").device()), "cuda:2");
}

TEST(DeviceName, AnythingElseSaysWhatADeviceNameLooksLike) {
  for (const char* bad : {"", "tpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "gpu(a)", "cuda:256",
                          "cuda:99999999999999999999", "cpu:1", "CUDA"}) {
    try {
      parse_device_name(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("device"), std::string::npos) << bad << ": " << what;
      EXPECT_EQ(what.find("stoi"), std::string::npos) << bad << ": " << what;
    }
  }
}

}  // namespace
}  // namespace asyncscope
