# The two set-up commands are `make run` and `make test`; everything else is optional.
BUILD   ?= build
JOBS    ?= $(shell nproc)
GEN     := $(shell command -v ninja >/dev/null 2>&1 && echo -G Ninja)
CTEST_J ?= $(JOBS)

.PHONY: all deps configure build run test stress bench bench-peers gpu-check tsan tsan-engine asan fuzz screenshots clean

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(GEN) -DCMAKE_BUILD_TYPE=Release

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j$(JOBS)

run: build
	./$(BUILD)/bin/asyncscope

test: build
	cd $(BUILD) && ctest --output-on-failure -LE stress -j$(CTEST_J)

stress: build
	cd $(BUILD) && ctest --output-on-failure -L stress

bench: build
	./$(BUILD)/bin/asyncscope_bench --benchmark_out=$(BUILD)/bench.json --benchmark_out_format=json $(BENCH_ARGS)

# asyncscope side by side with NumPy and PyTorch on the CPU (bench/peers):
# the demos' workloads in each, fresh processes taking turns, medians of
# PEERS_ROUNDS rounds in $(BUILD)/peers.json and a Markdown table on stdout.
# Installs python3-numpy and python3-torch if missing (scripts/deps.sh with those names).
PEERS_ROUNDS ?= 5
PEERS_PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
bench-peers: configure
	@bash scripts/deps.sh python3-numpy python3-torch
	cmake --build $(BUILD) -j$(JOBS) --target asyncscope asyncscope_python_package
	$(PEERS_PYTHON) bench/peers/run.py --build $(BUILD) --rounds $(PEERS_ROUNDS) --python $(PEERS_PYTHON) $(PEERS_ARGS)

# On a machine with an NVIDIA GPU: the CUDA tests and GPU benchmarks, where a
# missing or unusable GPU is a failure instead of a skip.
gpu-check: build
	ASYNCSCOPE_REQUIRE_GPU=1 ./$(BUILD)/bin/engine_tests --gtest_filter='Cuda*:*CudaDemo*:ThreadedEngineGpu*'
	ASYNCSCOPE_REQUIRE_GPU=1 ./$(BUILD)/bin/asyncscope_bench --benchmark_filter=Cuda \
	  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
	  --benchmark_out=$(BUILD)/bench-gpu.json --benchmark_out_format=json

# ThreadSanitizer build of the engine and trace tests (see CMakePresets.json).
tsan: deps
	cmake --preset tsan
	cmake --build --preset tsan -j$(JOBS)
	ctest --preset tsan

# ThreadSanitizer over the engine and trace tests only (the engine_tests
# binary: about 36 s of tests on 2 cores once built), the candidate for CI.
tsan-engine: deps
	cmake --preset tsan
	cmake --build build-tsan -j$(JOBS) --target engine_tests
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" ./build-tsan/bin/engine_tests --gtest_brief=1

# AddressSanitizer + UBSan + LeakSanitizer build of the whole suite (see CMakePresets.json).
asan: deps
	cmake --preset asan
	cmake --build --preset asan -j$(JOBS)
	ctest --preset asan -j$(CTEST_J)

# The libFuzzer targets (clang, their own small build in $(BUILD)/fuzz): the
# trace importers, then the live stream's decoder, FUZZ_SECONDS each in one
# process, the corpora kept in $(BUILD)/fuzz/corpus and corpus-live across
# runs, findings in $(BUILD)/fuzz/findings. make test runs each for 20 s
# (ctest fuzz.Importer, fuzz.Live).
FUZZ_SECONDS ?= 600
fuzz: build
	bash tests/fuzz/run_fuzz.sh $(abspath $(BUILD))/bin/asyncscope $(abspath $(BUILD))/fuzz $(FUZZ_SECONDS) \
	  $(abspath $(BUILD))/fuzz/corpus importer
	bash tests/fuzz/run_fuzz.sh $(abspath $(BUILD))/bin/asyncscope $(abspath $(BUILD))/fuzz $(FUZZ_SECONDS) \
	  $(abspath $(BUILD))/fuzz/corpus-live live

# The README's pictures, taken by the app itself in a virtual X server.
SHOT = xvfb-run -a -s '-screen 0 1600x1000x24' ./$(BUILD)/bin/asyncscope
screenshots: build
	$(SHOT) --demo memory-and-sync --batches 40 --vary sync=none,item --run --quit-after-run --screenshot docs/memory-and-sync.png
	$(SHOT) --demo sync-vs-async --run --quit-after-run --screenshot docs/sync-vs-async.png
	$(SHOT) --demo dependency-graph --size 1000 --workers 2 --run --quit-after-run --screenshot docs/dependency-graph.png
	N=300 $(SHOT) --script assets/scripts/sync_vs_async.py --workers 1 --run --quit-after-run --screenshot docs/script-view.png
	$(SHOT) --window-size 1600x1000 --demo sync-vs-async --size 1 --iterations 300 --tab insight --run --quit-after-run --screenshot docs/insight-bottleneck.png
	$(SHOT) --window-size 1600x1000 --demo memory-and-sync --batches 40 --batch-size 256 --vary sync=item,none --tab insight --run --quit-after-run --screenshot docs/insight-memory.png
	$(SHOT) --simulated-gpus 2 --window-size 1600x1000 --script assets/scripts/two_devices.py --run --quit-after-run --screenshot docs/two-devices.png
	$(SHOT) --window-size 1600x1000 view tests/data/traces/torch211_h200_chapter_cuda.json.gz --tab insight --quit-after-run --screenshot docs/pytorch-profiler-trace.png
	ASYNCSCOPE_SERVE=1 BATCHES=40 BATCH_SIZE=256 PYTHONPATH=$(BUILD)/python /usr/bin/python3 assets/scripts/memory.py > /dev/null & \
	pid=$$!; until ./$(BUILD)/bin/asyncscope attach --list | grep -q "^$$pid "; do sleep 0.1; done; \
	$(SHOT) --window-size 1600x1000 attach $$pid --tab insight --quit-after-run --screenshot docs/attach.png

clean:
	rm -rf $(BUILD) build-tsan build-asan
