#include "engine/tensor/blas.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace asyncscope::blas {
namespace {

// A stored row-major matrix: rows x cols with row stride ld >= cols.
struct Matrix {
  int rows, cols, ld;
  std::vector<float> data;
  float& at(int r, int c) { return data[static_cast<size_t>(r) * ld + c]; }
  float at(int r, int c) const { return data[static_cast<size_t>(r) * ld + c]; }
};

Matrix random_matrix(int rows, int cols, int pad, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Matrix m{rows, cols, cols + pad, std::vector<float>(static_cast<size_t>(rows) * (cols + pad))};
  for (float& x : m.data) x = dist(rng);
  return m;
}

float op(const Matrix& x, bool trans, int r, int c) { return trans ? x.at(c, r) : x.at(r, c); }

// Checks c_out against alpha * op(A) * op(B) + beta * c_in computed in double,
// and that the padding between rows of C was left alone.
void expect_gemm(bool ta, bool tb, int m, int n, int k, float alpha, const Matrix& a, const Matrix& b, float beta,
                 const Matrix& c_in, const Matrix& c_out) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0, bound = 0;
      for (int p = 0; p < k; ++p) {
        const double term = double(op(a, ta, i, p)) * op(b, tb, p, j);
        sum += term;
        bound += std::abs(term);
      }
      const double prior = beta == 0.0f ? 0.0 : double(beta) * c_in.at(i, j);
      const double want = alpha * sum + prior;
      const double tol = 1e-5 * (std::abs(alpha) * bound + std::abs(prior)) + 1e-6;
      ASSERT_NEAR(c_out.at(i, j), want, tol) << "C(" << i << "," << j << ")";
    }
    for (int j = n; j < c_out.ld; ++j) ASSERT_EQ(c_out.at(i, j), c_in.at(i, j)) << "padding C(" << i << "," << j << ")";
  }
}

void run_case(bool ta, bool tb, int m, int n, int k, float alpha, float beta, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "trans_a=" << ta << " trans_b=" << tb << " m=" << m << " n=" << n << " k=" << k
                                    << " alpha=" << alpha << " beta=" << beta);
  const Matrix a = ta ? random_matrix(k, m, 3, rng) : random_matrix(m, k, 5, rng);
  const Matrix b = tb ? random_matrix(n, k, 2, rng) : random_matrix(k, n, 7, rng);
  Matrix c_in = random_matrix(m, n, 4, rng);
  // beta == 0 means C is not read, so NaN there must not leak into the result.
  if (beta == 0.0f) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) c_in.at(i, j) = std::numeric_limits<float>::quiet_NaN();
  }
  Matrix c = c_in;
  sgemm(ta, tb, m, n, k, alpha, a.data.data(), a.ld, b.data.data(), b.ld, beta, c.data.data(), c.ld);
  expect_gemm(ta, tb, m, n, k, alpha, a, b, beta, c_in, c);
}

bool iequals(const std::string& x, const std::string& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](char p, char q) {
    return std::tolower(static_cast<unsigned char>(p)) == std::tolower(static_cast<unsigned char>(q));
  });
}

TEST(BlasSgemm, MatchesReferenceForAllTransposesAndStrides) {
  std::mt19937 rng(42);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      run_case(ta, tb, 37, 23, 51, 1.0f, 0.0f, rng);
      run_case(ta, tb, 5, 64, 130, 1.5f, -0.5f, rng);
      run_case(ta, tb, 96, 1, 17, -2.0f, 1.0f, rng);
    }
}

TEST(BlasSgemm, HonoursAlphaAndBeta) {
  std::mt19937 rng(7);
  for (const auto& [alpha, beta] : {std::pair{0.0f, 2.0f}, {0.25f, 0.0f}, {-1.0f, 1.0f}, {3.0f, -0.75f}})
    run_case(false, true, 19, 11, 29, alpha, beta, rng);
}

TEST(BlasSgemm, EmptyKScalesC) {
  std::vector<float> c = {1, 2, 3, 4};
  sgemm(false, false, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, 3.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{3, 6, 9, 12}));
}

