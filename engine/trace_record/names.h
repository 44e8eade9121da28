// Process-wide registry of interned names (op kinds, markers, counters), so hot
// paths record a 4-byte id instead of a string.
// Threading: any thread. intern() takes a lock; call it once per name (e.g. from
// a function-local static), not per event.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace asyncscope::trace {

using NameId = uint32_t;

// Id 0 is the empty name.
NameId intern(std::string_view name);

// The name for an id; "" for an unknown id.
std::string name_of(NameId id);

// All names, indexed by id (a copy, for readers building a model).
std::vector<std::string> all_names();

// How many names there are (ids 0 .. name_count() - 1), and the names from
// id `from` on: what a reader that has the first `from` already needs.
size_t name_count();
std::vector<std::string> names_from(size_t from);

}  // namespace asyncscope::trace
