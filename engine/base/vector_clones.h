// ASYNCSCOPE_VECTOR_CLONES: compiles a CPU kernel (a loop the compiler
// vectorises) once per x86-64 vector width and picks the widest this CPU
// runs, once, when the program loads (GCC/Clang function multi-versioning,
// an ifunc). The build targets the x86-64 baseline (SSE2: 4 floats per
// instruction) so the binary runs on any x86-64 machine; a kernel marked
// with it runs 8 floats per instruction with AVX2 and 16 with AVX-512.
// Elsewhere (another architecture or compiler) it expands to nothing, and
// so under ThreadSanitizer: the ifunc's resolver runs while the dynamic
// loader relocates the program, before the sanitizer's runtime is ready,
// and its instrumented entry crashes there (SIGSEGV before main).
// Use it where a measurement shows it helps: a loop that streams through
// memory is limited by the memory, not the width (on large arrays the
// elementwise add and multiply gain nothing from it, and may lose), while a
// reduction's independent lanes of additions do run faster with wider vectors.
// Threading: not applicable (a function attribute).
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ASYNCSCOPE_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ASYNCSCOPE_UNDER_TSAN 1
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(ASYNCSCOPE_NO_VECTOR_CLONES) && !defined(ASYNCSCOPE_UNDER_TSAN)
#define ASYNCSCOPE_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ASYNCSCOPE_VECTOR_CLONES
#endif
