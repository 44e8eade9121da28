// Exceptions the engine raises at sync points.
// Threading: plain exception types.
#pragma once

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

namespace asyncscope {

// An op's function threw. Rethrown at the sync point that depends on the op
// (wait_for_var on a var it wrote, or any later reader of that var, or
// wait_all), naming the op that failed.
class OpError : public std::runtime_error {
 public:
  OpError(std::string op_name, uint64_t op_id, std::string reason, std::exception_ptr cause);
  const std::string& op_name() const noexcept { return op_name_; }
  uint64_t op_id() const noexcept { return op_id_; }
  const std::string& reason() const noexcept { return reason_; }
  // The exception the op threw, for callers that want its type.
  std::exception_ptr cause() const noexcept { return cause_; }

 private:
  std::string op_name_;
  uint64_t op_id_;
  std::string reason_;
  std::exception_ptr cause_;
};

// The op producing a value was dropped by Engine::cancel().
class CancelledError : public std::runtime_error {
 public:
  CancelledError() : std::runtime_error("cancelled: the run was stopped before this value was computed") {}
};

// The run was stopped (its host asked it to): thrown by the next op pushed or
// wait made through a stopped Context, so that even a program that never
// checks for a stop request ends promptly.
class StoppedError : public std::runtime_error {
 public:
  StoppedError() : std::runtime_error("the run was stopped") {}
};

// A wait was given up before its work finished: the waiting thread's sleep
// hook saw a reason to stop waiting (SleepHook::interrupted: Ctrl+C in
// Python, a stopped run). The work goes on; the hook's owner says why.
class WaitInterrupted : public std::runtime_error {
 public:
  WaitInterrupted() : std::runtime_error("the wait was interrupted before its work finished") {}
};

}  // namespace asyncscope
