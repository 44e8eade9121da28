#include "engine/core/engine.h"

#include <stdexcept>
#include <thread>

#include "engine/core/naive_engine.h"
#include "engine/core/threaded_engine.h"

namespace asyncscope {

const char* to_string(EngineKind kind) noexcept {
  return kind == EngineKind::naive ? "naive" : "threaded";
}

const char* to_string(Scheduling scheduling) noexcept {
  return scheduling == Scheduling::fifo ? "fifo" : "tuned";
}

int hardware_threads() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::shared_ptr<Engine> make_engine(const EngineOptions& options) {
  if (options.kind == EngineKind::naive) {
    if (options.gpu_streams != 0) {
      throw std::invalid_argument("gpu_streams needs the threaded engine (the naive engine runs every op on the caller)");
    }
    return std::make_shared<NaiveEngine>(options);
  }
  return std::make_shared<ThreadedEngine>(options);
}

}  // namespace asyncscope
