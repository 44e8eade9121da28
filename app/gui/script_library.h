// The Python scripts the app offers as programs: the example scripts of the
// assets folder (listed in the program picker after the built-in demos) and
// any script the user opened (File > Open script, --script FILE.py). Each is
// a python::ScriptProgram; a run of the editor's text gets its own program
// (run_buffer) so the trace's line numbers are those of the text that ran.
// In a build without Python the list is empty and opening says why.
// Threading: UI thread only.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/demos/program.h"

namespace asyncscope::app {

class ScriptLibrary {
 public:
  // Lists the *.py files of `folder` (sorted by name); a missing folder
  // lists nothing.
  void load_examples(const std::filesystem::path& folder);
  // The scripts folder of the first assets folder that has one:
  // $ASYNCSCOPE_ASSETS/scripts, else the source tree's assets/scripts; ""
  // when neither exists.
  static std::filesystem::path examples_folder();

  // Examples first, then the scripts opened, in the order opened.
  const std::vector<const demos::Program*>& programs() const noexcept { return listed_; }
  // The script at `path` as a program (the one listed already, if any: the
  // same file by another path is the same script).
  // Throws std::invalid_argument saying why not: an unreadable file, a
  // folder, a build without Python.
  const demos::Program& open(const std::string& path);
  // The script's path if `program` is a script, else nullptr.
  static const std::string* path_of(const demos::Program& program) noexcept;
  // A program that runs `source` under `script`'s path; valid until the next
  // call (one run is live at a time, and it ends before the next starts).
  const demos::Program& run_buffer(const demos::Program& script, std::string source);
  // Whether this build runs scripts at all.
  static bool available() noexcept;

 private:
  std::vector<std::unique_ptr<demos::Program>> owned_;
  std::vector<const demos::Program*> listed_;
  std::unique_ptr<demos::Program> buffer_run_;
};

}  // namespace asyncscope::app
