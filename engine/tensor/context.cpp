#include "engine/tensor/context.h"

#include <algorithm>

#include "engine/tensor/blas.h"
#include "engine/tensor/random.h"

namespace asyncscope {

std::shared_ptr<Context> Context::create() { return create(Options{}); }

std::shared_ptr<Context> Context::create(const Options& options) {
  return std::shared_ptr<Context>(new Context(options));
}

Context::Context(const Options& options)
    : allocator_(options.allocator ? options.allocator : &host_allocator()),
      engine_(make_engine(options.engine)),
      seed_(options.seed) {
  if (options.blas_threads < 0) throw std::invalid_argument("blas_threads must be >= 0 (0 = automatic)");
  const int workers = std::max(1, engine_->num_workers(Device::cpu()));
  blas_threads_ = options.blas_threads > 0 ? options.blas_threads : std::max(1, hardware_threads() / workers);
  blas::set_threads(blas_threads_);
}

Context::~Context() {
  try {
    engine_->wait_all();
  } catch (...) {
    // Errors nobody waited for die with the run; the engine is going away.
  }
}

uint64_t Context::next_random_key() noexcept { return random::mix64(seed_ ^ random::mix64(++random_ops_)); }

}  // namespace asyncscope
