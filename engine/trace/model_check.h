// The rules every TraceModel keeps, whoever filled it: what the widgets, the
// exporter and the per-line figures rely on without checking it again (they
// binary-search lanes by time, index names and source points, draw a lane's
// spans one after another). A model from a live Recorder keeps them by
// construction; the Chrome-trace import checks a file's model with this and
// refuses one that breaks a rule, naming the first it found.
//
// The rules:
//   - worker lanes are ordered by (device, device index, worker, launch
//     before execution), each key once;
//   - on a worker lane the spans come in start order and never overlap: each
//     starts at or after the previous one ended (zero-length spans may touch);
//   - an op starts executing, and starts its launch, no earlier than it was
//     enqueued, and a GPU op executes no earlier than its launch began;
//   - on a frontend lane the enqueues come in time order, the waits in time
//     order without overlapping, and no enqueue falls strictly inside a wait
//     (the thread was blocked; an enqueue at a wait's very start or end is
//     fine); the lane's source points come in time order;
//   - an op's or a wait's source point is on its own frontend and not later
//     than the enqueue or the wait's beginning;
//   - every known op's name and every marker's name is in names;
//   - counter samples come in time order.
// Var ids and the op ids a wait names (target, last_op) are not rules: a
// wait may name a var no traced op touched, or an op pushed untraced.
//
// Threading: a pure function of the model; call it where the model is owned.
#pragma once

#include <string>

#include "engine/trace/model.h"

namespace asyncscope::trace {

// The first rule the model breaks, as one line naming the lane, op or wait
// (text from the model quoted), or "" when it keeps them all.
std::string first_violation(const TraceModel& model);

}  // namespace asyncscope::trace
