# pcie-telemetry: the two commands of the README, and a few more.
#   make demo    build everything, run the tool on the simulated card
#   make test    build (gcc, and clang with ASan+UBSan) and run every test
#   make bench   print the performance figures (NAME VALUE UNIT)
#   make fuzz    run the fuzz targets for longer (FUZZ_SECONDS=60)

MAKEFLAGS    += --no-print-directory

BUILD        ?= build
BUILD_SAN    ?= build-san
BUILD_FUZZ   ?= build-fuzz
BUILD_BENCH  ?= build-bench
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 5

.PHONY: all deps deps-test build demo test test-gcc test-san fuzz-smoke fuzz bench clean

all: build

deps:
	@bash scripts/install-deps.sh

# The packages of `deps` and what the tests need on top (Verilator, GHDL).
deps-test:
	@bash scripts/install-deps.sh --test

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== nfb-pcie-telemetry -d sim (one simulated second of the default mixed load)"
	@$(BUILD)/bin/nfb-pcie-telemetry -d sim

test: test-gcc test-san fuzz-smoke
	@echo "make test: all test suites passed"

test-gcc: build deps-test
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-san: deps-test
	@cmake -S . -B $(BUILD_SAN) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPT_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_SAN) -j $(JOBS)
	@cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

$(BUILD_FUZZ)/.built: deps
	@cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
		-DPT_SANITIZE=ON -DPT_FUZZ=ON -DPT_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS)
	@touch $@

fuzz-smoke: $(BUILD_FUZZ)/.built
	@bash tests/fuzz/run.sh $(BUILD_FUZZ)/fuzz $(FUZZ_SECONDS)

fuzz: FUZZ_SECONDS = 60
fuzz: $(BUILD_FUZZ)/.built
	@bash tests/fuzz/run.sh $(BUILD_FUZZ)/fuzz $(FUZZ_SECONDS)

bench:
	@bash scripts/install-deps.sh --bench
	@cmake -S . -B $(BUILD_BENCH) -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release -DPT_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_BENCH) -j $(JOBS) >$(BUILD_BENCH)/build.log 2>&1 || \
		{ cat $(BUILD_BENCH)/build.log; exit 1; }
	@bash bench/run.sh $(BUILD_BENCH)/bin

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_FUZZ) $(BUILD_BENCH)
