// `asyncscope profile SCRIPT [ARGS]`: a Python program run by the build's
// python3 under the real PyTorch's profiler (python/asyncscope/profile_script.py),
// then its trace opened in the window, described (--print) or answered as
// JSON (--json), and kept where --trace says.
//
// The runner writes into a folder private to this run (mkdtemp, mode 0700,
// removed at the end), never to a predictable name; --trace gets a copy of
// the trace once the program ended, committed with --json as one set, so an
// old file is never described as this run's and the program (or a process
// it forked) never writes the user's file. The program's exit status is
// passed through and said; the runner's own outcome (no PyTorch, what ran)
// travels in a file of the folder, apart from it. SIGINT or SIGTERM to
// asyncscope is forwarded to the program as Ctrl+C, which writes the trace
// of what ran; the program and every process it started are gone within 3 s
// (killed when they linger), what ran is kept, and the exit is 128 + the signal.
//
// Exit code: the program's own status (1 when it raised); 2 with one line
// for bad input (no such script, an output that cannot be written or is
// the script, no PyTorch); 1 when the program left no trace; 128 + the
// signal when interrupted.
#include "app/cli/command.h"
#include "app/cli/commands.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <thread>

#include "app/cli/report.h"
#include "app/interrupt.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/trace/profile_model.h"
#if ASYNCSCOPE_HAS_PYTHON
#include "python/embed/interpreter.h"
#endif

extern char** environ;

namespace asyncscope::app {
namespace {

struct ProfileRequest {
  std::vector<std::string> args;       // the program, then its arguments
  const std::string* trace = nullptr;  // --trace: keep the trace here
  const std::string* json = nullptr;   // --json: its answers here
  bool print = false;                  // --print: describe it on the terminal
  GuiRequest gui;                      // the window, when neither --print nor --json
};

// After a signal, how long the program gets to write what ran before it
// and everything it started are killed (all gone within 3 s).
constexpr auto kGrace = std::chrono::milliseconds(2500);
constexpr const char* kRunVariable = "ASYNCSCOPE_PROFILE_RUN";

// Why a file cannot be read as a program, or "".
std::string readable_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return "no such file";
  if (std::filesystem::is_directory(st)) return "it is a folder";
  if (::access(path.c_str(), R_OK) != 0) return std::strerror(errno);
  return "";
}

// A folder only this user can enter, made with a name nobody can guess or
// plant (mkdtemp), removed with what is in it unless kept.
class PrivateFolder {
 public:
  PrivateFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string name = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/asyncscope-profile-XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) {
      throw std::invalid_argument("cannot make a private folder for the trace in " + quote(name.substr(0, name.rfind('/'))) +
                                  ": " + std::strerror(errno) + " (set TMPDIR to a folder you can write)");
    }
    path_ = name;
  }
  ~PrivateFolder() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  PrivateFolder(const PrivateFolder&) = delete;
  PrivateFolder& operator=(const PrivateFolder&) = delete;
  const std::string& path() const noexcept { return path_; }
  void keep() noexcept { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

std::string random_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) {
    char part[9];
    std::snprintf(part, sizeof(part), "%08x", static_cast<unsigned>(device()));
    token += part;
  }
  return token;
}

// Starts the runner with this process's streams and environment, plus the
// run's token, which every process it starts inherits. It dies with us
// (PR_SET_PDEATHSIG): killed asyncscope leaves no program behind.
pid_t spawn(const std::vector<std::string>& args, const std::string& token) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, kRunVariable, std::strlen(kRunVariable)) != 0) env_text.emplace_back(*e);
  }
  env_text.push_back(std::string(kRunVariable) + "=" + token);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent is already gone
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  return pid;
}

// The processes of this user that carry the run's token: the program and
// whatever it started, wherever they were reparented.
std::vector<pid_t> processes_with(const std::string& token) {
  const std::string wanted = std::string(kRunVariable) + "=" + token;
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0 || pid == ::getpid()) continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/environ", std::ios::binary);
    std::string variable;
    while (std::getline(in, variable, '\0')) {
      if (variable == wanted) {
        found.push_back(static_cast<pid_t>(pid));
        break;
      }
    }
  }
  ::closedir(proc);
  return found;
}

