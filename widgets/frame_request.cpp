#include "widgets/frame_request.h"

#include <algorithm>

namespace asyncscope::widgets {
namespace {

double requested = -1;  // seconds, or negative: none (one UI thread)

}  // namespace

void RequestFrameWithin(double seconds) {
  seconds = std::max(seconds, 0.0);
  requested = requested < 0 ? seconds : std::min(requested, seconds);
}

double TakeFrameRequest() {
  const double s = requested;
  requested = -1;
  return s;
}

}  // namespace asyncscope::widgets
