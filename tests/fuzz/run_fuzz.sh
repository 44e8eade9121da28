#!/usr/bin/env bash
# Builds a libFuzzer target (tests/fuzz/CMakeLists.txt, clang) and runs it
# over a seed corpus. TARGET (default importer):
#   importer  the trace importers; seeds: our own exports of every demo,
#             made here by the CLI at small sizes, the real profilers'
#             traces, and the hand-made inputs in tests/fuzz/corpus
#             (malformed cases and every past finding);
#   live      the live stream's decoder; seeds: streams written by
#             make_live_seeds.py, and tests/fuzz/corpus-live.
#
#   run_fuzz.sh ASYNCSCOPE_EXE BUILD_DIR SECONDS [CORPUS_DIR] [TARGET]
#
# Without CORPUS_DIR (ctest's short run) new inputs go to a fresh folder, so
# every run starts from the same seeds with the same random seed; with it
# (make fuzz) they accumulate there across runs. One process, one core.
# Exit status: 0 clean, 77 skipped (no clang or no libFuzzer: the reason is
# printed), anything else a finding (the input is saved in BUILD_DIR/findings)
# or a failed build.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 ASYNCSCOPE_EXE BUILD_DIR SECONDS [CORPUS_DIR]" >&2
  exit 2
fi
exe=$1 build=$2 seconds=$3 corpus=${4:-} target=${5:-importer}
case "$target" in importer|live) ;; *) echo "unknown fuzz target $target (importer or live)" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)

cxx=${FUZZ_CXX:-clang++}
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIP: no $cxx on PATH; the fuzz targets need clang with libFuzzer (Debian: clang libclang-rt-dev)"
  exit 77
fi
mkdir -p "$build"
probe="$build/probe"
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer,address,undefined - -o "$probe" >"$build/probe.log" 2>&1; then
  echo "SKIP: $cxx cannot link -fsanitize=fuzzer (libFuzzer missing? Debian: libclang-rt-dev); see $build/probe.log"
  exit 77
fi

launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ ! -f "$build/build.ninja" && ! -f "$build/Makefile" ]]; then
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
fi
cmake --build "$build" -j"${FUZZ_BUILD_JOBS:-2}" >"$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }

seeds="$build/seeds-$target"
if [[ $target == live ]]; then
  rm -rf "$seeds"
  python3 "$here/make_live_seeds.py" "$seeds" || { echo "cannot make the live seeds"; exit 1; }
  hand="$here/corpus-live"
  extra=(-max_len=65536)
else
  # Our own exports: one small run of every demo, and backpressure waits.
  if [[ ! -f "$seeds/done" || "$exe" -nt "$seeds/done" ]]; then
    rm -rf "$seeds"
    mkdir -p "$seeds"
    n=0
    while read -r args; do
      n=$((n + 1))
      # shellcheck disable=SC2086  # the arguments are split on purpose
      "$exe" run $args --trace "$seeds/export-$n.json" >/dev/null ||
        { echo "cannot make seed: asyncscope run $args"; exit 1; }
    done <<'RUNS'
queued-vs-finished --size 8 --workers 2
sync-functions --size 8 --unrelated 1 --workers 2
sync-vs-async --iterations 4 --size 4
dependency-graph --size 8 --workers 2
memory-and-sync --batches 1 --batch-size 2 --sync item --workers 2
memory-and-sync --batches 1 --batch-size 1 --max-inflight 2 --workers 1
host-vs-gpu --repeats 2 --size 8 --workers 2
RUNS
    # Real profilers' traces (../shared/traces beside the checkout), gzip and all.
    real=${ASYNCSCOPE_REAL_TRACES:-$here/../../../shared/traces}
    if [[ -d "$real" ]]; then
      for f in "$real"/*.json "$real"/*.json.gz; do
        [[ -f "$f" && $(stat -c %s "$f") -le 262144 ]] && cp "$f" "$seeds/real-$(basename "$f")"
      done
    fi
    touch "$seeds/done"
  fi

  hand="$here/corpus"
  extra=(-max_len=262144 -dict="$here/trace.dict")
fi

if [[ -z "$corpus" ]]; then
  corpus="$build/corpus-short-$target"
  rm -rf "$corpus"
fi
mkdir -p "$corpus" "$build/findings" "$hand"
echo "fuzzing the $target target for $seconds s: new inputs in $corpus, findings in $build/findings"
# -timeout: one input taking 10 s is a hang; -malloc_limit_mb: so is a 1 GiB allocation.
# libFuzzer's own exit code for a finding is 77, ctest's skip: use others.
set +e
"$build/${target}_fuzzer" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -malloc_limit_mb=1024 "${extra[@]}" -print_final_stats=1 -print_funcs=0 -error_exitcode=3 \
  -timeout_exitcode=4 -artifact_prefix="$build/findings/$target-" "$corpus" "$hand" "$seeds" 2>&1 |
  grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|RELOAD)'
status=${PIPESTATUS[0]}
exit "$status"
