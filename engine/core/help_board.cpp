#include "engine/core/help_board.h"

namespace asyncscope {

void HelpBoard::run_part(Job& job, int part) noexcept {
  try {
    job.fn(job.context, part);
  } catch (...) {
    std::lock_guard lock(job.error_lock);
    if (!job.error) job.error = std::current_exception();
  }
}

void HelpBoard::run(int parts, PartFn fn, void* context, uint64_t op) {
  Job job;
  job.fn = fn;
  job.context = context;
  job.parts = parts;
  job.op = op;
  Job* none = nullptr;
  if (parts <= 1 || helpers_ == 0 || !job_.compare_exchange_strong(none, &job, std::memory_order_seq_cst)) {
    for (int part = 0; part < parts; ++part) fn(context, part);
    return;
  }
  if (wake_) wake_(wake_arg_);
  work(job, [] { return false; });
  // Every part is claimed: no helper takes another; wait for the claimed ones.
  job_.store(nullptr, std::memory_order_seq_cst);
  for (int seen = job.done.load(std::memory_order_acquire); seen < parts;
       seen = job.done.load(std::memory_order_acquire)) {
    job.done.wait(seen, std::memory_order_acquire);
  }
  // seq_cst with help(): a worker that counted itself in before the store
  // above is waited for (it may still be reading the job); one that counts
  // itself in later finds the board empty or another owner's job.
  while (users_.load(std::memory_order_seq_cst) != 0) cpu_relax();
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace asyncscope
