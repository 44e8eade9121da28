// The package's run: configure() before the first op, export_trace(), and
// the exit hook that finishes the process's own run.
#include <pybind11/stl.h>

#include <cmath>
#include <optional>

#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "python/core/source.h"
#include "engine/base/output_file.h"
#include "engine/tensor/blas.h"
#include "engine/trace_record/clock.h"
#include "engine/trace/live.h"
#include "engine/trace/model.h"
#include "engine/trace/source_lines.h"
#include "engine/trace_record/names.h"

namespace asyncscope::python {

void bind_runtime(py::module_& m) {
  m.def("configure", [](int workers, uint64_t seed, py::object device, int64_t max_inflight,
                        std::optional<int> simulated) {
    if (workers < 0) throw std::invalid_argument("configure: workers must be >= 0 (0 = one per core)");
    if (max_inflight < 0) throw std::invalid_argument("configure: max_inflight must be >= 0 (0 = no bound)");
    if (simulated) {
      try {
        set_simulated_gpus(*simulated);
      } catch (const std::exception& e) {
        throw std::invalid_argument(std::string("configure: ") + e.what());
      }
    }
    demos::ContextRequest request;
    request.workers = workers;
    request.seed = seed;
    request.max_inflight = max_inflight;
    request.device = device.is_none() ? Device::cpu() : device_named(device);
    configure(request);
  }, py::arg("workers") = 0, py::arg("seed") = 0, py::arg("device") = py::none(), py::arg("max_inflight") = 0,
     py::arg("simulated_gpus") = py::none(),
     R"(Sets the engine of this process's run: CPU workers (0 = one per core), the
random seed, the device arrays are made on, an in-flight bound (0 = none), and
simulated GPUs: with n > 0, cuda:0 .. cuda:n-1 (gpu(0) ...) are simulated, their
arrays in host memory and their ops run by host threads of their own, drawn as
the devices' lanes (as ASYNCSCOPE_SIMULATED_GPUS=n does). Call it before the
first array is made; under `asyncscope script` or the app the host's run is
used instead.)");
  m.def("seed", [](py::int_ seed) {
    // Any Python int, as the frameworks take (the low 64 bits of its value).
    const uint64_t s = PyLong_AsUnsignedLongLongMask(seed.ptr());
    if (PyErr_Occurred()) throw py::error_already_set();
    python::context()->reseed(s);
  }, py::arg("seed"), "Starts the run's random stream again from seed (manual_seed, np.random.seed, mx.random.seed).");
  m.def("export_trace", [](const std::string& path) {
    py::gil_scoped_release release;
    export_trace(path);
    if (exiting_elsewhere()) park_for_exit();
  }, py::arg("path"), "Writes the run's trace so far as Chrome trace JSON (ui.perfetto.dev, chrome://tracing).");
  m.def("_export_window", [](const std::string& path, double from_s, double to_s) {
    const auto ns = [](double s) { return s < 0 ? int64_t{-1} : static_cast<int64_t>(std::llround(s * 1e9)); };
    py::gil_scoped_release release;
    export_window(path, ns(from_s), ns(to_s));
    if (exiting_elsewhere()) park_for_exit();
  }, py::arg("path"), py::arg("from_s"), py::arg("to_s"),
     "Writes the run's part between from_s and to_s seconds (negative: its start / end) as Chrome trace JSON.");
  m.def("_write_text", [](const std::string& path, const std::string& text) {
    py::gil_scoped_release release;
    write_output(path, [&text](std::ostream& out) { out << text; });
  }, py::arg("path"), py::arg("text"),
     "Writes text to path as the CLI writes its outputs (complete or not at all; links planted in /tmp refused).");
  m.def("blas_info", [] {
    const blas::Info& info = blas::info();
    py::dict d;
    d["library"] = info.library;
    d["core"] = info.core;
    d["forced_core"] = info.forced_core;
    d["reason"] = info.reason;
    d["thread_timeout"] = info.thread_timeout;
    d["threads"] = blas::threads();
    return d;
  }, R"(The OpenBLAS the engine multiplies with: its library path, the CPU kernel
it runs (core), the kernel asyncscope chose and why (forced_core, reason),
the OPENBLAS_THREAD_TIMEOUT it was loaded with and its thread count now.
Loads OpenBLAS if needed; raises RuntimeError, saying what to install, if it
cannot be loaded.)");
  m.def("_recommended_blas_core", &blas::recommended_core);
  m.def("hosted", &hosted, "Whether a host (asyncscope script, the app) runs this script.");
  m.def("mark", [](const std::string& name, int64_t value) -> py::object {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    if (!rec || !rec->enabled()) return py::none();
    const int64_t t = trace::now_ns() - rec->origin_ns();
    rec->record_marker(trace::intern(name), value);
    return py::float_(static_cast<double>(t) * 1e-9);
  }, py::arg("name"), py::arg("value") = 0,
     "A named instant on the frontend lane of the timeline (a phase of the script). Returns its time in seconds "
     "since the run's start (what `asyncscope view --range` takes), or None when nothing is recorded.");
  m.def("_enter_scope", [](const std::string& name) {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    if (rec && rec->enabled()) rec->enter_scope(trace::intern(name));
  }, py::arg("name"), "The calling thread enters the scope `name` on the trace (a layer's forward).");
  m.def("_leave_scope", [] {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    if (rec && rec->enabled()) rec->leave_scope();
  }, "The calling thread leaves the innermost scope it entered.");
  m.def("_set_package_dir", &set_package_dir, py::arg("dir"), py::arg("absolute_dir"));
  m.def("_set_source_attribution", &set_source_attribution, py::arg("on"),
        "Turns tracing ops and waits back to their source lines on or off (on by default; for measuring its cost).");
  m.def("line_table", [] {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    py::list rows;
    if (!rec) return rows;
    std::vector<trace::LineFigures> figures;
    {
      py::gil_scoped_release release;
      figures = trace::line_figures(trace::snapshot(*rec));
      if (exiting_elsewhere()) park_for_exit();
    }
    for (const trace::LineFigures& r : figures) {
      py::dict row;
      row["file"] = r.file;
      row["line"] = r.line;
      row["runs"] = r.runs;
      row["ops"] = r.ops;
      row["enqueue_s"] = static_cast<double>(r.enqueue_ns) / 1e9;
      row["waits"] = r.waits;
      row["wait_s"] = static_cast<double>(r.wait_ns) / 1e9;
      row["bytes"] = r.bytes;
      rows.append(row);
    }
    return rows;
  }, R"(The run so far, per line of the script: a list of dicts (file, line, runs,
ops, enqueue_s, waits, wait_s, bytes), ordered by file and line. A line
counts when it pushed an op or waited; `runs` is how many times it did.)");
  m.def("_parse_device", [](const std::string& name) {
    const DeviceName parsed = parse_device_name(name);
    return py::make_tuple(parsed.kind == DeviceKind::cpu ? "cpu" : "cuda",
                          parsed.index < 0 ? py::object(py::none()) : py::object(py::int_(parsed.index)));
  }, py::arg("name"),
     "(type, index) of a device name ('cpu', 'cuda', 'cuda:1', 'gpu(0)'); index None when the name has none. "
     "ValueError for anything else.");
  m.def("_raise_in_thread", [](unsigned long ident, py::object type) {
    PyThreadState_SetAsyncExc(ident, type.ptr());
  }, py::arg("ident"), py::arg("type"),
     "Raises `type` in the Python thread `ident` at its next instruction (a host's stop).");
  m.def("serve", [](const std::string& title) {
    try {  // with the GIL: it may start the process's run
      return serve(title);
    } catch (const trace::LiveError& e) {
      throw std::runtime_error(e.what());
    }
  }, py::arg("title") = "",
     R"(Publishes this process's run live, so that the desktop app (File > Attach
to process...) or `asyncscope attach PID` of the same user can follow it as
it records: a Unix socket in $XDG_RUNTIME_DIR/asyncscope (else
/tmp/asyncscope-UID), mode 0600 in a 0700 folder, refusing other users.
Publishing costs the program nothing until a viewer attaches; a slow viewer
falls behind without slowing it. Starts the run if it has not started (call
configure() first). `title` names it in the app's list. Returns the
socket's path (the same one when it already publishes). ASYNCSCOPE_SERVE=1
publishes from the first op on. RuntimeError with the reason when it
cannot.)");
  m.def("_serve_when_started", &serve_when_started, py::arg("title"));
  m.def("serving", [] {
    const std::string path = serving();
    return path.empty() ? py::object(py::none()) : py::object(py::str(path));
  }, "The socket this process publishes on (serve()), or None.");
  m.def("viewers", &serving_viewers, "How many viewers follow this process's published run now (0 when not publishing).");
  m.def("_shutdown", [](const std::string& script) {
    py::gil_scoped_release release;
    shutdown(script);
  }, py::arg("script") = "");
}

}  // namespace asyncscope::python
