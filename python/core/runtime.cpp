#include "python/core/runtime.h"

#include <Python.h>  // first of the others, as Python asks
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/demos/run_env.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/live.h"
#include "engine/trace/model.h"
#include "engine/trace/model_slice.h"
#include "python/core/source.h"

namespace asyncscope::python {
namespace {

// The default run. Never destroyed: at exit its work is drained and its
// sampler stopped (shutdown), but arrays Python still holds may outlive any
// static destructor, and they keep the engine they need.
struct DefaultRun {
  demos::ContextRequest request;
  demos::RunHooks hooks;
  demos::RunControl control;
  std::unique_ptr<demos::RunEnv> env;
  bool shut_down = false;
};

DefaultRun& default_run() {
  static DefaultRun* run = new DefaultRun;
  return *run;
}

std::mutex& default_mutex() {
  static std::mutex m;
  return m;
}

// The live server (serve()). Never destroyed, as the default run: finished by shutdown().
struct Publishing {
  std::mutex mutex;
  std::unique_ptr<trace::LiveServer> server;
  pid_t owner = 0;  // the process that made the server: a forked child has a copy that is not its own
  const trace::Recorder* published = nullptr;  // the recorder the server publishes
  std::string pending_title;  // serve_when_started: the title to publish under once the default run starts
  bool pending = false;
};
Publishing& publishing() {
  static Publishing* p = new Publishing;
  return *p;
}

std::string start_serving(const std::shared_ptr<trace::Recorder>& recorder, const std::string& title) {
  Publishing& p = publishing();
  std::lock_guard lock(p.mutex);
  if (p.server && p.owner != ::getpid()) {
    throw trace::LiveError("asyncscope.serve: this process (" + std::to_string(::getpid()) + ") is a fork of process " +
                           std::to_string(p.owner) + ", whose run and live socket these are: a forked child " +
                           "cannot publish them (serve in the parent, or start a fresh process)");
  }
  if (p.server) return p.server->path();
  if (!recorder) throw trace::LiveError("asyncscope.serve: this run is not traced: there is nothing to publish");
  trace::LiveServer::Options options;
  options.title = title;
  p.server = std::make_unique<trace::LiveServer>(recorder, options);
  p.owner = ::getpid();
  p.published = recorder.get();
  p.pending = false;
  return p.server->path();
}

// Viewers get what is left (for up to 2 s), then `reason` as the end; the
// socket goes. With `of`: only if that recorder is the one published.
void stop_serving(const std::string& reason, const trace::Recorder* of = nullptr) {
  Publishing& p = publishing();
  std::lock_guard lock(p.mutex);
  p.pending = false;
  if (p.server && (of == nullptr || of == p.published)) p.server->finish(std::chrono::seconds(2), reason);
}

// At the default run's start: what serve_when_started asked for.
void serve_if_pending(const std::shared_ptr<trace::Recorder>& recorder) {
  std::string title;
  {
    Publishing& p = publishing();
    std::lock_guard lock(p.mutex);
    if (!p.pending) return;
    title = p.pending_title;
  }
  try {
    start_serving(recorder, title);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s (not publishing)\n", e.what());
  }
}

const ContextPtr& default_context() {
  DefaultRun& run = default_run();
  std::lock_guard lock(default_mutex());
  if (!run.env) {
    if (run.shut_down) throw std::logic_error("asyncscope: the process's run has ended (the interpreter is exiting)");
    // As a script's run: a GPU, when there is one, can be named by any op (device='cuda').
    demos::ContextRequest request = run.request;
    request.gpu_when_available = true;
    run.env = std::make_unique<demos::RunEnv>(request, run.hooks, run.control);
    serve_if_pending(run.hooks.recorder);
  }
  return run.env->context();
}

// The host's run while a script runs (HostedRun): the context of the
// threads the script starts. Read and written with the GIL held. The
// context stays until the next run replaces it: a binding holds a reference
// to it across a wait that releases the GIL, and a thread of the script may
// still be in one when the run ends.
struct HostedContext {
  ContextPtr context;
  bool active = false;
};
HostedContext& hosted_run() {
  static HostedContext* hosted = new HostedContext;  // never destroyed: see DefaultRun
  return *hosted;
}

// Set in a child at fork (pthread_atfork), with the pid of the process it was forked from.
std::atomic<bool> g_forked{false};
pid_t g_fork_parent = 0;
void on_fork_child() noexcept {
  g_fork_parent = ::getppid();
  g_forked.store(true, std::memory_order_relaxed);
}
[[maybe_unused]] const int g_atfork = ::pthread_atfork(nullptr, nullptr, on_fork_child);

// shutdown() began on this thread (set once; the id is written before the flag).
std::atomic<bool> g_exiting{false};
std::thread::id g_exit_thread;

}  // namespace

bool exiting_elsewhere() noexcept {
  return g_exiting.load(std::memory_order_acquire) && std::this_thread::get_id() != g_exit_thread;
}

void park_for_exit() noexcept {
  if (PyGILState_Check() != 0) PyEval_SaveThread();
  for (;;) ::pause();
}

HostedRun::HostedRun(ContextPtr context) {
  hosted_run().context = std::move(context);
  hosted_run().active = true;
  // ASYNCSCOPE_SERVE, read when the package was imported: the host's run is the one to publish.
  serve_if_pending(hosted_run().context->engine().recorder());
}
HostedRun::~HostedRun() {
  hosted_run().active = false;
  // A host's run that was published ends here (its process may go on: the app).
  stop_serving("the script ended", hosted_run().context->engine().recorder().get());
}

void refuse_in_fork() {
  if (!g_forked.load(std::memory_order_relaxed)) return;
  throw std::runtime_error("asyncscope: this process (" + std::to_string(::getpid()) + ") is a fork of process " +
                           std::to_string(g_fork_parent) + ", whose engine threads did not come along: nothing pushed "
                           "here could run. Compute in the parent, or start the child fresh (multiprocessing's "
                           "'spawn' or 'forkserver' start method) and import asyncscope there");
}

const ContextPtr& context() {
  if (exiting_elsewhere()) park_for_exit();  // a daemon thread at exit starts nothing more
  refuse_in_fork();
  if (const ContextPtr& current = current_context_or_null()) return current;
  if (hosted_run().active) return hosted_run().context;
  return default_context();
}

bool hosted() { return current_context_or_null() != nullptr || hosted_run().active; }

void configure(const demos::ContextRequest& request) {
  DefaultRun& run = default_run();
  std::lock_guard lock(default_mutex());
  if (run.env) {
    throw std::logic_error(
        "asyncscope.configure: the engine has already started (configure before the first array is made)");
  }
  run.request = request;
}

std::shared_ptr<trace::Recorder> recorder() { return context()->engine().recorder(); }

void export_trace(const std::string& path) {
  const std::shared_ptr<trace::Recorder> rec = recorder();
  if (!rec) throw std::logic_error("asyncscope.export_trace: this run is not traced");
  trace::write_chrome_trace(trace::snapshot(*rec), path);
}

void export_window(const std::string& path, int64_t from_ns, int64_t to_ns) {
  const std::shared_ptr<trace::Recorder> rec = recorder();
  if (!rec) throw std::logic_error("asyncscope.export_trace: this run is not traced");
  // The model of the run read so far, kept for the next window.
  struct Kept {
    std::mutex mutex;
    std::shared_ptr<trace::Recorder> recorder;
    std::unique_ptr<trace::TraceReader> reader;
    trace::TraceModel model;
  };
  static Kept* kept = new Kept;  // never destroyed: see DefaultRun
  std::lock_guard lock(kept->mutex);
  if (kept->recorder != rec) {
    kept->recorder = rec;
    kept->reader = std::make_unique<trace::TraceReader>(*rec);
    kept->model = trace::TraceModel{};
  }
  kept->reader->update(kept->model);
  const int64_t from = std::max<int64_t>(0, from_ns);
  const int64_t to = to_ns < 0 ? kept->model.end_time() + 1 : to_ns;
  trace::write_chrome_trace(trace::slice(kept->model, from, std::max(to, from + 1)), path);
}

std::string serve(const std::string& title) { return start_serving(recorder(), title); }

void serve_when_started(const std::string& title) {
  {
    Publishing& p = publishing();
    std::lock_guard lock(p.mutex);
    if (p.server) return;
    p.pending = true;
    p.pending_title = title;
  }
  DefaultRun& run = default_run();
  std::shared_ptr<trace::Recorder> started;
  {
    std::lock_guard lock(default_mutex());
    if (run.env) started = run.hooks.recorder;
  }
  if (started) serve_if_pending(started);
}

std::string serving() {
  Publishing& p = publishing();
  std::lock_guard lock(p.mutex);
  return p.server && p.owner == ::getpid() ? p.server->path() : "";
}

size_t serving_viewers() {
  Publishing& p = publishing();
  std::lock_guard lock(p.mutex);
  return p.server && p.owner == ::getpid() ? p.server->viewers() : 0;
}

void shutdown(const std::string& script) {
  if (g_forked.load(std::memory_order_relaxed)) return;  // the run, its trace and its socket are the parent's
  if (!g_exiting.load(std::memory_order_relaxed)) {
    g_exit_thread = std::this_thread::get_id();
    g_exiting.store(true, std::memory_order_release);
  }
  DefaultRun& run = default_run();
  std::unique_lock lock(default_mutex());
  if (run.shut_down || !run.env) {
    run.shut_down = true;
    lock.unlock();
    stop_serving("the program exited");
    return;
  }
  run.shut_down = true;
  leave_source(*run.env->context());  // the exit's own waits have no line
  try {
    run.env->finish();
  } catch (...) {
    // An op's error nobody waited for: the script has ended; the trace shows it.
  }
  if (const char* path = std::getenv("ASYNCSCOPE_TRACE"); path != nullptr && *path != '\0') {
    // At exit there is nobody to raise to: what went wrong is one line on stderr.
    try {
      OutputSet outputs(std::cout, std::cerr);
      outputs.add_input("the script", script);
      outputs.add("ASYNCSCOPE_TRACE", path);
      const trace::TraceModel model = trace::snapshot(*run.hooks.recorder);
      outputs.set_content("ASYNCSCOPE_TRACE", [&model](std::ostream& o) { trace::write_chrome_trace(model, o); });
      outputs.commit();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "asyncscope: %s\n", escape_controls(e.what()).c_str());
    }
  }
  stop_serving("the program exited");
  run.env->context()->close();
}

}  // namespace asyncscope::python
