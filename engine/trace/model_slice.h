// A window of a trace: the part of a model between two instants, as a model
// of its own, so that what the insight answers (the verdict, the lanes'
// states, the memory holders) and what a picture shows are that window's:
// one notebook cell of a kernel's run, one phase of a script.
// Threading: a pure function of the model.
#pragma once

#include <cstdint>

#include "engine/trace/model.h"

namespace asyncscope::trace {

// The ops that were enqueued in [from, to), or ran (any part of their span)
// within it; the waits, help spans and markers that overlap it; the counter
// samples within it, after the last one before it (so each counter starts
// at the value it had). Lanes, names, vars and source lines are kept whole,
// op ids too (an op outside the window is unknown there), so the window
// keeps the rules of model_check.h.
TraceModel slice(const TraceModel& model, int64_t from, int64_t to);

}  // namespace asyncscope::trace