// What NumPy computes for products with an empty side; BLAS itself would
// refuse the leading dimensions of an operand without rows or columns.
TEST(BlasSgemm, AnEmptyInnerDimensionGivesBetaCAndAnEmptyCIsLeftAlone) {
  std::vector<float> c = {1, 2, 3, 4, 5, 6};
  sgemm(false, false, 2, 3, 0, 1.0f, nullptr, 0, nullptr, 3, 0.0f, c.data(), 3);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
  sgemm(true, true, 0, 3, 4, 1.0f, nullptr, 0, nullptr, 4, 0.0f, nullptr, 3);
  sgemm(false, false, 2, 0, 4, 1.0f, nullptr, 4, nullptr, 0, 0.0f, nullptr, 1);
}

TEST(BlasSgemm, RejectsBadSizesAndStrides) {
  std::vector<float> x(64);
  EXPECT_THROW(sgemm(false, false, -1, 2, 2, 1, x.data(), 2, x.data(), 2, 0, x.data(), 2), std::invalid_argument);
  EXPECT_THROW(sgemm(false, false, 2, 2, 3, 1, x.data(), 2, x.data(), 2, 0, x.data(), 2), std::invalid_argument);
  EXPECT_THROW(sgemm(true, false, 3, 2, 2, 1, x.data(), 2, x.data(), 2, 0, x.data(), 2), std::invalid_argument);
  EXPECT_THROW(sgemm(false, true, 2, 2, 3, 1, x.data(), 3, x.data(), 2, 0, x.data(), 2), std::invalid_argument);
  EXPECT_THROW(sgemm(false, false, 2, 3, 2, 1, x.data(), 2, x.data(), 3, 0, x.data(), 2), std::invalid_argument);
}

TEST(BlasInfo, DescribesTheLoadedLibrary) {
  const Info& i = info();
  EXPECT_FALSE(i.library.empty());
  EXPECT_FALSE(i.core.empty());
  EXPECT_FALSE(i.reason.empty());
  EXPECT_EQ(&i, &info()) << "info() must load once";
}

// The point of the module: without a user choice, OpenBLAS runs the kernel our
// CPUID check picked, not the one its own detection misses (e.g. "Prescott").
TEST(BlasInfo, RunsTheRecommendedKernel) {
  const std::string want = recommended_core();
  const Info& i = info();
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  ASSERT_FALSE(env && !i.forced_core.empty() && i.forced_core == env) << "our override leaked into the environment";
  if (env && *env) {
    EXPECT_TRUE(i.forced_core.empty());
    EXPECT_NE(i.reason.find("set by user"), std::string::npos) << i.reason;
    GTEST_SKIP() << "OPENBLAS_CORETYPE preset by the user";
  }
  if (want.empty()) GTEST_SKIP() << "no override needed on this CPU: " << i.reason;
  EXPECT_EQ(i.forced_core, want);
  EXPECT_TRUE(iequals(i.core, want)) << "OpenBLAS runs " << i.core << ", expected " << want << " (" << i.reason << ")";
}

TEST(BlasThreads, SetAndGetRoundTrip) {
  const int before = threads();
  ASSERT_GE(before, 1);
  for (int n : {1, 2}) {
    set_threads(n);
    EXPECT_EQ(threads(), n);
  }
  EXPECT_THROW(set_threads(0), std::invalid_argument);
  set_threads(before);
  EXPECT_EQ(threads(), before);
}

bool in_child() { return std::getenv("ASYNCSCOPE_BLAS_CHILD") != nullptr; }

// Runs only in a child spawned below, where it is the process's first use, so
// several threads race into the one-time load.
TEST(BlasChild, ConcurrentFirstUse) {
  if (!in_child()) GTEST_SKIP() << "runs in a child process";
  std::vector<std::thread> workers;
  std::vector<int> ok(4, 0);
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&ok, t] {
      const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
      float c[4] = {};
      sgemm(false, false, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2);
      ok[t] = c[0] == 19 && c[1] == 22 && c[2] == 43 && c[3] == 50 && !info().core.empty();
    });
  }
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(ok, std::vector<int>(4, 1));
}

