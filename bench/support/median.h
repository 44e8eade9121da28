// median: the middle sample of a benchmark's own timings (the upper one of
// an even count), 0 for none. Sorts the samples in place.
// Threading: the benchmark's thread.
#pragma once

#include <algorithm>
#include <vector>

namespace asyncscope::bench {

inline double median(std::vector<double>& samples) {
  std::sort(samples.begin(), samples.end());
  return samples.empty() ? 0.0 : samples[samples.size() / 2];
}

}  // namespace asyncscope::bench
