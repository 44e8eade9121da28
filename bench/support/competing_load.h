// CompetingLoad: another process that keeps one core busy for as long as the
// object lives, started and stopped by the benchmark itself, so that "a
// desktop is never idle" (a browser, a build, the app's own renderer) is a
// condition a benchmark can measure against, not luck.
// Threading: the benchmark's thread; not copyable.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace asyncscope::bench {

class CompetingLoad {
 public:
  CompetingLoad() {
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("CompetingLoad: fork failed");
    if (pid_ == 0) {
      // The child only spins: nothing here touches the parent's locks or heap.
      volatile unsigned long spins = 0;
      for (;;) spins = spins + 1;
    }
  }
  ~CompetingLoad() {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  CompetingLoad(const CompetingLoad&) = delete;
  CompetingLoad& operator=(const CompetingLoad&) = delete;

 private:
  pid_t pid_ = -1;
};

}  // namespace asyncscope::bench
