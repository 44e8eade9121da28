#include "engine/tensor/blas.h"

#include <dlfcn.h>
#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define ASYNCSCOPE_X86 1
#endif

namespace asyncscope::blas {
namespace {

// The CBLAS ABI, declared here so the build needs no OpenBLAS headers. blasint is
// int in libopenblas.so.0 (the 64-bit-index build has a different soname).
enum CblasOrder : int { kRowMajor = 101 };
enum CblasTranspose : int { kNoTrans = 111, kTrans = 112 };
using SgemmFn = void (*)(CblasOrder, CblasTranspose, CblasTranspose, int, int, int, float, const float*, int,
                         const float*, int, float, float*, int);
using DgemmFn = void (*)(CblasOrder, CblasTranspose, CblasTranspose, int, int, int, double, const double*, int,
                         const double*, int, double, double*, int);
using SetThreadsFn = void (*)(int);
using GetThreadsFn = int (*)();
using GetStringFn = char* (*)();

constexpr const char* kSonames[] = {"libopenblas.so.0", "libopenblas.so"};
constexpr const char* kCoreEnv = "OPENBLAS_CORETYPE";
constexpr const char* kTimeoutEnv = "OPENBLAS_THREAD_TIMEOUT";
// OpenBLAS's own pool threads spin (sched_yield) for 2^28 cycles, a tenth of
// a second or more, after they start and after every threaded call. That
// spinning takes a core from the engine's workers: a large product split over
// the workers right after loading runs markedly slower while the pool threads
// spin. 2^18 cycles (about 0.1 ms) still keeps back-to-back threaded calls
// quick; the threads sleep otherwise.
constexpr const char* kOurTimeout = "18";

struct Choice {
  std::string core;  // empty: let OpenBLAS decide
  std::string reason;
};

struct Library {
  Info info;
  std::string error;  // non-empty if loading failed; every call rethrows it
  void* handle = nullptr;  // the loaded library, for symbol()
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;  // null if the library lacks it (dgemm() then throws)
  SetThreadsFn set_threads = nullptr;
  GetThreadsFn get_threads = nullptr;
};

Choice choose_core() {
#ifdef ASYNCSCOPE_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d) || a < 7) return {"", "CPU lacks CPUID leaf 7; OpenBLAS decides"};
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  const bool amd = std::strcmp(vendor, "AuthenticAMD") == 0;

  __get_cpuid(1, &a, &b, &c, &d);
  if (!(c & bit_OSXSAVE) || !(c & bit_AVX)) return {"", "CPU or OS lacks AVX; OpenBLAS decides"};
  const bool fma = c & bit_FMA;
  // A CPU flag is not enough: the OS must also save the registers on context
  // switch, which XCR0 says (bits 1-2: XMM/YMM; 5-7: opmask, ZMM_Hi256, Hi16_ZMM).
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  const std::uint64_t xcr0 = (std::uint64_t{xcr0_hi} << 32) | xcr0_lo;
  const bool os_ymm = (xcr0 & 0x06) == 0x06;
  const bool os_zmm = (xcr0 & 0xe6) == 0xe6;

  __get_cpuid_count(7, 0, &a, &b, &c, &d);
  const unsigned max_subleaf = a;
  const bool avx2 = os_ymm && fma && (b & bit_AVX2);
  constexpr unsigned kAvx512 = bit_AVX512F | bit_AVX512BW | bit_AVX512DQ | bit_AVX512VL | bit_AVX512CD;
  const bool avx512 = avx2 && os_zmm && (b & kAvx512) == kAvx512;
  bool bf16 = false;
  if (max_subleaf >= 1) {
    __get_cpuid_count(7, 1, &a, &b, &c, &d);
    bf16 = a & bit_AVX512BF16;
  }
  const std::string why = "; forced because OpenBLAS 0.3.21 misdetects newer CPUs (e.g. as Prescott)";
  // AVX-512 first, whatever the vendor: newer OpenBLAS also gives Zen 4 the Cooperlake/SkylakeX kernels.
  if (avx512 && bf16) return {"Cooperlake", "CPU has AVX-512 with BF16" + why};
  if (avx512) return {"SkylakeX", "CPU has AVX-512" + why};
  if (avx2 && amd) return {"Zen", "AMD CPU has AVX2" + why};
  if (avx2) return {"Haswell", "CPU has AVX2+FMA" + why};
  return {"", "CPU lacks usable AVX2/FMA; OpenBLAS decides"};
#else
  return {"", "not an x86 CPU; OpenBLAS decides"};
#endif
}

// dlsym returns void*; POSIX guarantees it converts to a function pointer.
template <class Fn>
Fn as_function(void* p) {
  return reinterpret_cast<Fn>(p);
}

// A host may have loaded OpenBLAS already, under our sonames or another one (e.g.
// Debian's libblas.so.3 alternative); its kernel is fixed then, so reuse it.
void* find_loaded() {
  for (const char* soname : kSonames) {
    if (void* handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD)) return handle;
  }
  Dl_info where{};
  void* probe = dlsym(RTLD_DEFAULT, "openblas_get_corename");
  if (probe && dladdr(probe, &where) && where.dli_fname) return dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  return nullptr;
}

// Sets OPENBLAS_CORETYPE for the library's constructor, then restores the
// user's environment so child processes do not mistake our choice for theirs.
void* load_with_core(Info& info) {
  const char* user = std::getenv(kCoreEnv);
  std::optional<std::string> previous;
  if (user) previous = user;
  if (user && *user) {
    info.reason = std::string(kCoreEnv) + " set by user (" + user + ")";
  } else {
    Choice choice = choose_core();
    info.reason = std::move(choice.reason);
    info.forced_core = std::move(choice.core);
    if (!info.forced_core.empty()) setenv(kCoreEnv, info.forced_core.c_str(), 1);
  }
  const char* user_timeout = std::getenv(kTimeoutEnv);
  const bool set_timeout = user_timeout == nullptr || *user_timeout == '\0';
  if (set_timeout) {
    setenv(kTimeoutEnv, kOurTimeout, 1);
    info.thread_timeout = std::string(kOurTimeout) + " (ours: its idle threads sleep after about 0.1 ms)";
  } else {
    info.thread_timeout = std::string(user_timeout) + " (set by user)";
  }
  void* handle = nullptr;
  std::string errors;
  for (const char* soname : kSonames) {
    // RTLD_LOCAL keeps its CBLAS symbols from interposing on other libraries.
    handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle) break;
    const char* err = dlerror();
    errors += std::string("; ") + (err ? err : soname);
  }
  if (!info.forced_core.empty()) {
    if (previous)
      setenv(kCoreEnv, previous->c_str(), 1);
    else
      unsetenv(kCoreEnv);
  }
  if (set_timeout) {
    if (user_timeout != nullptr)
      setenv(kTimeoutEnv, "", 1);
    else
      unsetenv(kTimeoutEnv);
  }
  if (!handle) {
    throw std::runtime_error("OpenBLAS not found: install libopenblas0 (apt-get install libopenblas0-pthread)" +
                             errors);
  }
  return handle;
}

