// The embedded interpreter's heap against a run's budget: a script that
// grows a list without end stops with the budget's message, its heap never
// past what was charged; frees give granules back; a normal script runs as
// before; outside runs nothing is charged.
#include "python/embed/python_heap.h"

#include <gtest/gtest.h>
#include <pybind11/embed.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "engine/demos/run_env.h"
#include "python/embed/interpreter.h"
#include "python/embed/script_program.h"
#include "support/timeout.h"

namespace asyncscope::python {
namespace {

namespace py = pybind11;
constexpr int64_t kMiB = int64_t{1} << 20;

struct ScriptRun {
  std::vector<std::string> out, err;
  std::string budget_error;  // what MemoryBudgetError said
  std::string other_error;   // what another exception said
  bool over_budget = false;
};

ScriptRun run_script(const std::string& code, int budget_mib) {
  setenv("ASYNCSCOPE_MEMORY_BUDGET_MB", std::to_string(budget_mib).c_str(), 1);
  const ScriptProgram program("heap.py", code);
  ScriptRun run;
  demos::RunHooks hooks;
  hooks.console = [&run](std::string_view line) { run.out.emplace_back(line); };
  hooks.console_error = [&run](std::string_view line) { run.err.emplace_back(line); };
  demos::RunControl control;
  testing::run_with_timeout([&] {
    try {
      demos::run_program(program, program.defaults(), hooks, control);
    } catch (const MemoryBudgetError& e) {
      run.budget_error = e.what();
    } catch (const std::exception& e) {
      run.other_error = e.what();
    }
  });
  unsetenv("ASYNCSCOPE_MEMORY_BUDGET_MB");
  run.over_budget = hooks.over_budget;
  return run;
}

void exec(const char* code) {
  py::gil_scoped_acquire gil;
  py::exec(code);
}

class PythonHeap : public ::testing::Test {
 protected:
  void SetUp() override {
    ensure_interpreter(/*signal_handlers=*/false);
    if (!heap_stats().hooked) GTEST_SKIP() << "PYTHONMALLOC is set: the heap is not hooked";
  }
};

// A list appended to in a loop. The heap grows to the
// budget and no further: the charge comes before the memory.
TEST_F(PythonHeap, AListGrowingInALoopStopsAtTheBudgetWithItsMessage) {
  // A first failing run imports what reporting needs (traceback, linecache),
  // which stays: the baseline is taken after it.
  run_script("raise MemoryError\n", 64);
  const int64_t before = heap_stats().live_bytes;
  const ScriptRun run = run_script(
      "import builtins\n"
      "builtins.kept = []  # outlives the run's globals, so the test can weigh it\n"
      "while True:\n"
      "    builtins.kept.append(str(len(builtins.kept)) * 4)\n",
      64);
  EXPECT_TRUE(run.other_error.empty()) << run.other_error;
  EXPECT_NE(run.budget_error.find("Python objects of the script"), std::string::npos) << run.budget_error;
  EXPECT_NE(run.budget_error.find("memory budget of 64.0 MB"), std::string::npos) << run.budget_error;
  EXPECT_TRUE(run.over_budget);
  ASSERT_FALSE(run.err.empty());
  EXPECT_EQ(run.err.back(), "MemoryError");
  // What the list holds now was charged when it was allocated: it fits in
  // the budget (less the trace's share), up to malloc's rounding.
  const int64_t grown = heap_stats().live_bytes - before;
  EXPECT_LE(grown, 64 * kMiB);
  EXPECT_GE(grown, 32 * kMiB);  // it did grow to near the budget
  EXPECT_EQ(heap_stats().charged_bytes, 0);  // the run is over
  exec("import builtins, gc\ndel builtins.kept\ngc.collect()\n");
  // Back to the baseline but for a few pymalloc arenas (1 MiB each) that a
  // block made during the loop keeps: 2 MiB here, sys._debugmallocstats says.
  EXPECT_LT(heap_stats().live_bytes - before, 4 * kMiB);
}

TEST_F(PythonHeap, ANormalScriptRunsAsBefore) {
  const ScriptRun run = run_script(
      "from asyncscope import nd\n"
      "squares = [i * i for i in range(100_000)]\n"
      "x = nd.ones((4,)) + 1\n"
      "print(sum(squares), x.asnumpy().tolist())\n",
      64);
  EXPECT_TRUE(run.budget_error.empty()) << run.budget_error;
  EXPECT_TRUE(run.other_error.empty()) << run.other_error;
  EXPECT_FALSE(run.over_budget);
  EXPECT_EQ(run.out, std::vector<std::string>{"333328333350000 [2.0, 2.0, 2.0, 2.0]"});
  EXPECT_EQ(heap_stats().charged_bytes, 0);
}

// 40 MiB made and dropped three times fits a 64 MiB budget only if the
// frees give their granules back.
TEST_F(PythonHeap, FreesGiveGranulesBack) {
  const ScriptRun run = run_script(
      "for round in range(3):\n"
      "    block = [bytes(1000) for _ in range(40_000)]\n"
      "    del block\n"
      "print('done')\n",
      64);
  EXPECT_TRUE(run.budget_error.empty()) << run.budget_error;
  EXPECT_TRUE(run.other_error.empty()) << run.other_error;
  EXPECT_EQ(run.out, std::vector<std::string>{"done"});
}

// The charge against an account: never less than the growth, never two
// granules more, all of it given back at the end.
TEST_F(PythonHeap, TheChargeCoversTheGrowthWithinTwoGranules) {
  class Account final : public trace::MemoryAccount {
   public:
    bool charge(int64_t bytes, const char*, bool) override {
      charged_ += bytes;
      return true;
    }
    void uncharge(int64_t bytes) noexcept override { charged_ -= bytes; }
    int64_t charged_bytes() const noexcept override { return charged_; }

   private:
    std::atomic<int64_t> charged_{0};
  };
  const auto account = std::make_shared<Account>();
  py::gil_scoped_acquire gil;
  {
    HeapCharge charge(account, "test");
    const int64_t base = heap_stats().live_bytes;
    for (const char* step : {"a = bytearray(10_000_000)", "b = [str(i) for i in range(200_000)]", "del a",
                             "del b", "c = bytes(3_000_000)", "del c"}) {
      py::exec(step);
      const int64_t grown = heap_stats().live_bytes - base;
      const int64_t charged = account->charged_bytes();
      EXPECT_EQ(charged, heap_stats().charged_bytes) << step;
      EXPECT_GE(charged, grown - 64) << step;  // 64: malloc's rounding of the last block
      EXPECT_LT(charged, std::max<int64_t>(grown, 0) + 2 * kHeapGranuleBytes) << step;
    }
  }
  EXPECT_EQ(account->charged_bytes(), 0);
}

TEST_F(PythonHeap, OutsideARunNothingIsChargedOrRefused) {
  const int64_t before = heap_stats().live_bytes;
  exec("big = bytearray(100_000_000)\n");
  EXPECT_GE(heap_stats().live_bytes - before, 100'000'000);
  EXPECT_EQ(heap_stats().charged_bytes, 0);
  exec("del big\n");
  EXPECT_LT(heap_stats().live_bytes - before, kMiB);
}

}  // namespace
}  // namespace asyncscope::python
