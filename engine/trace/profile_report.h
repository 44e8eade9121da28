// What `asyncscope view FILE --print / --json OUT` and `asyncscope diff A B`
// say about a profiler's trace (profile_model.h's OpenedTrace): the
// description for a terminal and the JSON document, whose keys match a
// run's results JSON where they mean the same thing ("bound", "verdict",
// "peak_live_bytes", "peak_live_t_s", "peak_live_holders"), plus:
//   "format"          the importer's key: kineto, kineto_2021, json_array, mxnet, chrome
//   "streams"         per GPU stream (MXNet: per operator thread, stream -1):
//                     device, stream (the profiler's id), ops, busy_us,
//                     idle_us {host_wait, kernel_wait, other}, queue_length_max,
//                     queue_length_mean, launches, launch_delay_median_us (null without launches)
//   "temporal_us"     {kernel, idle, compute, non_compute}
//   "launch_stats"    {launches, delay_median_us, delay_p90_us (null without launches),
//                     delay_outliers, long_launches, short_kernels}
//   "idle_frac", "host_wait_frac", "span_us"   the verdict's figures
//   "ops"             per op name and side: {name, device: "cpu"|"gpu", count, total_us, mean_us},
//                     largest total first
//   "memory"          per device: {device, peak_bytes, peak_t_s, from_totals, holders}
//   "lanes"           {name, kind: "thread"|"stream", device, stream, spans, rows}
//   "notes"           what the importer skipped and what the format cannot show
// Times are microseconds (floats), as HTA reports them.
//
// Threading: pure functions.
#pragma once

#include <iosfwd>
#include <string>

#include "engine/trace/profile_model.h"

namespace asyncscope::trace {

// The JSON document for a profiler's trace (pretty-printed, ending in a newline).
std::string profile_json(const OpenedTrace& trace);
// The description for a terminal: format, lanes, notes, verdict, streams, the
// temporal breakdown, launches, the top ops and the memory peak's holders.
// `path` is shown escaped.
void describe_profile(const OpenedTrace& trace, const std::string& path, std::ostream& out);

}  // namespace asyncscope::trace