std::string trimmed(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// The handle is never dlclose()d: OpenBLAS's worker pool must outlive every caller.
void load(Library& lib) {
  void* handle = find_loaded();
  std::string want;
  if (handle) {
    want = choose_core().core;
    lib.info.reason = "already loaded by the host process; kernel could not be chosen";
    if (!want.empty()) lib.info.reason += " (start the process with OPENBLAS_CORETYPE=" + want + " to choose it)";
  } else {
    handle = load_with_core(lib.info);
  }

  void* sgemm = dlsym(handle, "cblas_sgemm");
  if (!sgemm) {
    throw std::runtime_error("the loaded OpenBLAS lacks cblas_sgemm: install libopenblas0-pthread");
  }
  lib.handle = handle;
  lib.sgemm = as_function<SgemmFn>(sgemm);
  lib.dgemm = as_function<DgemmFn>(dlsym(handle, "cblas_dgemm"));
  lib.set_threads = as_function<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
  lib.get_threads = as_function<GetThreadsFn>(dlsym(handle, "openblas_get_num_threads"));
  const auto corename = as_function<GetStringFn>(dlsym(handle, "openblas_get_corename"));
  const auto config = as_function<GetStringFn>(dlsym(handle, "openblas_get_config"));

  // The resolved path names the variant and version (openblas-pthread/libopenblasp-r0.3.21.so).
  Dl_info where{};
  lib.info.library = kSonames[0];
  if (dladdr(sgemm, &where) && where.dli_fname) {
    char* real = realpath(where.dli_fname, nullptr);
    lib.info.library = real ? real : where.dli_fname;
    std::free(real);
  }
  lib.info.core = corename ? trimmed(corename()) : "";
  if (lib.info.core.empty()) lib.info.core = "unknown";
  if (!want.empty() && strcasecmp(want.c_str(), lib.info.core.c_str()) == 0) {
    lib.info.reason = "already loaded by the host process, with the kernel this CPU should use";
  }
  lib.info.config = config ? trimmed(config()) : "";
}

// Loading happens once; a failure is remembered rather than retried, so every
// call reports the same error instead of dlopen()ing again on each sgemm. After
// the load, call_once takes no lock (pthread_once fast path) and the pointers are plain reads.
const Library& library() {
  static std::once_flag once;
  static Library lib;
  std::call_once(once, [] {
    try {
      load(lib);
    } catch (const std::exception& e) {
      lib.error = e.what();
    }
  });
  if (!lib.error.empty()) throw std::runtime_error(lib.error);
  return lib;
}

void check(bool ok, const char* call, const char* what) {
  if (!ok) throw std::invalid_argument(std::string(call) + ": " + what);
}

// The checks and the empty products both precisions share; false when
// there is nothing left for BLAS to do.
template <class T>
bool prepare(const char* call, bool trans_a, bool trans_b, int m, int n, int k, T beta, int lda, int ldb, T* c,
             int ldc) {
  check(m >= 0 && n >= 0 && k >= 0, call, "m, n and k must not be negative");
  // An empty product, as NumPy computes it: C has nothing, or C = beta C
  // (a sum over no terms). BLAS would refuse the leading dimensions of an
  // operand without rows or columns.
  if (m == 0 || n == 0) return false;
  if (k == 0) {
    for (int i = 0; i < m; ++i) {
      T* row = c + int64_t{i} * ldc;
      for (int j = 0; j < n; ++j) row[j] = beta == T{0} ? T{0} : beta * row[j];
    }
    return false;
  }
  // Row-major: the stride of a stored matrix is at least its row length.
  check(lda >= std::max(1, trans_a ? m : k), call, "lda is smaller than a row of A as stored");
  check(ldb >= std::max(1, trans_b ? k : n), call, "ldb is smaller than a row of B as stored");
  check(ldc >= std::max(1, n), call, "ldc is smaller than n");
  return true;
}

}  // namespace

