// Demo: one of the built-in teaching experiments, as a frontend program with
// typed parameters that runs on the calling thread (the CLI's main thread or
// the GUI's demo thread) and returns the numbers a reader would quote.
// Threading: a Demo is immutable and shared; run() may be called from any
// one thread at a time per RunEnv.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/trace/recorder.h"

namespace asyncscope::demos {

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

// One number of a demo's result table.
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

// The run was stopped by RunEnv::stop before it finished.
class DemoCancelled : public std::runtime_error {
 public:
  DemoCancelled() : std::runtime_error("the run was stopped") {}
};

// What a run gets from its host (CLI or GUI).
struct RunEnv {
  // Where the run is traced; a demo creates one if null (its results may be
  // computed from the trace).
  std::shared_ptr<trace::Recorder> recorder;
  // Set by the host to stop the run; demos check it between steps.
  const std::atomic<bool>* stop = nullptr;
  // Progress in [0, 1], with a short description; may be called often.
  std::function<void(double fraction, const std::string& what)> progress;
  // Counter sampling rate for the run's trace.
  int sample_rate_hz = 1000;

  bool stopped() const noexcept { return stop && stop->load(std::memory_order_relaxed); }
  void report(double fraction, const std::string& what) const {
    if (progress) progress(fraction, what);
  }
};

class Demo {
 public:
  virtual ~Demo() = default;
  virtual std::string name() const = 0;     // "sync-vs-async"
  virtual std::string title() const = 0;    // "Sync vs async loop"
  virtual std::string summary() const = 0;  // one line: what a person sees
  virtual std::vector<Param> params() const = 0;
  // Runs the experiment. Throws DemoCancelled when stopped, std::invalid_argument
  // for parameter combinations it cannot run (e.g. a device that is not available),
  // and what the engine throws for failures.
  virtual Results run(const ParamValues& values, RunEnv& env) const = 0;
  // Estimated peak bytes of array storage for these values (0 = negligible),
  // so hosts can refuse a run that cannot fit the memory budget.
  virtual int64_t estimate_bytes(const ParamValues& values) const;

  ParamValues defaults() const { return ParamValues(params()); }
};

// The built-in demos, in teaching order.
const std::vector<std::unique_ptr<Demo>>& all_demos();
// Null if there is no demo of that name.
const Demo* find_demo(std::string_view name);

// Parameters several demos share.
Param workers_param();
Param device_param();
Param seed_param();

}  // namespace asyncscope::demos
