// The run environment: what a host (the CLI, the GUI) gives a program for
// one run, and run_program, which makes it and runs the program.
//
// A run has its own allocators (so live and peak bytes start at zero; a
// device pool too on a GPU), a Context on an engine traced into the run's
// recorder, and a CounterSampler recording RSS, live and pooled bytes, queue
// depth and running ops (and device bytes on a GPU; and what the host adds,
// RunHooks::extra_counters). The program reaches all of it through RunEnv,
// and talks back through it: lines for the console, rows and notes for the
// results table, progress.
//
// Stop: a host calls RunControl::stop() from any thread. The run's context
// then drops the pending work and the program's next push or wait throws
// StoppedError, so even a program that never checks ends promptly.
//
// When the program returns (or throws), the run waits for its work, takes a
// last counter sample, and closes its context: arrays the program kept stay
// readable and their memory valid, but no new op can be pushed on them.
//
// Threading: RunEnv's members are for the program's thread (the frontend),
// except that the console, progress and results callbacks run there too;
// RunControl::stop from any thread; run_program on the run's thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/demos/program.h"
#include "engine/tensor/context.h"
#include "engine/trace_record/counter_sampler.h"
#include "engine/trace_record/counters.h"
#include "engine/trace/model.h"

namespace asyncscope::demos {

// The counter columns every run records, in order (names, units and
// colours are engine/trace_record/counters.h's).
using trace::kDeviceLiveCounter;
using trace::kDevicePooledCounter;
using trace::kLiveCounter;
using trace::kPooledCounter;
using trace::kQueueCounter;
using trace::kRssCounter;
using trace::kRunningCounter;

// What a host gives a run besides the program and its values.
struct RunHooks {
  // Where the run is traced; made by run_program if null.
  std::shared_ptr<trace::Recorder> recorder;
  // A line the program printed (no trailing newline). Null: dropped.
  std::function<void(std::string_view line)> console;
  // A line of the program's error output (a traceback); null: console.
  std::function<void(std::string_view line)> console_error;
  // The program's output as it writes it (RunEnv::write): text with its
  // newlines, a prompt without one included, and `error` for its error
  // output. When set, it takes everything console and console_error would
  // (a printed line comes with its newline); null: whole lines go to those.
  std::function<void(std::string_view text, bool error)> console_text;
  // The host reads what the process writes to its descriptors 1 and 2 into
  // the console (the app, for a program that writes_process_output): such a
  // program writes its output there, in the order it writes it.
  bool process_output_captured = false;
  // Progress in [0, 1], with a short description; may be called often.
  std::function<void(double fraction, const std::string& what)> progress;
  // A result row as soon as the program reports it (the full table is also returned).
  std::function<void(const Result& row)> result;
  int sample_rate_hz = 1000;
  // Counters the host adds to the run's own (after them; at most
  // trace::kMaxCounters in all, or the run fails to start), read on the
  // run's sampler thread. The app adds its render thread's CPU share
  // (trace::kRenderCpuCounter); the command line adds none.
  std::vector<trace::Counter> extra_counters;
  // Set by the run when it ends: its budget refused memory to the trace or
  // to a push (the program then failed with that refusal, however a script
  // reported it), so a host can still save the trace recorded so far.
  bool over_budget = false;
};

// How a host stops a run. One per run; stop() may come before the run
// starts, while it runs, or after it ended.
class RunControl {
 public:
  // Any thread: the run's context drops its pending work and refuses
  // further pushes and waits (StoppedError).
  void stop();
  bool stop_requested() const noexcept { return stop_.load(std::memory_order_relaxed); }

 private:
  friend class RunEnv;
  void attach(const ContextPtr& context);
  void detach() noexcept;
  void set_on_stop(std::function<void()> fn);

  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  ContextPtr context_;            // the running run's, guarded by mutex_
  std::function<void()> on_stop_;  // the program's own way to stop, guarded by mutex_
};

class RunEnv {
 public:
  RunEnv(const ContextRequest& request, RunHooks& hooks, RunControl& control);
  ~RunEnv();  // stops sampling, drains or drops what is left, closes the context
  RunEnv(const RunEnv&) = delete;
  RunEnv& operator=(const RunEnv&) = delete;