const Info& info() { return library().info; }

void* symbol(const char* name) { return dlsym(library().handle, name); }

std::string recommended_core() { return choose_core().core; }

void set_threads(int n) {
  if (n < 1) throw std::invalid_argument("blas::set_threads: n must be at least 1, got " + std::to_string(n));
  const Library& lib = library();
  if (lib.set_threads) lib.set_threads(n);
}

int threads() {
  const Library& lib = library();
  return lib.get_threads ? lib.get_threads() : 1;
}

void sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
           int ldb, float beta, float* c, int ldc) {
  if (!prepare("blas::sgemm", trans_a, trans_b, m, n, k, beta, lda, ldb, c, ldc)) return;
  const Library& lib = library();
  lib.sgemm(kRowMajor, trans_a ? kTrans : kNoTrans, trans_b ? kTrans : kNoTrans, m, n, k, alpha, a, lda, b, ldb, beta,
            c, ldc);
}

void dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
           int ldb, double beta, double* c, int ldc) {
  if (!prepare("blas::dgemm", trans_a, trans_b, m, n, k, beta, lda, ldb, c, ldc)) return;
  const Library& lib = library();
  if (!lib.dgemm) throw std::runtime_error("the loaded OpenBLAS lacks cblas_dgemm: install libopenblas0-pthread");
  lib.dgemm(kRowMajor, trans_a ? kTrans : kNoTrans, trans_b ? kTrans : kNoTrans, m, n, k, alpha, a, lda, b, ldb, beta,
            c, ldc);
}

}  // namespace asyncscope::blas
