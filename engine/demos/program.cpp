#include "engine/demos/program.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "engine/base/format.h"
#include "engine/base/quote.h"
#include "engine/core/op_record.h"
#include "engine/cuda/cuda.h"

namespace asyncscope::demos {
namespace {

std::string allowed(const Param& p) {
  if (p.kind == Param::Kind::choice) {
    std::string s;
    for (const auto& c : p.choices) s += (s.empty() ? "" : "|") + c;
    return s;
  }
  return format_value(p.min, "") + ".." + format_value(p.max, "");
}

}  // namespace

ParamValues::ParamValues(std::vector<Param> specs) : specs_(std::move(specs)) {
  for (const Param& p : specs_) {
    switch (p.kind) {
      case Param::Kind::integer: values_[p.name] = static_cast<int64_t>(p.default_value); break;
      case Param::Kind::number: values_[p.name] = p.default_value; break;
      case Param::Kind::choice: values_[p.name] = p.default_choice; break;
    }
  }
}

const Param& ParamValues::spec(const std::string& name) const {
  for (const Param& p : specs_) {
    if (p.name == name) return p;
  }
  throw std::invalid_argument("unknown parameter " + quote(name));
}

void ParamValues::set(const std::string& name, const std::string& text) {
  const Param& p = spec(name);
  const std::string what = "--" + name + " " + quote(text);
  switch (p.kind) {
    case Param::Kind::integer: {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) {
        throw std::invalid_argument(what + ": not a whole number (allowed: " + allowed(p) + ")");
      }
      set_integer(name, v);
      return;
    }
    case Param::Kind::number: {
      double v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
        throw std::invalid_argument(what + ": not a number (allowed: " + allowed(p) + ")");
      }
      if (v < p.min || v > p.max) throw std::invalid_argument(what + ": out of range (allowed: " + allowed(p) + ")");
      values_[name] = v;
      return;
    }
    case Param::Kind::choice: set_choice(name, text); return;
  }
}

void ParamValues::set_integer(const std::string& name, int64_t value) {
  const Param& p = spec(name);
  if (p.kind != Param::Kind::integer) throw std::invalid_argument("--" + name + " is not a whole-number parameter");
  if (static_cast<double>(value) < p.min || static_cast<double>(value) > p.max) {
    throw std::invalid_argument("--" + name + " " + std::to_string(value) + ": out of range (allowed: " +
                                allowed(p) + ")");
  }
  values_[name] = value;
}

void ParamValues::set_choice(const std::string& name, const std::string& value) {
  const Param& p = spec(name);
  if (p.kind != Param::Kind::choice) throw std::invalid_argument("--" + name + " is not a choice parameter");
  for (const auto& c : p.choices) {
    if (c == value) {
      values_[name] = value;
      return;
    }
  }
  throw std::invalid_argument("--" + name + " " + quote(value) + ": not one of " + allowed(p));
}

int64_t ParamValues::integer(const std::string& name) const { return std::get<int64_t>(values_.at(spec(name).name)); }
double ParamValues::number(const std::string& name) const { return std::get<double>(values_.at(spec(name).name)); }
const std::string& ParamValues::choice(const std::string& name) const {
  return std::get<std::string>(values_.at(spec(name).name));
}

std::string ParamValues::text(const std::string& name) const {
  const Value& v = values_.at(spec(name).name);
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    std::ostringstream out;  // as given, not rounded for a table
    out << *d;
    return out.str();
  }
  return std::get<std::string>(v);
}

double Results::value(std::string_view key) const {
  for (const Result& r : rows) {
    if (r.key == key) return r.value;
  }
  throw std::out_of_range("no result named '" + std::string(key) + "'");
}

bool ParamValues::has(const std::string& name) const noexcept { return values_.contains(name); }

int64_t Program::estimate_bytes(const ParamValues&) const { return run_overhead_bytes(0, 0); }

int64_t run_overhead_bytes(int64_t ops, int64_t pending) {
  return kTraceFixedBytes + ops * (kTraceBytesPerOp + kModelBytesPerOp) + pending * kPendingOpBytes;
}

ContextRequest Program::context_request(const ParamValues& values) const {
  ContextRequest request;
  if (values.has("workers")) request.workers = static_cast<int>(values.integer("workers"));
  if (values.has("device")) request.device = device_from(values);
  if (values.has("seed")) request.seed = static_cast<uint64_t>(values.integer("seed"));
  if (values.has("max-inflight")) request.max_inflight = values.integer("max-inflight");
  return request;
}

Device device_from(const ParamValues& values) {
  const std::string& name = values.choice("device");
  if (name == "cpu") return Device::cpu();
  const Device gpu = Device::cuda(0);
  if (simulated_gpus() > 0) return gpu;  // a simulated GPU (engine/core/device.h)
  try {
    cuda::require(gpu);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--device " + name + ": " + e.what() + "; use --device cpu");
  }
  return gpu;
}

Param workers_param() {
  return Param{"workers", "CPU worker threads of the engine (0 = one per core)", Param::Kind::integer, 0, 0, 256, {}, {}};
}

Param device_param() {
  return Param{"device", "where the arrays live and the ops run", Param::Kind::choice, 0, 0, 0, {"cpu", "cuda"}, "cpu"};
}

Param seed_param() {
  return Param{"seed", "seed of the random arrays", Param::Kind::integer, 0, 0, 9007199254740991.0, {}, {}};
}

Param max_inflight_param() {
  return Param{"max-inflight", "bound on pending ops (0 = none): backpressure instead of a sync",
               Param::Kind::integer, 0, 0, 100000000, {}, {}};
}

trace::RunOrigin run_origin(const Program& program, const ParamValues& values, const Results* results) {
  trace::RunOrigin origin;
  origin.program = program.name();
  for (const Param& p : values.specs()) origin.params.emplace_back(p.name, values.text(p.name));
  if (results != nullptr) keep_results(origin, *results);
  return origin;
}

void keep_results(trace::RunOrigin& origin, const Results& results) {
  origin.results.clear();
  for (const Result& r : results.rows) origin.results.push_back({r.key, r.label, r.value, r.unit});
  origin.notes = results.notes;
}

Results results_of(const trace::RunOrigin& origin) {
  Results results;
  for (const trace::RunOrigin::Row& r : origin.results) results.rows.push_back({r.key, r.label, r.value, r.unit});
  results.notes = origin.notes;
  return results;
}

std::vector<std::string> apply_origin(const trace::RunOrigin& origin, ParamValues& values) {
  std::vector<std::string> skipped;
  for (const auto& [name, text] : origin.params) {
    if (!values.has(name)) {
      skipped.push_back(name + "=" + text + ": " + origin.program + " has no such knob here");
      continue;
    }
    try {
      values.set(name, text);
    } catch (const std::exception& e) {
      skipped.push_back(e.what());
    }
  }
  return skipped;
}

}  // namespace asyncscope::demos
