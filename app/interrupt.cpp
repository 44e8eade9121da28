#include "app/interrupt.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>

namespace asyncscope::app {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM};
constexpr auto kNudgeEvery = std::chrono::milliseconds(250);

// Shared with the handler, so plain globals: a lock-free atomic int and the
// pipe's descriptors are all a handler may touch.
std::atomic<int> g_signal{0};
std::atomic<unsigned> g_received{0};  // signals from outside (not the watcher's nudges)
std::atomic<bool> g_stopping{false};  // the scope is ending: the watcher returns
int g_pipe[2] = {-1, -1};
pthread_t g_main;
struct sigaction g_old[3];  // SIGINT, SIGTERM, SIGPIPE before the scope
bool g_installed[2] = {false, false};
// Ignored when the scope began (a background job of a non-interactive
// shell, which ignores SIGINT so that the terminal's Ctrl+C leaves it be).
// Read by the handler; written before it is installed.
volatile sig_atomic_t g_ignored[2] = {0, 0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs a lock-free flag");

void on_signal(int signal, siginfo_t* info, void*) {
  // What the terminal sends (SI_KERNEL) keeps the ignored signal ignored, as
  // the shell meant; a signal a process sends on purpose (kill -INT,
  // timeout -s INT) is a request to stop, whatever was inherited.
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] == signal && g_ignored[i] != 0 && info != nullptr && info->si_code == SI_KERNEL) return;
  }
  // The watcher's nudges and the forwarding below come from this process.
  if (info == nullptr || info->si_code != SI_TKILL || info->si_pid != ::getpid()) g_received.fetch_add(1);
  const int saved = errno;
  int none = 0;
  g_signal.compare_exchange_strong(none, signal);
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);  // non-blocking: a full pipe wakes the watcher anyway
  // Delivered to another thread: the main thread's blocking call must see it too.
  if (!::pthread_equal(::pthread_self(), g_main)) ::pthread_kill(g_main, signal);
  errno = saved;
}

void drain() {
  char buf[64];
  while (::read(g_pipe[0], buf, sizeof(buf)) > 0) {
  }
}

}  // namespace

InterruptScope::InterruptScope(std::function<void()> on_signal_fn) : on_signal_(std::move(on_signal_fn)) {
  // Without a pipe (no descriptors left) signals keep their usual effect.
  if (::pipe2(g_pipe, O_NONBLOCK | O_CLOEXEC) != 0) return;
  g_main = ::pthread_self();
  g_stopping.store(false);
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO;  // no SA_RESTART: a blocking call of the main thread returns EINTR
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], nullptr, &g_old[i]);
    g_ignored[i] = g_old[i].sa_handler == SIG_IGN ? 1 : 0;
    g_installed[i] = true;
    ::sigaction(kSignals[i], &action, nullptr);
  }
  // A reader that went away (| head) is a write error to clean up after, not death.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &g_old[2]);
  watcher_ = std::thread([this] { watch(); });
}

InterruptScope::~InterruptScope() {
  if (!watcher_.joinable()) return;  // never installed
  g_stopping.store(true);
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
  watcher_.join();
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_old[i], nullptr);
  }
  ::sigaction(SIGPIPE, &g_old[2], nullptr);
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int InterruptScope::signal_number() noexcept { return g_signal.load(); }

unsigned InterruptScope::signals_received() noexcept { return g_received.load(); }

const char* InterruptScope::signal_name(int signal) noexcept {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

void InterruptScope::watch() {
  bool fired = false;
  auto last_nudge = std::chrono::steady_clock::now();
  while (!g_stopping.load()) {
    pollfd fd{g_pipe[0], POLLIN, 0};
    ::poll(&fd, 1, fired ? static_cast<int>(kNudgeEvery.count()) : -1);
    drain();
    if (g_stopping.load()) break;
    const int signal = g_signal.load();
    if (signal == 0) continue;
    if (!fired) {
      fired = true;
      if (on_signal_) on_signal_();
    }
    // Until the scope ends: a write the main thread began just after it
    // last looked at the flag gets its EINTR from the next nudge.
    const auto now = std::chrono::steady_clock::now();
    if (now - last_nudge >= kNudgeEvery) {
      last_nudge = now;
      ::pthread_kill(g_main, signal);
    }
  }
}

}  // namespace asyncscope::app
