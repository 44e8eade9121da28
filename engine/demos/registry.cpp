#include "engine/demos/registry.h"

namespace asyncscope::demos {

const std::vector<std::unique_ptr<Program>>& all_demos() {
  static const std::vector<std::unique_ptr<Program>> demos = [] {
    std::vector<std::unique_ptr<Program>> list;
    list.push_back(make_queued_vs_finished());
    list.push_back(make_sync_functions());
    list.push_back(make_sync_vs_async());
    list.push_back(make_dependency_graph());
    list.push_back(make_memory_and_sync());
    list.push_back(make_host_vs_gpu());
    return list;
  }();
  return demos;
}

const Program* find_demo(std::string_view name) {
  for (const auto& d : all_demos()) {
    if (d->name() == name) return d.get();
  }
  return nullptr;
}

}  // namespace asyncscope::demos