// Prints what the parent checks; runs only in a child spawned below.
TEST(BlasChild, PrintInfo) {
  if (!in_child()) GTEST_SKIP() << "runs in a child process";
  std::printf("blas.core=%s\nblas.forced=%s\nblas.reason=%s\nblas.timeout=%s\nblas.env_timeout=%s\n",
              info().core.c_str(), info().forced_core.c_str(), info().reason.c_str(), info().thread_timeout.c_str(),
              std::getenv("OPENBLAS_THREAD_TIMEOUT") ? std::getenv("OPENBLAS_THREAD_TIMEOUT") : "<unset>");
  std::fflush(stdout);
}

struct Child {
  bool timed_out = false;
  int status = -1;
  std::string out;

  std::string field(const std::string& key) const {
    const std::string tag = "blas." + key + "=";
    const size_t at = out.find(tag);
    if (at == std::string::npos) return "<missing>";
    return out.substr(at + tag.size(), out.find('\n', at) - at - tag.size());
  }
};

// Re-runs this binary's BlasChild tests with a clean environment plus `extra_env`;
// GTEST_* variables are dropped so sharding or XML output do not reach the child.
Child run_child(const std::vector<std::string>& extra_env, std::chrono::seconds timeout) {
  char self[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) throw std::runtime_error("readlink(/proc/self/exe) failed");
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("GTEST_", 0) != 0 && kv.rfind("OPENBLAS_", 0) != 0) env.push_back(kv);
  }
  env.push_back("ASYNCSCOPE_BLAS_CHILD=1");
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::string filter = "--gtest_filter=BlasChild.*";
  std::vector<char*> argv = {self, filter.data(), nullptr};
  std::vector<char*> envp;
  for (std::string& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error(std::string("posix_spawn failed: ") + std::strerror(rc));
  }

  Child child;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
      child.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0)
      child.out.append(buf, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  while (waitpid(pid, &child.status, 0) < 0 && errno == EINTR) {
  }
  return child;
}

TEST(BlasProcess, ConcurrentFirstUseInFreshProcess) {
  const Child child = run_child({}, std::chrono::seconds(60));
  ASSERT_FALSE(child.timed_out) << "child hung (deadlock in the one-time load?)\n" << child.out;
  ASSERT_TRUE(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0) << child.out;
  const std::string want = recommended_core();
  if (!want.empty()) {
    EXPECT_TRUE(iequals(child.field("core"), want)) << child.out;
  }
}

// A user's explicit OPENBLAS_CORETYPE wins over our CPUID choice.
// OpenBLAS's idle threads stop spinning after 2^18 cycles unless the user
// chose otherwise; either way the variable is the user's again after the load.
TEST(BlasProcess, ThreadTimeoutIsOursOnlyForTheLoadAndTheUsersWins) {
  const Child ours = run_child({}, std::chrono::seconds(60));
  ASSERT_FALSE(ours.timed_out) << ours.out;
  EXPECT_EQ(ours.field("timeout").rfind("18 (ours", 0), 0u) << ours.out;
  EXPECT_EQ(ours.field("env_timeout"), "<unset>") << ours.out;
  const Child theirs = run_child({"OPENBLAS_THREAD_TIMEOUT=25"}, std::chrono::seconds(60));
  ASSERT_FALSE(theirs.timed_out) << theirs.out;
  EXPECT_EQ(theirs.field("timeout"), "25 (set by user)") << theirs.out;
  EXPECT_EQ(theirs.field("env_timeout"), "25") << theirs.out;
}

TEST(BlasProcess, UserCoretypeWins) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "CPU cannot run Haswell kernels";
  const Child child = run_child({"OPENBLAS_CORETYPE=Haswell"}, std::chrono::seconds(60));
  ASSERT_FALSE(child.timed_out) << child.out;
  ASSERT_TRUE(WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0) << child.out;
  EXPECT_EQ(child.field("core"), "Haswell") << child.out;
  EXPECT_EQ(child.field("forced"), "") << child.out;
  EXPECT_NE(child.field("reason").find("set by user"), std::string::npos) << child.out;
}

}  // namespace
}  // namespace asyncscope::blas
