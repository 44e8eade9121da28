// Writing result files safely: check a destination before a run starts, and
// write through a temporary file renamed into place, so a failure never
// leaves a truncated file or clobbers an existing one.
// Threading: any thread.
#pragma once

#include <string>

namespace asyncscope::app {

// "" if `path` can be written (its folder exists and is writable, and it is
// not a folder itself); otherwise a short reason.
std::string check_writable(const std::string& path);

// Writes text to path via a temporary file in the same folder and rename().
// Throws std::runtime_error naming the path and the reason.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace asyncscope::app
