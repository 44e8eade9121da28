#include "engine/demos/registry.h"

namespace asyncscope::demos {

std::vector<std::unique_ptr<Demo>> make_builtin_demos() {
  std::vector<std::unique_ptr<Demo>> demos;
  demos.push_back(make_queued_vs_finished());
  demos.push_back(make_sync_functions());
  demos.push_back(make_sync_vs_async());
  demos.push_back(make_dependency_graph());
  demos.push_back(make_memory_and_sync());
  demos.push_back(make_host_vs_gpu());
  return demos;
}

}  // namespace asyncscope::demos
