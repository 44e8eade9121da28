#include "app/gui/script_library.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#if ASYNCSCOPE_HAS_PYTHON
#include "python/embed/script_program.h"
#endif

namespace asyncscope::app {

namespace fs = std::filesystem;

fs::path ScriptLibrary::examples_folder() {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("ASYNCSCOPE_ASSETS"); env && *env) roots.emplace_back(env);
  roots.emplace_back(ASYNCSCOPE_ASSETS_DIR);
  for (const fs::path& root : roots) {
    std::error_code ec;
    if (fs::is_directory(root / "scripts", ec)) return root / "scripts";
  }
  return {};
}

void ScriptLibrary::load_examples(const fs::path& folder) {
  if (!available() || folder.empty()) return;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".py" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    try {
      open(f.lexically_normal().string());
    } catch (const std::invalid_argument&) {
      // An unreadable example is left out of the list; opening it by path says why.
    }
  }
}

bool ScriptLibrary::available() noexcept {
#if ASYNCSCOPE_HAS_PYTHON
  return true;
#else
  return false;
#endif
}

const std::string* ScriptLibrary::path_of(const demos::Program& program) noexcept {
#if ASYNCSCOPE_HAS_PYTHON
  if (const auto* script = dynamic_cast<const python::ScriptProgram*>(&program)) return &script->path();
#else
  (void)program;
#endif
  return nullptr;
}

const demos::Program& ScriptLibrary::open(const std::string& path) {
#if ASYNCSCOPE_HAS_PYTHON
  if (path.empty()) throw std::invalid_argument("no script given: type the path of a .py file");
  python::ScriptProgram::read_source(path);  // throws why it cannot be read
  for (const demos::Program* p : listed_) {
    std::error_code ec;
    if (*path_of(*p) == path || fs::equivalent(*path_of(*p), path, ec)) return *p;
  }
  owned_.push_back(std::make_unique<python::ScriptProgram>(path));
  listed_.push_back(owned_.back().get());
  return *owned_.back();
#else
  throw std::invalid_argument("cannot open " + path +
                              ": this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
#endif
}

const demos::Program& ScriptLibrary::run_buffer(const demos::Program& script, std::string source) {
#if ASYNCSCOPE_HAS_PYTHON
  const std::string* path = path_of(script);
  if (path == nullptr) throw std::logic_error("run_buffer: not a script");
  buffer_run_ = std::make_unique<python::ScriptProgram>(*path, std::move(source));
  return *buffer_run_;
#else
  (void)source;
  return script;
#endif
}

}  // namespace asyncscope::app
