#include "engine/core/cpu_placement.h"

#if defined(__linux__)
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace asyncscope {

int current_cpu() noexcept {
#if defined(__linux__)
  return sched_getcpu();
#else
  return -1;
#endif
}

bool move_to_another_cpu() noexcept {
#if defined(__linux__)
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return false;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  // Leaving the CPU is immediate: the call returns on another one.
  if (sched_setaffinity(0, sizeof others, &others) != 0) return false;
  sched_setaffinity(0, sizeof allowed, &allowed);
  return true;
#else
  return false;
#endif
}

#if defined(__linux__)
namespace {

// Reads a small /proc file into buf (NUL-terminated); false on failure.
bool read_small(const char* path, char* buf, size_t size) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  return true;
}

// The system's running and runnable threads: the numerator of the fourth
// field of /proc/loadavg ("0.36 0.37 0.70 3/345 12345"); -1 if unknown.
long system_runnable() {
  char text[128];
  if (!read_small("/proc/loadavg", text, sizeof text)) return -1;
  const char* p = text;
  for (int spaces = 0; spaces < 3; ++p) {
    if (*p == '\0') return -1;
    if (*p == ' ') ++spaces;
  }
  char* end = nullptr;
  const long running = std::strtol(p, &end, 10);
  return end != p && *end == '/' ? running : -1;
}

// This process's threads in state R; -1 if unknown.
long own_runnable() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  long running = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", entry->d_name);
    char text[512];
    if (!read_small(path, text, sizeof text)) continue;  // the thread ended meanwhile
    const char* close = std::strrchr(text, ')');  // "tid (comm) S ...": comm may hold anything
    if (close != nullptr && close[1] == ' ' && close[2] == 'R') ++running;
  }
  ::closedir(dir);
  return running;
}

}  // namespace
#endif

bool cpus_free_for(int threads) noexcept {
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  const long own = own_runnable();
  const long all = system_runnable();
  if (own < 0 || all < 0) return false;
  const long elsewhere = all > own ? all - own : 0;
  return CPU_COUNT(&allowed) - elsewhere >= threads;
#else
  (void)threads;
  return false;
#endif
}

}  // namespace asyncscope
