// NaiveEngine: runs every op synchronously on the thread that pushes it. The
// reference the threaded engine is tested against, and the debugging mode
// (a failing op throws its error at the next sync point, exactly as in the
// threaded engine, but the stack at failure is the frontend's).
// Threading: as Engine; concurrent pushes from several threads run concurrently.
#pragma once

#include <atomic>

#include "engine/core/engine_base.h"

namespace asyncscope {

class NaiveEngine final : public EngineBase {
 public:
  explicit NaiveEngine(const EngineOptions& options);

  void delete_var(Var* var, OpFn on_delete = {}) override;
  uint64_t push(OpFn fn, std::span<Var* const> reads, std::span<Var* const> writes,
                const OpMeta& meta) override;
  using Engine::push;
  void wait_for_var(Var* var, trace::SyncKind kind = trace::SyncKind::wait_to_read) override;
  void wait_all() override;
  void cancel() override {}  // nothing is ever pending
  EngineStats stats() const override;
  int num_workers(Device device) const override { return device == Device::cpu() ? 1 : 0; }
  EngineKind kind() const noexcept override { return EngineKind::naive; }

 private:
  uint64_t run_now(OpRecord* op);

  std::atomic<uint64_t> pushed_{0};
  std::atomic<uint64_t> finished_{0};
};

}  // namespace asyncscope
