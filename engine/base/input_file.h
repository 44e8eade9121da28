// Reading a whole file (a script, a demo's explanation), with the reason
// when it cannot be read. A file is read once: a pipe or a FIFO gives its
// text to one reader only.
// Threading: any thread.
#pragma once

#include <string>

namespace asyncscope {

// The file's bytes. std::invalid_argument with the reason, without the path:
// "no such file", "it is a folder", or the system's ("Permission denied").
std::string read_whole_file(const std::string& path);

}  // namespace asyncscope