// Kills every process of the run and waits (briefly) until none is left.
void kill_run(pid_t program, const std::string& token) {
  ::kill(program, SIGKILL);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  for (;;) {
    const std::vector<pid_t> left = processes_with(token);
    if (left.empty() || std::chrono::steady_clock::now() >= until) return;
    for (const pid_t p : left) ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Waits for the runner; after a signal (forwarded by the scope's watcher
// as Ctrl+C), at most kGrace before the run is killed. The wait status.
int wait_for(pid_t program, const std::string& token) {
  std::chrono::steady_clock::time_point signalled{};
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(program, &status, WNOHANG);
    if (r == program) {
      if (InterruptScope::signal_number() != 0) kill_run(program, token);  // what it started goes too
      return status;
    }
    if (r < 0 && errno != EINTR) return 0;
    if (InterruptScope::signal_number() != 0) {
      const auto now = std::chrono::steady_clock::now();
      if (signalled == std::chrono::steady_clock::time_point{}) signalled = now;
      if (now - signalled >= kGrace) {
        kill_run(program, token);
        while (::waitpid(program, &status, 0) < 0 && errno == EINTR) {
        }
        return status;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// What the runner says of the run (profile_script.py's status.json).
struct Outcome {
  bool present = false;
  std::string error;  // it could not profile at all
  int status = 0;     // the program's exit status
  bool raised = false, interrupted = false, trace = false;
  std::string left_by;
};

Outcome read_outcome(const std::string& folder) {
  Outcome o;
  std::ifstream in(folder + "/status.json");
  if (!in) return o;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    o.present = true;
    if (j.contains("error")) {
      o.error = j.at("error").get<std::string>();
      return o;
    }
    o.status = j.at("status").get<int>();
    o.raised = j.at("raised").get<bool>();
    o.interrupted = j.at("interrupted").get<bool>();
    o.trace = j.at("trace").get<bool>();
    o.left_by = j.at("left_by").get<std::string>();
  } catch (const std::exception& e) {
    o = Outcome{};
  }
  return o;
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const int s = WTERMSIG(status);
    return std::string("killed by signal ") + std::to_string(s) + (s == SIGKILL ? " (SIGKILL)" : s == SIGSEGV ? " (SIGSEGV)" : "");
  }
  return "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int profile(const ProfileRequest& request, std::ostream& out, std::ostream& err, const GuiLauncher& launch_gui) {
#if ASYNCSCOPE_HAS_PYTHON
  const std::string& script = request.args.front();
  if (const std::string why = readable_file(script); !why.empty()) {
    say(err, "cannot read script " + quote(script) + ": " + why);
    return 2;
  }
  // Every output is checked before the program runs; --json joins the set
  // when the report is written.
  std::vector<std::pair<std::string, std::string>> wanted;
  if (request.trace != nullptr) wanted.emplace_back("--trace", *request.trace);
  if (request.json != nullptr) wanted.emplace_back("--json", *request.json);
  if (const std::string why = check_outputs(wanted, {{"the script", script}}); !why.empty()) {
    say(err, why);
    return 2;
  }
  OutputSet outputs(out, err);
  std::unique_ptr<PrivateFolder> folder;
  try {
    outputs.add_input("the script", script);
    if (request.trace != nullptr) outputs.add("--trace", *request.trace);
    folder = std::make_unique<PrivateFolder>();
  } catch (const std::invalid_argument& e) {
    say(err, e.what());
    return 2;
  }
  const std::string trace_file = folder->path() + "/trace.json";
  std::vector<std::string> args = {python::python_executable(), python::package_dir() + "/asyncscope/profile_script.py",
                                   folder->path()};
  args.insert(args.end(), request.args.begin(), request.args.end());
  const std::string token = random_token();
  int status = 0;
  {
    std::atomic<pid_t> program{-1};
    // Ctrl+C or SIGTERM to asyncscope: the program gets Ctrl+C (once), so
    // it writes what ran; wait_for() kills what lingers.
    InterruptScope interrupt([&program] {
      if (const pid_t p = program.load(); p > 0) ::kill(p, SIGINT);
    });
    program.store(spawn(args, token));
    if (program.load() < 0) {
      say(err, "cannot start " + quote(args.front()) + ": " + std::strerror(errno));
      return 1;
    }
    if (InterruptScope::signal_number() != 0) ::kill(program.load(), SIGINT);  // a signal before the pid was known
    status = wait_for(program.load(), token);
  }
  const int signal = InterruptScope::signal_number();
  const Outcome outcome = read_outcome(folder->path());
  if (!outcome.error.empty()) {
    say(err, outcome.error);
    return 2;
  }
  const bool traced = outcome.present && outcome.trace && std::filesystem::exists(trace_file);
  outputs.set_content("--trace", [&trace_file](std::ostream& o) {
    std::ifstream in(trace_file, std::ios::binary);
    o << in.rdbuf();
  });
  if (signal != 0) {
    // Stopped: what ran is kept, nothing is opened or described.
    std::string kept = "no trace was written (the program did not stop in time)";
    if (traced) {
      try {
        if (request.trace != nullptr) {
          outputs.commit();
          kept = "the trace of what ran is in " + quote(*request.trace);
        } else {
          folder->keep();
          kept = "the trace of what ran is in " + quote(trace_file);
        }
      } catch (const std::exception& e) {
        kept = e.what();
      }
    }
    say(err, std::string("interrupted by ") + InterruptScope::signal_name(signal) + ": the program was stopped; " + kept);
    return 128 + signal;
  }
  if (!traced) {
    say(err, "profiling " + quote(script) + " wrote no trace: the program ended (" + how_it_ended(status) +
                 ") before the profiler could stop");
    return 1;
  }
  int code = outcome.raised ? 1 : outcome.status;
  if (outcome.raised) {
    say(err, "the program raised an exception (its traceback is above); its trace shows what ran");
  } else if (outcome.status != 0) {
    say(err, "the program exited with status " + std::to_string(outcome.status) +
                 (outcome.left_by == "os._exit" ? " (os._exit)" : ""));
  }
  if (request.print || request.json != nullptr) {
    TraceReport report;
    report.path = trace_file;
    report.print = request.print;
    report.json = request.json;
    const int rc = report_trace(report, out, err, &outputs);
    return rc != 0 ? rc : code;
  }
  try {
    trace::open_trace(trace_file);
    if (request.trace != nullptr) outputs.commit();
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
  GuiRequest gui = request.gui;
  gui.view_file = trace_file;
  const int rc = launch_gui(gui);
  return rc != 0 ? rc : code;
#else
  (void)request;
  (void)out;
  (void)launch_gui;
  say(err, "this build has no Python support (install python3-dev and pybind11-dev, then rebuild)");
  return 2;
#endif
}

class ProfileCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    profile_ = root.add_subcommand(
        "profile",
        "Run a Python program with the real PyTorch of this build's python3 under its profiler (CPU, and CUDA where "
        "it has a GPU; memory; stacks), then open its trace");
    profile_->add_option("--trace", trace_,
                         "keep the trace here (default: a private temporary folder, removed at the end)");
    profile_->add_flag("--print", print_, "describe the trace on the terminal instead of opening the window");
    profile_->add_option("--json", json_, "write what the trace answers as JSON instead of opening the window");
    add_window_options(*profile_, gui_);
    profile_->add_option("SCRIPT", args_, "the program and its arguments (options of asyncscope come before it)")
        ->required();
    // Everything after the script is the script's own.
    profile_->prefix_command();
    return profile_;
  }
  int run(const CommandIo& io) override {
    ProfileRequest request;
    request.args = args_;
    request.trace = profile_->count("--trace") > 0 ? &trace_ : nullptr;
    request.json = profile_->count("--json") > 0 ? &json_ : nullptr;
    request.print = print_;
    request.gui = gui_;
    io.globals.size_window(request.gui);
    return profile(request, io.out, io.err, io.launch_gui);
  }

 private:
  CLI::App* profile_ = nullptr;
  std::vector<std::string> args_;
  std::string trace_, json_;
  bool print_ = false;
  GuiRequest gui_;
};

}  // namespace

std::unique_ptr<Command> profile_command() { return std::make_unique<ProfileCommand>(); }

}  // namespace asyncscope::app
