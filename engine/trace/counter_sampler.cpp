#include "engine/trace/counter_sampler.h"

#include <chrono>
#include <stdexcept>

#include "engine/trace/counters.h"
#include "engine/trace/rss.h"

namespace asyncscope::trace {

Counter rss_counter() {
  auto reader = std::make_shared<RssReader>();
  return Counter{kRssCounter, [reader] { return reader->read(); }};
}

CounterSampler::CounterSampler(std::shared_ptr<Recorder> recorder, std::vector<Counter> counters,
                               int rate_hz)
    : recorder_(std::move(recorder)), counters_(std::move(counters)), rate_hz_(rate_hz) {
  if (!recorder_) throw std::invalid_argument("CounterSampler: recorder is null");
  if (counters_.size() > static_cast<size_t>(kMaxCounters)) {
    throw std::invalid_argument("CounterSampler: at most " + std::to_string(kMaxCounters) + " counters");
  }
  if (rate_hz_ <= 0) throw std::invalid_argument("CounterSampler: rate must be positive");
  std::vector<std::string> names;
  for (const Counter& c : counters_) names.push_back(c.name);
  recorder_->set_counter_names(std::move(names));
}

CounterSampler::~CounterSampler() { stop(); }

void CounterSampler::start() {
  if (thread_.joinable()) return;
  stop_.store(false, std::memory_order_relaxed);
  thread_ = std::thread([this] { loop(); });
}

void CounterSampler::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_relaxed);
  thread_.join();
  sample_once();
}

void CounterSampler::sample_once() {
  CounterSample row;
  for (size_t i = 0; i < counters_.size(); ++i) row.values[i] = counters_[i].read();
  row.t = now_ns();
  recorder_->counter_log().append(row);
}

void CounterSampler::loop() {
  set_thread_name("counters");
  const auto period = std::chrono::nanoseconds(1'000'000'000 / rate_hz_);
  auto next = std::chrono::steady_clock::now();
  while (!stop_.load(std::memory_order_relaxed)) {
    sample_once();
    next += period;
    const auto now = std::chrono::steady_clock::now();
    // After a stall (loaded machine), resume the grid instead of bursting to catch up.
    if (next < now) next = now;
    std::this_thread::sleep_until(next);
  }
}

}  // namespace asyncscope::trace
