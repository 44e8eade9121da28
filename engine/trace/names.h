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

}  // namespace asyncscope::trace
