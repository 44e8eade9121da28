#!/usr/bin/env bash
# The GPU check on a machine other than the one that builds: the GPU machine
# may run another distribution (no Debian development packages, another
# Python), so the binaries are built here and travel with the shared
# libraries they need.
#
#   scripts/gpu-check.sh bundle [BUILD]   here: pack BUILD's (default build)
#       engine_tests, asyncscope_bench and asyncscope, stripped and
#       xz-compressed, with every library they load that is not part of the C
#       and C++ runtimes (OpenBLAS, Google Benchmark, libpython, GLFW, ...),
#       and, for `asyncscope script`, the standard library of the Python the
#       app links, NumPy and the asyncscope package, into .gpu/ (ignored by
#       git; about 30 MB).
#   scripts/gpu-check.sh run OUT          there, from the working tree's root
#       with .gpu/ beside it: unpacks into /tmp/asyncscope-gpu and runs, each
#       result saved under OUT as soon as it exists:
#         check.log           every step's output, with the times
#         gpu-tests.xml       the GPU tests (ASYNCSCOPE_REQUIRE_GPU: a missing
#                             GPU fails them instead of skipping)
#         bench-gpu.json      the GPU benchmarks, 3 repetitions
#         demos.jsonl         the six demos with --device cuda, one JSON each
#         traces/*.json.gz, traces/*.svg
#                             their timelines, and those of the PyTorch
#                             edition's host_vs_device.py on cuda:0, with the
#                             app's SVG of each (drawn without a display)
#         (check.log)         the PyTorch edition on cuda:0 against the CPU
#                             (bench/gpu/torch_edition_check.py)
#         torch_reference.json, torch_chapter_cuda.json.gz
#                             real PyTorch on the same GPU (bench/gpu), when
#                             the machine's python3 has it
#         engine-tests.xml    the rest of engine_tests (some use the GPU when
#                             there is one)
#       in about 3 minutes on an H200, so that a second try fits in the time
#       a GPU machine is lent. Exit status: 0 when every step passed.
#       GPU_CHECK_ONLY="gpu-benchmarks demo ..." runs only the steps named
#       (gpu-tests, gpu-benchmarks, demo, python-edition, python-script,
#       torch-reference, engine-tests-rest).
#       With .gpu/base/asyncscope_bench.xz (another commit's, packed by hand)
#       and no GPU_CHECK_ONLY, the GPU benchmarks also run A/B, four rounds of
#       fresh processes in alternating order, one JSON line each in ab.jsonl.
#   scripts/gpu-check.sh screenshots OUT [DEST]  here again, with OUT
#       fetched: opens each of OUT/traces in the app under Xvfb (the GPU
#       machine has no X server) and saves DEST/NAME.png (default
#       OUT/traces), the window as a user sees it.
set -uo pipefail

mode=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)

bundle() {
  local build=${1:-build}
  local out="$root/.gpu"
  rm -rf "$out"
  mkdir -p "$out/bin" "$out/lib"
  local skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv)'
  for b in engine_tests asyncscope_bench asyncscope; do
    [ -x "$root/$build/bin/$b" ] || { echo "gpu-check: $build/bin/$b is missing (make build first)" >&2; exit 2; }
    strip -o "$out/bin/$b" "$root/$build/bin/$b"
    xz -T2 -6 -f "$out/bin/$b"
    ldd "$root/$build/bin/$b" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
  done | sort -u | while read -r name path; do
    [[ $name =~ $skip ]] && continue
    [ -e "$out/lib/$name.xz" ] || xz -T2 -6 -c "$path" >"$out/lib/$name.xz"
  done
  # OpenBLAS is loaded with dlopen (engine/tensor/blas.cpp), so ldd misses it.
  local blas
  blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0) || true
  [ -f "$blas" ] || { echo "gpu-check: libopenblas.so.0 not found (apt-get install libopenblas0-pthread)" >&2; exit 2; }
  xz -T2 -6 -c "$blas" >"$out/lib/libopenblas.so.0.xz"
  # The app's interpreter for `asyncscope script` there: the standard library
  # of the Python it links, NumPy and its libraries, and our package.
  local py stdlib
  py=$(ldd "$root/$build/bin/asyncscope" | awk '/libpython/ {print $1}' | sed 's/^lib\(python[0-9.]*\)\.so.*/\1/')
  stdlib=/usr/lib/$py
  if [ -n "$py" ] && [ -d "$stdlib" ] && [ -d "$root/$build/python/asyncscope" ]; then
    tar -C /usr/lib --exclude=test --exclude=tests --exclude=__pycache__ --exclude=idlelib --exclude=tkinter \
      --exclude=ensurepip --exclude=lib2to3 --exclude=site-packages --exclude=dist-packages -cJf "$out/stdlib.tar.xz" "$py"
    local numpy
    numpy=$(/usr/bin/python3 -c 'import numpy, os; print(os.path.dirname(numpy.__file__))')
    tar -C "$(dirname "$numpy")" --exclude=tests --exclude=__pycache__ -cJf "$out/numpy.tar.xz" numpy
    for so in "$numpy"/core/_multiarray_umath*.so; do
      ldd "$so" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
    done | while read -r name path; do
      [[ $name =~ $skip ]] && continue
      [ -e "$out/lib/$name.xz" ] || xz -T2 -6 -c "$path" >"$out/lib/$name.xz"
    done
    local stage
    stage=$(mktemp -d)
    cp -rL "$root/$build/python/asyncscope" "$stage/"
    find "$stage" -name '*.so' -exec strip {} \;
    tar -C "$stage" --exclude=__pycache__ -cJf "$out/asyncscope-python.tar.xz" asyncscope
    rm -rf "$stage"
  fi
  git -C "$root" rev-parse HEAD >"$out/commit" 2>/dev/null || true
  du -sh "$out"
}

