#include "engine/base/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace asyncscope {

std::string read_whole_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::invalid_argument("no such file");
  if (std::filesystem::is_directory(path, ec)) throw std::invalid_argument("it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(std::strerror(errno));
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) throw std::invalid_argument(std::strerror(errno));
  return text;
}

}  // namespace asyncscope
