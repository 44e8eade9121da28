// The built-in demos: programs that teach one experiment each, in teaching
// order. One factory per demo file; registry.cpp lists them (an explicit
// list, not static registration, which a static library would silently drop).
// Threading: any thread (the list is built once, on first use).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "engine/demos/program.h"

namespace asyncscope::demos {

const std::vector<std::unique_ptr<Program>>& all_demos();
// Null if there is no demo of that name.
const Program* find_demo(std::string_view name);

std::unique_ptr<Program> make_queued_vs_finished();
std::unique_ptr<Program> make_sync_functions();
std::unique_ptr<Program> make_sync_vs_async();
std::unique_ptr<Program> make_dependency_graph();
std::unique_ptr<Program> make_memory_and_sync();
std::unique_ptr<Program> make_host_vs_gpu();

}  // namespace asyncscope::demos