run() {
  local out=${1:?usage: scripts/gpu-check.sh run OUT}
  mkdir -p "$out"
  local log="$out/check.log" dir=/tmp/asyncscope-gpu failed=0
  [ -d "$root/.gpu" ] || { echo "gpu-check: no .gpu/ here: run 'scripts/gpu-check.sh bundle' on the build machine and carry .gpu" >&2; exit 2; }
  rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib"
  for f in "$root"/.gpu/bin/*.xz; do xz -dc "$f" >"$dir/bin/$(basename "$f" .xz)"; done
  for f in "$root"/.gpu/lib/*.xz; do xz -dc "$f" >"$dir/lib/$(basename "$f" .xz)"; done
  chmod +x "$dir"/bin/*
  # cuBLAS is loaded with dlopen: the CUDA toolkit's, or the one a Python wheel brought.
  local cublas
  cublas=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /usr/lib/x86_64-linux-gnu /opt /usr/local/lib \
             -maxdepth 7 -name 'libcublas.so.1[0-9]' 2>/dev/null | head -1)
  export LD_LIBRARY_PATH="$dir/lib${cublas:+:$(dirname "$cublas")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export ASYNCSCOPE_REQUIRE_GPU=1
  step() {  # step NAME SECONDS COMMAND...: runs it, its output into the log, under a time limit
    local name=$1 limit=$2
    shift 2
    if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ " $GPU_CHECK_ONLY " != *" ${name%% *} "* ]]; then return 0; fi
    echo "== $(date -u +%T) $name" | tee -a "$log"
    local t0=$SECONDS
    timeout "$limit" "$@" 2>&1 | tee -a "$log"
    local rc=${PIPESTATUS[0]}
    echo "== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$log"
    [ "$rc" = 0 ] || failed=1
  }
  keep_trace() {  # keep_trace FILE NAME: the trace under OUT/traces, gzipped, with the app's SVG of it
    local file=$1 name=$2
    [ -f "$file" ] || return 0
    mkdir -p "$out/traces"
    "$dir/bin/asyncscope" view "$file" --svg "$out/traces/$name.svg" --title "$name on $(gpu_name)" >>"$log" 2>&1 ||
      echo "gpu-check: no SVG of $name" | tee -a "$log"
    gzip -c "$file" >"$out/traces/$name.json.gz" && rm -f "$file"
  }
  gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo "the GPU"; }
  {
    echo "bundle of commit $(cat "$root/.gpu/commit" 2>/dev/null), cuBLAS: ${cublas:-not found}"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    nproc; uname -r
  } | tee -a "$log"
  step gpu-tests 150 "$dir/bin/engine_tests" --gtest_filter='Cuda*:*CudaDemo*:ThreadedEngineGpu*' \
    --gtest_output="xml:$out/gpu-tests.xml"
  step gpu-benchmarks 150 "$dir/bin/asyncscope_bench" --benchmark_filter=Cuda --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/bench-gpu.json" --benchmark_out_format=json
  for demo in queued-vs-finished sync-functions sync-vs-async dependency-graph memory-and-sync host-vs-gpu; do
    step "demo $demo" 60 "$dir/bin/asyncscope" run "$demo" --device cuda --json "$dir/$demo.json" \
      --trace "$dir/$demo.trace.json"
    [ -f "$dir/$demo.json" ] && { tr -d '\n' <"$dir/$demo.json"; echo; } >>"$out/demos.jsonl"
    keep_trace "$dir/$demo.trace.json" "$demo"
  done
  if [ -f "$root/.gpu/stdlib.tar.xz" ]; then
    # The PyTorch edition on the GPU, through the app's own interpreter.
    mkdir -p "$dir/py/lib" "$dir/py/site"
    tar -C "$dir/py/lib" -xJf "$root/.gpu/stdlib.tar.xz"
    tar -C "$dir/py/site" -xJf "$root/.gpu/numpy.tar.xz"
    tar -C "$dir/py/site" -xJf "$root/.gpu/asyncscope-python.tar.xz"
    step python-edition 90 env PYTHONHOME="$dir/py" PYTHONPATH="$dir/py/site" ASYNCSCOPE_PYTHONPATH="$dir/py/site" \
      PYTHONNOUSERSITE=1 \
      "$dir/bin/asyncscope" script "$root/bench/gpu/torch_edition_check.py"
    step python-script 60 env PYTHONHOME="$dir/py" PYTHONPATH="$dir/py/site" ASYNCSCOPE_PYTHONPATH="$dir/py/site" \
      PYTHONNOUSERSITE=1 \
      "$dir/bin/asyncscope" script "$root/assets/scripts/host_vs_device.py" --trace "$dir/host_vs_device.trace.json"
    keep_trace "$dir/host_vs_device.trace.json" host_vs_device
  fi
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    step torch-reference 90 env PYTHONUNBUFFERED=1 python3 "$root/bench/gpu/torch_reference.py" "$out"
  else
    echo "== torch-reference: skipped (python3 has no PyTorch with CUDA here)" | tee -a "$log"
  fi
  if [ -f "$root/.gpu/base/asyncscope_bench.xz" ]; then
    # A/B of the GPU benchmarks against the binary in .gpu/base (another
    # commit's), fresh processes taking turns, the order flipping each round.
    xz -dc "$root/.gpu/base/asyncscope_bench.xz" >"$dir/bin/asyncscope_bench_base" && chmod +x "$dir/bin/asyncscope_bench_base"
    for round in 1 2 3 4; do
      for side in $([ $((round % 2)) = 1 ] && echo base new || echo new base); do
        bin="$dir/bin/asyncscope_bench"; [ "$side" = base ] && bin="$dir/bin/asyncscope_bench_base"
        step "ab-$side-$round" 60 "$bin" --benchmark_filter="${GPU_CHECK_AB_FILTER:-WaitedTinyOp|DependentKernelGap|NormalMatmul}" \
          --benchmark_out="$dir/ab.json" --benchmark_out_format=json
        [ -f "$dir/ab.json" ] && { echo "{\"side\": \"$side\", \"round\": $round, \"run\": $(tr -d '\n' <"$dir/ab.json")}"; } >>"$out/ab.jsonl"
        rm -f "$dir/ab.json"
      done
    done
  fi
  step engine-tests-rest 120 "$dir/bin/engine_tests" --gtest_brief=1 \
    --gtest_filter='-Cuda*:*CudaDemo*:ThreadedEngineGpu*' --gtest_output="xml:$out/engine-tests.xml"
  echo "== $(date -u +%T) done: $([ $failed = 0 ] && echo 'every step passed' || echo 'a step failed')" | tee -a "$log"
  return $failed
}

screenshots() {
  local out=${1:?usage: scripts/gpu-check.sh screenshots OUT [DEST]}
  local dest=${2:-$1/traces}
  local app="$root/build/bin/asyncscope" failed=0 shots=0
  mkdir -p "$dest" || exit 2
  [ -x "$app" ] || { echo "gpu-check: build/bin/asyncscope is missing (make build first)" >&2; exit 2; }
  command -v xvfb-run >/dev/null || { echo "gpu-check: xvfb-run is missing (apt-get install xvfb xauth)" >&2; exit 2; }
  for trace in "$out"/traces/*.json.gz; do
    [ -f "$trace" ] || continue
    local png
    png="$dest/$(basename "$trace" .json.gz).png"
    if xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --window-size 1600x1000 view "$trace" \
         --screenshot "$png" --quit-after-run >/dev/null 2>&1 && [ -s "$png" ]; then
      echo "$png"
      shots=$((shots + 1))
    else
      echo "gpu-check: the app could not draw $trace" >&2
      failed=1
    fi
  done
  [ "$shots" -gt 0 ] || { echo "gpu-check: no traces under $out/traces (run 'scripts/gpu-check.sh run OUT' on the GPU machine first)" >&2; exit 2; }
  return $failed
}

case $mode in
  bundle) shift; bundle "$@" ;;
  run) shift; run "$@" ;;
  screenshots) shift; screenshots "$@" ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
