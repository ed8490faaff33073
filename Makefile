# pcie-telemetry: the two commands of the README, and a few more.
#   make demo       build everything, run the tool on the simulated card
#   make test       build (gcc, and clang with ASan+UBSan) and run every test; the
#                   threaded ones under TSan too
#   make bench      print the performance figures (NAME VALUE UNIT), nothing else
#   make fuzz       run the fuzz targets for longer (FUZZ_SECONDS=60)
#   make install    install into PREFIX (/usr/local), under DESTDIR if set
#   make uninstall  remove exactly what the last `make install` installed
#   make deb        build the Debian packages (build/deb/*.deb) and check them with lintian
#
# `make demo` and `make install` print one line per step; the package
# manager's and the build's output go to $(BUILD)/make.log, which is shown
# only when a step fails.

MAKEFLAGS    += --no-print-directory

BUILD        ?= build
BUILD_SAN    ?= build-san
BUILD_FUZZ   ?= build-fuzz
BUILD_TSAN   ?= build-tsan
BUILD_BENCH  ?= build-bench
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 5
PREFIX       ?= /usr/local
DESTDIR      ?=

# NFB_ROOT=DIR: the folder libnfb was installed to (docs/hardware.md)
NFB_ROOT     ?=
CMAKE_NFB    := $(if $(NFB_ROOT),-DNFB_ROOT=$(NFB_ROOT))

LOG          := $(BUILD)/make.log
# step "WHAT" COMMAND...: one line, the command's output into the log
STEP         := bash scripts/step.sh $(LOG)

.PHONY: all deps deps-test build demo test test-gcc test-san test-tsan fuzz-smoke fuzz bench clean \
	install uninstall deb

all: build

deps:
	@mkdir -p $(BUILD)
	@PT_DEPS_LOG=$(abspath $(LOG)) bash scripts/install-deps.sh build

# The packages of `deps` and what the tests need on top.
deps-test:
	@bash scripts/install-deps.sh test

build: deps
	@$(STEP) "configuring $(BUILD)/ (cmake, gcc)" \
		cmake -S . -B $(BUILD) -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_NFB)
	@$(STEP) "building $(BUILD)/ (the commands in $(BUILD)/bin, the libraries in $(BUILD)/lib)" \
		cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== nfb-pcie-telemetry -d sim (one simulated second of the default mixed load)"
	@$(BUILD)/bin/nfb-pcie-telemetry -d sim

test: test-gcc test-san test-tsan fuzz-smoke
	@echo "make test: all test suites passed"

test-gcc: build deps-test
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-san: deps-test
	@cmake -S . -B $(BUILD_SAN) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPT_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_SAN) -j $(JOBS)
	@cd $(BUILD_SAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j $(JOBS)

# The tests of what runs on threads (the simulated card's endpoints and
# its real-time wrapper), under ThreadSanitizer.
TSAN_TESTS := test_env_card test_env_configs test_bus_sim_rt
empty :=
TSAN_REGEX := ^($(subst $(empty) $(empty),|,$(TSAN_TESTS)))$$
test-tsan: deps-test
	@cmake -S . -B $(BUILD_TSAN) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPT_TSAN=ON >/dev/null
	@cmake --build $(BUILD_TSAN) -j $(JOBS) --target $(TSAN_TESTS)
	@cd $(BUILD_TSAN) && TSAN_OPTIONS=halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -R '$(TSAN_REGEX)'

$(BUILD_FUZZ)/.built: deps-test
	@cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
		-DPT_SANITIZE=ON -DPT_FUZZ=ON -DPT_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS)
	@touch $@

fuzz-smoke: $(BUILD_FUZZ)/.built
	@bash tests/fuzz/run.sh $(BUILD_FUZZ)/fuzz $(FUZZ_SECONDS)

fuzz: FUZZ_SECONDS = 60
fuzz: $(BUILD_FUZZ)/.built
	@bash tests/fuzz/run.sh $(BUILD_FUZZ)/fuzz $(FUZZ_SECONDS)

# Nothing but NAME VALUE UNIT lines on standard output: the package
# manager and the build write to $(BUILD_BENCH)/build.log.
bench:
	@mkdir -p $(BUILD_BENCH)
	@PT_DEPS_LOG=$(abspath $(BUILD_BENCH))/build.log bash scripts/install-deps.sh bench
	@cmake -S . -B $(BUILD_BENCH) -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Release -DPT_TESTS=OFF \
		>>$(BUILD_BENCH)/build.log 2>&1 || { cat $(BUILD_BENCH)/build.log >&2; exit 1; }
	@cmake --build $(BUILD_BENCH) -j $(JOBS) >>$(BUILD_BENCH)/build.log 2>&1 || \
		{ cat $(BUILD_BENCH)/build.log >&2; exit 1; }
	@bash bench/run.sh $(BUILD_BENCH)/bin

# PREFIX is where the files will be used (pcie-telemetry.pc names it),
# DESTDIR where they are copied now (a staging folder).
install: build
	@$(STEP) "installing into $(DESTDIR)$(PREFIX) (list: $(BUILD)/installed.txt)" \
		env DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

uninstall:
	@$(STEP) "removing what $(BUILD)/installed.txt lists" cmake --build $(BUILD) --target uninstall

# The Debian packages: debian/, dpkg-buildpackage -us -uc -b, then lintian.
deb:
	@mkdir -p $(BUILD)
	@PT_DEPS_LOG=$(abspath $(LOG)) bash scripts/install-deps.sh deb
	@bash scripts/deb.sh

clean:
	rm -rf $(BUILD) $(BUILD_SAN) $(BUILD_TSAN) $(BUILD_FUZZ) $(BUILD_BENCH)
