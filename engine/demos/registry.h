// The factories of the built-in demos, one per demo file; demo.cpp lists them
// in teaching order. (An explicit list, not static registration, which a
// static library would silently drop.)
// Threading: call once, from any thread.
#pragma once

#include <memory>
#include <vector>

#include "engine/demos/demo.h"

namespace asyncscope::demos {

std::unique_ptr<Demo> make_queued_vs_finished();
std::unique_ptr<Demo> make_sync_functions();
std::unique_ptr<Demo> make_sync_vs_async();
std::unique_ptr<Demo> make_dependency_graph();
std::unique_ptr<Demo> make_memory_and_sync();
std::unique_ptr<Demo> make_host_vs_gpu();

std::vector<std::unique_ptr<Demo>> make_builtin_demos();

}  // namespace asyncscope::demos
