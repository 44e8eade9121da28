// The package's run: configure() before the first op, export_trace(), and
// the exit hook that finishes the process's own run.
#include <pybind11/stl.h>

#include "python/core/bindings.h"
#include "python/core/runtime.h"
#include "engine/trace/names.h"

namespace asyncscope::python {

void bind_runtime(py::module_& m) {
  m.def("configure", [](int workers, uint64_t seed, py::object device, int64_t max_inflight) {
    if (workers < 0) throw std::invalid_argument("configure: workers must be >= 0 (0 = one per core)");
    if (max_inflight < 0) throw std::invalid_argument("configure: max_inflight must be >= 0 (0 = no bound)");
    demos::ContextRequest request;
    request.workers = workers;
    request.seed = seed;
    request.max_inflight = max_inflight;
    request.device = device.is_none() ? Device::cpu() : device_named(device);
    configure(request);
  }, py::arg("workers") = 0, py::arg("seed") = 0, py::arg("device") = py::none(), py::arg("max_inflight") = 0,
     R"(Sets the engine of this process's run: CPU workers (0 = one per core), the
random seed, the device arrays are made on, and an in-flight bound (0 = none).
Call it before the first array is made; under `asyncscope script` or the app
the host's run is used instead.)");
  m.def("export_trace", [](const std::string& path) {
    py::gil_scoped_release release;
    export_trace(path);
  }, py::arg("path"), "Writes the run's trace so far as Chrome trace JSON (ui.perfetto.dev, chrome://tracing).");
  m.def("hosted", &hosted, "Whether a host (asyncscope script, the app) runs this script.");
  m.def("mark", [](const std::string& name, int64_t value) {
    const std::shared_ptr<trace::Recorder> rec = recorder();
    if (rec && rec->enabled()) rec->record_marker(trace::intern(name), value);
  }, py::arg("name"), py::arg("value") = 0,
     "A named instant on the frontend lane of the timeline (a phase of the script).");
  m.def("_shutdown", [] {
    py::gil_scoped_release release;
    shutdown();
  });
}

}  // namespace asyncscope::python