  // The run's context (installed as the program thread's current context by run_program).
  const ContextPtr& context() const noexcept { return ctx_; }
  Engine& engine() const noexcept { return ctx_->engine(); }
  trace::Recorder& recorder() const noexcept { return *hooks_.recorder; }
  PooledAllocator& allocator() const noexcept { return *allocator_; }
  // The device memory pool, or null when the run has no GPU.
  PooledAllocator* device_allocator() const noexcept { return device_allocator_.get(); }
  // The run's budget for what is not an array (the trace, pending ops, and
  // what a program adds: a script's Python objects).
  std::shared_ptr<AllocatorAccount> memory_account() const noexcept { return account_; }

  // A line of program output for the console (the CLI prints it to stdout).
  void print(std::string_view line);
  // A line of error output (the CLI prints it to stderr).
  void print_error(std::string_view line);
  // Program output as written, not necessarily whole lines (`error`: the
  // error output). A host without console_text gets whole lines; a last
  // line without its newline comes when the run ends.
  void write(std::string_view text, bool error = false);
  // See RunHooks::process_output_captured.
  bool process_output_captured() const noexcept { return hooks_.process_output_captured; }
  // A row of the results table, and a short sentence under it.
  void result(std::string key, std::string label, double value, std::string unit);
  void note(std::string text);
  const Results& results() const noexcept { return results_; }

  // A named instant on the frontend lane (phase boundaries, iterations).
  void mark(std::string_view name, int64_t value = 0);
  void progress(double fraction, const std::string& what) const;
  bool stop_requested() const noexcept { return control_.stop_requested(); }
  // If the host asked to stop: throw StoppedError (the context already dropped the pending work).
  void check_stop() const;
  // What else a stop must do for this program, called from the stopping
  // thread (an interpreter is interrupted this way); cleared when the run
  // ends. Called at once if the stop came first.
  void on_stop(std::function<void()> fn);
  // Waits for every op, while a watcher reports progress from the pending
  // count (fraction `from`..`to`), so a long drain can be followed. Throws
  // StoppedError when stopped.
  void wait_all(const std::string& what, double from = 0.5, double to = 1.0);
  // Waits for every op, then records a last counter sample (run_program
  // does it after the program, if the program did not). Idempotent.
  void finish();
  // Everything recorded so far.
  trace::TraceModel model() const { return trace::snapshot(*hooks_.recorder); }

 private:
  RunHooks& hooks_;
  RunControl& control_;
  std::shared_ptr<PooledAllocator> allocator_;
  std::shared_ptr<PooledAllocator> device_allocator_;
  std::shared_ptr<AllocatorAccount> account_;  // the trace's and the pending ops' share of allocator_
  ContextPtr ctx_;
  std::unique_ptr<trace::CounterSampler> sampler_;
  Results results_;
  bool finished_ = false;
  std::string partial_[2];  // output and error text after their last newline (no console_text)
};

// Runs `program` with `values` on the calling thread: makes the run
// environment for the context it requests, installs the context as the
// thread's current one, runs the program, finishes the run and returns its
// results. Throws what the program throws (StoppedError when stopped).
Results run_program(const Program& program, const ParamValues& values, RunHooks& hooks, RunControl& control);

// Steady-clock seconds since `start_ns` (trace::now_ns()).
double seconds_since(int64_t start_ns);

// From a run's trace: the time during which at least one executed op named
// `op_name` that started at or after `from_ns` (model time) was running (the
// union of their spans, on any lane), in seconds. What a demo divides the
// work of its matrix products by for their GFLOP/s.
double op_busy_seconds(const trace::TraceModel& m, std::string_view op_name, int64_t from_ns = 0);
// The model time of the first marker named `name`, or 0 if there is none.
int64_t marker_time(const trace::TraceModel& m, std::string_view name);
// GFLOP/s of `flops` done in `seconds` (0 when no time was measured).
double gflops(double flops, double seconds);

// Runs sum(dot(u, u)) once, untimed, before a demo measures n x n products:
// it loads BLAS on the CPU (with u 8 x 8 and a wait_to_read), and on a GPU
// runs at the measured size and reads the result with item(): CUDA and
// cuBLAS load the kernels a shape needs on its first use (tens of
// milliseconds, far more than the product itself), and the first
// device-to-host copy sets up its page-locked buffer. u is ones, so the run's
// random arrays are the same with or without it. Runs on the run's frontend
// thread.
void warm_up_products(RunEnv& env, int64_t n);

}  // namespace asyncscope::demos
