// Reading a whole file: its bytes as they are, and the reason when it cannot
// be read (without the path, which the caller adds).
#include "engine/base/input_file.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace asyncscope {
namespace {

std::string reason(const std::string& path) {
  try {
    read_whole_file(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, ReadsTheBytesOrSaysWhyNot) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "input_file_test";
  std::filesystem::create_directories(dir);
  const std::string text("\xef\xbb\xbf" "a\r\nb\0c", 8);
  std::ofstream((dir / "f.py").string(), std::ios::binary) << text;
  EXPECT_EQ(read_whole_file((dir / "f.py").string()), text);
  std::ofstream((dir / "empty.py").string());
  EXPECT_EQ(read_whole_file((dir / "empty.py").string()), "");
  EXPECT_EQ(reason((dir / "missing.py").string()), "no such file");
  EXPECT_EQ(reason(dir.string()), "it is a folder");
  if (::geteuid() != 0) {  // root reads anything
    ::chmod((dir / "f.py").c_str(), 0);
    EXPECT_EQ(reason((dir / "f.py").string()), "Permission denied");
  }
}

}  // namespace
}  // namespace asyncscope
