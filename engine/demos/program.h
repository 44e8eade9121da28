// Program: what a run executes: a frontend program with typed parameters
// that runs on its run's frontend thread (the CLI's main thread, or the GUI's
// run thread) against the run environment its host gives it (RunEnv:
// context, recorder, console, results, progress, stop). A built-in demo is
// one kind of program; a user's script is another. The CLI turns the
// parameters into --options and the GUI into knobs; the program says which
// views it wants beside the timeline.
//
// Adding a demo is one file (a Program subclass and its make_ function),
// a line in registry.cpp, and its explanation in assets/demos/NAME.md.
//
// Threading: a Program is immutable and shared; run() may be called from any
// one thread at a time per RunEnv.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/core/device.h"
#include "engine/core/engine.h"
#include "engine/trace/model.h"

namespace asyncscope::demos {

class RunEnv;

// A program ended with an exit status of its own, not 0 (a script's
// sys.exit(3)): the command line exits with `status`, as python3 would.
// what() says how ("SystemExit: 3").
class ExitStatus : public std::runtime_error {
 public:
  ExitStatus(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

// A typed parameter: what the CLI turns into --name and the GUI into a knob.
struct Param {
  enum class Kind { integer, number, choice };
  std::string name;  // "batch-size"
  std::string help;  // one line
  Kind kind = Kind::integer;
  double default_value = 0;  // integer and number
  double min = 0;
  double max = 0;
  std::vector<std::string> choices;  // choice
  std::string default_choice;
};

// Parameter values, always valid for their specs: set() checks.
class ParamValues {
 public:
  using Value = std::variant<int64_t, double, std::string>;

  explicit ParamValues(std::vector<Param> specs);
  const std::vector<Param>& specs() const noexcept { return specs_; }
  bool has(const std::string& name) const noexcept;

  // Parses and validates text for a parameter. Throws std::invalid_argument
  // with a one-line message saying what is wrong and what is allowed.
  void set(const std::string& name, const std::string& text);
  void set_integer(const std::string& name, int64_t value);
  void set_choice(const std::string& name, const std::string& value);

  int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  const std::string& choice(const std::string& name) const;
  // The value as text, e.g. for a results file.
  std::string text(const std::string& name) const;
  const std::map<std::string, Value>& values() const noexcept { return values_; }

 private:
  const Param& spec(const std::string& name) const;
  std::vector<Param> specs_;
  std::map<std::string, Value> values_;
};

// One number of a program's result table.
struct Result {
  std::string key;    // stable name for JSON, e.g. "queued_s"
  std::string label;  // for the table, e.g. "calls returned after"
  double value = 0;
  std::string unit;   // "s", "MB", "us", "x", ""
};

struct Results {
  std::vector<Result> rows;        // in display order
  std::vector<std::string> notes;  // short sentences: what the numbers show
  double value(std::string_view key) const;  // throws std::out_of_range if absent
};

// The views a program wants beside the timeline (which every run has).
struct ProgramViews {
  bool op_graph = false;  // the dependency graph of the ops it pushed
};

// The context a run needs (the host makes it: engine, allocators, sampler).
struct ContextRequest {
  int workers = 0;  // CPU workers; 0 = one per core
  Device device = Device::cpu();
  uint64_t seed = 0;
  int64_t max_inflight = 0;  // 0 = no in-flight bound
  EngineKind kind = EngineKind::threaded;
  // A run on the CPU also gets a stream worker for cuda:0 when CUDA can be
  // used here, so that a script may put some arrays on the GPU as the
  // frameworks allow (device='cuda'); without CUDA the run is the same.
  bool gpu_when_available = false;
};

class Program {
 public:
  virtual ~Program() = default;
  virtual std::string name() const = 0;     // "sync-vs-async"
  virtual std::string title() const = 0;    // "Sync vs async loop"
  virtual std::string summary() const = 0;  // one line: what a person sees
  virtual std::vector<Param> params() const = 0;
  virtual ProgramViews views() const { return {}; }
  // Estimated peak bytes a run with these values counts against the memory
  // budget: its arrays plus what the run grows with besides them
  // (run_overhead_bytes: trace, model, pending ops), so hosts can refuse a
  // run that cannot fit the budget before it starts.
  virtual int64_t estimate_bytes(const ParamValues& values) const;
  // The context a run with these values needs. By default: the shared
  // parameters workers, device, seed and max-inflight, where the program has
  // them. std::invalid_argument, saying why, for a device that is not
  // available here.
  virtual ContextRequest context_request(const ParamValues& values) const;
  // Runs on the run's frontend thread, with the run's context installed as
  // the thread's current one. Reports through env (results, console,
  // progress). Throws StoppedError (or CancelledError) when stopped,
  // std::invalid_argument for parameter combinations it cannot run, and what
  // the engine throws for failures.
  virtual void run(const ParamValues& values, RunEnv& env) const = 0;
  // Whether the program may write to the process's standard output and
  // error descriptors itself (a script's C extensions, os.write): a host
  // that shows the console elsewhere (the app) then reads them into it.
  virtual bool writes_process_output() const { return false; }

  ParamValues defaults() const { return ParamValues(params()); }
};

// What a run grows with besides its arrays, for estimate_bytes(): `ops` ops
// pushed in all (frees of arrays included), at most `pending` of them waiting
// at once. Each recorded op costs kTraceBytesPerOp in the trace and
// kModelBytesPerOp in the model built from it at the end (both live then);
// each pending op kPendingOpBytes (engine/core/op_record.h); plus the trace's
// fixed buffers (kTraceFixedBytes).
int64_t run_overhead_bytes(int64_t ops, int64_t pending);
// An enqueue and an execution, and a share of the var log (ops with more
// than three arrays).
inline constexpr int64_t kTraceBytesPerOp = 104;
// The op's row and its lane entries, its var ids, and the vectors' spare
// capacity (they grow by doubling): twice the ~120 B of the row.
inline constexpr int64_t kModelBytesPerOp = 240;
// Each recording thread's chunk directories and first chunks, the counter
// log; a generous bound for a run with up to 16 workers.
inline constexpr int64_t kTraceFixedBytes = int64_t{8} << 20;

// Parameters several programs share.
Param workers_param();
Param device_param();
Param seed_param();
Param max_inflight_param();

// The device a --device value asks for; std::invalid_argument, saying why,
// if it is not available in this build or on this machine.
Device device_from(const ParamValues& values);

// What a trace keeps of a run of `program` with `values` (its name, each knob
// as text in the program's order) and, when it finished, of its `results`.
trace::RunOrigin run_origin(const Program& program, const ParamValues& values, const Results* results);
// Adds a finished run's results to its origin (replacing any it had).
void keep_results(trace::RunOrigin& origin, const Results& results);
// The result table a trace kept (empty when it kept none).
Results results_of(const trace::RunOrigin& origin);
// Sets `values` to the knobs `origin` kept. A knob the program does not have
// or a value it refuses is left as it was; the returned lines say which.
std::vector<std::string> apply_origin(const trace::RunOrigin& origin, ParamValues& values);

}  // namespace asyncscope::demos
