#include "engine/trace_record/names.h"

#include <deque>
#include <mutex>
#include <unordered_map>

namespace asyncscope::trace {
namespace {

struct Registry {
  std::mutex mutex;
  std::deque<std::string> names{std::string()};  // deque: stable storage for the map's keys
  std::unordered_map<std::string_view, NameId> ids{{std::string_view(), 0}};
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

NameId intern(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (auto it = r.ids.find(name); it != r.ids.end()) return it->second;
  const auto id = static_cast<NameId>(r.names.size());
  r.names.emplace_back(name);
  r.ids.emplace(r.names.back(), id);
  return id;
}

std::string name_of(NameId id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return id < r.names.size() ? r.names[id] : std::string();
}

std::vector<std::string> all_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return {r.names.begin(), r.names.end()};
}

size_t name_count() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.names.size();
}

std::vector<std::string> names_from(size_t from) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (from >= r.names.size()) return {};
  return {r.names.begin() + static_cast<std::ptrdiff_t>(from), r.names.end()};
}

}  // namespace asyncscope::trace
