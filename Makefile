# swift-promise: the two quick-start commands are `make demo` and `make test`.
SWIFT ?= swift
JOBS ?= 2
# Package traits the project's own builds enable: all of them, so PromiseLogging and
# PromiseServiceLifecycle (off by default for packages that depend on this one) are built and tested.
TRAITS ?= --enable-all-traits

.PHONY: all bootstrap build demo format lint test test-core test-resolution test-core-cost measure-product-bytes test-under-load test-typecheck test-tsan test-asan test-examples test-docs test-fuzz fuzz soak bench bench-counts bench-fs bench-sqlite bench-uv bench-curl docs clean

all: build

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build -j $(JOBS) $(TRAITS)

## demo: build and run the promise-demo program in Examples/
demo: bootstrap
	cd Examples && $(SWIFT) run -j $(JOBS) promise-demo

## format: rewrite the Swift sources in the project's style (.swift-format)
FORMAT_PATHS = Sources Tests Examples/Sources Examples/Tests Benchmarks/Sources Fuzz/Sources Checks/Sources
format:
	$(SWIFT) format format --configuration .swift-format --in-place --recursive --parallel $(FORMAT_PATHS)

## lint: fail on any Swift source that `make format` would change
lint:
	$(SWIFT) format lint --configuration .swift-format --strict --recursive --parallel $(FORMAT_PATHS)

## test: the style check (`make lint`), then every suite, then what a package depending on each product alone resolves, then the bytes of PromiseCore and of two adapter programs against their recorded figures and PromiseCore's hot-path allocations against their limits, then the type-checking time of promise chains, then PromiseCore, PromiseTesting and PromiseUV under ThreadSanitizer, then PromiseCore and the adapters under AddressSanitizer, then the demo's own tests, then the documentation site in headless Chromium, then the fuzz targets (replayed, then fuzzed briefly)
test: bootstrap lint test-core test-resolution test-core-cost test-typecheck test-tsan test-asan test-examples test-docs test-fuzz

# A hung test fails the run after TEST_TIMEOUT seconds instead of eating CI's time budget;
# scripts/run-bounded prints the stacks of the test process and the tests that never finished.
TEST_TIMEOUT ?= 900
run_bounded = scripts/run-bounded $(TEST_TIMEOUT) '$(2)' $(1) || { status=$$?; \
	if [ $$status -eq 124 ]; then echo "make: '$(2)' did not finish within $(TEST_TIMEOUT) s: a test hangs (raise TEST_TIMEOUT=… only if the machine is just slow)" >&2; fi; \
	exit $$status; }

# PromiseCoreTests' ModelBasedTests runs PROMISE_MODEL_ITERATIONS random programs against the
# reference model (default 1000, 500 under ThreadSanitizer); a soak run raises it, for example
# `PROMISE_MODEL_ITERATIONS=50000 make test-core`. PROMISE_MODEL_VERBOSE=1 prints what they covered.
test-core:
	$(SWIFT) build --build-tests -j $(JOBS) $(TRAITS) -Xswiftc -warnings-as-errors
	@$(call run_bounded,$(SWIFT) test -j $(JOBS) $(TRAITS) --skip-build,swift test)

## test-resolution: a new package per product depends on it alone and resolves; the packages it pins must be those of the table in scripts/check-resolution and Podlike.md (~1 min, local mirror only)
test-resolution:
	@$(call run_bounded,env SWIFT=$(SWIFT) scripts/check-resolution,scripts/check-resolution)

## test-core-cost: bytes PromiseCore, a PromiseCurl-only program and a four-adapter program add to a stripped release executable, reported against scripts/product-bytes.recorded (fails only above +10 %), and mallocs per operation of PromiseCore's single-threaded hot paths against the limits in scripts/check-core-cost (valgrind counts, never times; ~4 min)
test-core-cost:
	@$(call run_bounded,env SWIFT=$(SWIFT) JOBS=$(JOBS) scripts/check-core-cost,scripts/check-core-cost)

## measure-product-bytes: per product, the bytes a small program using it adds to a stripped release executable and the libraries it links beyond a plain-Dispatch one: the figures of Podlike.md's and README.md's tables (a measurement, not part of `make test`; ~5 min)
measure-product-bytes:
	env SWIFT=$(SWIFT) JOBS=$(JOBS) scripts/measure-product-bytes

## test-under-load: `make test-core` RUNS (3) times while a release build of Benchmarks/ and one CPU burner per core keep the machine busy
test-under-load: bootstrap
	scripts/test-under-load

## test-typecheck: each TypeCheck/Shapes/ file (promise chains as users write them) must type-check within 3 s of CPU
test-typecheck:
	@$(call run_bounded,env SWIFT=$(SWIFT) JOBS=$(JOBS) scripts/typecheck-shapes,scripts/typecheck-shapes)

## test-tsan: ThreadSanitizer run; any report fails the run
# SWIFT_BACKTRACE=enable=no here and under ASan: the sanitizer prints its own report, and the
# Swift runtime's backtracer, which cannot suspend threads under a sanitizer, hung after an
# abort until TEST_TIMEOUT instead of letting the run fail at once.
# Tests run one at a time here: on 2 cores, parallel tests under TSan starved each other for
# a minute (a 60 s timer fired before the test that set it got to cancel it); one at a time the
# suites take 16 s instead of 60 s. Concurrency inside each test is unchanged.
test-tsan:
	$(SWIFT) build --build-tests -j $(JOBS) --sanitize=thread --scratch-path .build-tsan
	@$(call run_bounded,env TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" SWIFT_BACKTRACE=enable=no \
	  $(SWIFT) test -j $(JOBS) --sanitize=thread --scratch-path .build-tsan --skip-build --no-parallel \
	  --filter 'PromiseCoreTests|PromiseTestingTests|PromiseUVTests',swift test --sanitize=thread)

## test-asan: the core and adapter suites under AddressSanitizer with leak detection; any report fails the run
# scripts/lsan.supp names the few leaks that belong to the toolchain's test runner, not to us.
ADAPTER_SUITES ?= PromiseFSTests|PromiseSQLiteTests|PromiseUVTests|PromiseCurlTests
ASAN_ENV = env ASAN_OPTIONS="detect_leaks=1 halt_on_error=1 quarantine_size_mb=64 suppressions=$(CURDIR)/scripts/asan.supp" LSAN_OPTIONS="suppressions=$(CURDIR)/scripts/lsan.supp" SWIFT_BACKTRACE=enable=no
# PromiseCoreTests too (UpstreamLinkTests and HeldLinkTests end a source and what waits for it
# in every way they can end, and leak detection fails a link that keeps them alive), in a run
# of its own first: beside the adapter suites, its CPU-heavy cases under ASan held the two cores long
# enough for the adapters' time limits to fire.
test-asan:
	$(SWIFT) build --build-tests -j $(JOBS) --sanitize=address --scratch-path .build-asan
	@$(call run_bounded,$(ASAN_ENV) \
	  $(SWIFT) test -j $(JOBS) --sanitize=address --scratch-path .build-asan --skip-build \
	  --filter 'PromiseCoreTests',swift test --sanitize=address)
	@$(call run_bounded,$(ASAN_ENV) \
	  $(SWIFT) test -j $(JOBS) --sanitize=address --scratch-path .build-asan --skip-build \
	  --filter '$(ADAPTER_SUITES)',swift test --sanitize=address)

## test-examples: the Examples package's tests: MirrorKitTests (whole mirror runs against httpbin and the sample site, SIGINT to the real programs) and NIOFileSystemCoexistenceTests (PromiseFS beside swift-nio's file system module)
test-examples:
	cd Examples && $(SWIFT) build --build-tests -j $(JOBS) -Xswiftc -warnings-as-errors
	@$(call run_bounded,sh -c 'cd Examples && exec $(SWIFT) test -j $(JOBS) --skip-build',swift test in Examples)

## test-fuzz: Fuzz/'s committed corpus and regression inputs replayed as tests, then `make fuzz` (FUZZ_SECONDS=20 per target)
test-fuzz:
	cd Fuzz && $(SWIFT) build --build-tests -j $(JOBS) -Xswiftc -warnings-as-errors
	@$(call run_bounded,sh -c 'cd Fuzz && exec $(SWIFT) test -j $(JOBS) --skip-build',swift test in Fuzz)
	@$(call run_bounded,env JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz,scripts/fuzz)

## fuzz: libFuzzer with AddressSanitizer on each Fuzz/ target for FUZZ_SECONDS (20) seconds; a failing input lands in Fuzz/Findings/
FUZZ_SECONDS ?= 20
fuzz: bootstrap
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/fuzz

## soak: the long runs (scripts/soak: 10 M promise chains, 1 M HTTP requests, 1 M SQLite operations, 1 M timers, with the RSS curve and descriptor counts), then every fuzz target for SOAK_FUZZ_SECONDS (300) seconds
SOAK_FUZZ_SECONDS ?= 300
soak: bootstrap
	scripts/soak
	FUZZ_SECONDS=$(SOAK_FUZZ_SECONDS) JOBS=$(JOBS) scripts/fuzz

## bench: the Benchmarks/ package: PromiseCore's instruction and malloc counts, then its wall time, next to GCD and SwiftNIO, then PromiseFS, PromiseSQLite, PromiseUV, PromiseCurl, each adapter's wall time followed by its counts under valgrind, then LinkNotes' route next to sqlite-nio and AsyncHTTPClient
bench: bootstrap bench-counts
	cd Benchmarks && ./ratios.sh
	cd Benchmarks && ./fs-ratios.sh
	cd Benchmarks && ./sqlite-ratios.sh && ./sqlite-counts.sh
	cd Benchmarks && ./uv-ratios.sh && ./uv-counts.sh
	cd Benchmarks && ./curl-ratios.sh && ./curl-counts.sh
	cd Benchmarks && ./route-ratios.sh

## bench-counts: PromiseCore's instructions, mallocs and bytes per operation next to SwiftNIO and GCD, counted under valgrind (deterministic where wall time is noisy; ~1 min once built)
bench-counts: bootstrap
	cd Benchmarks && ./counts.sh

## bench-fs: PromiseFS next to raw read(2)/write(2) and Node's fs/promises (1 GiB files, 3 rounds; ~3 min)
bench-fs: bootstrap
	cd Benchmarks && ./fs-ratios.sh

## bench-sqlite: PromiseSQLite next to raw C sqlite3 calls and vapor/sqlite-nio (5 rounds), then instructions and mallocs per operation under valgrind (~4 min)
bench-sqlite: bootstrap
	cd Benchmarks && ./sqlite-ratios.sh && ./sqlite-counts.sh

## bench-uv: PromiseUV next to raw libuv C calls, a serial DispatchQueue and Node (timers, round trips, Bluebird workloads), then the Bluebird workloads' instructions and mallocs per call under valgrind (~3 min)
bench-uv: bootstrap
	cd Benchmarks && ./uv-ratios.sh && ./uv-counts.sh

## bench-curl: PromiseCurl next to a raw C libcurl multi loop and AsyncHTTPClient against nginx on loopback (c=1/16/256 and a 256 MiB download, 5 rounds), then instructions and mallocs per request under valgrind (~4 min once built)
bench-curl: bootstrap
	cd Benchmarks && ./curl-ratios.sh && ./curl-counts.sh

## bench-route: LinkNotes (Hummingbird 2 over PromiseSQLite, PromiseCurl and PromiseNIO) next to the same route on sqlite-nio and AsyncHTTPClient, driven by wrk (3 rounds of 5 s; ~6 min once built)
bench-route: bootstrap
	cd Benchmarks && ./route-ratios.sh

## docs: DocC catalogs of PromiseCore, PromiseTesting and the adapters into .build-docs/ (swift-docc-plugin; warnings fail)
## docs: every product's DocC documentation as one static site in .build-docs/site (an index page linking each module); any DocC warning fails it
docs: bootstrap
	env SWIFT=$(SWIFT) scripts/docs-site

## test-docs: the site opened in headless Chromium, offline: the index and two pages must render with their titles; screenshots kept in .build-docs/screenshots
test-docs: docs
	@$(call run_bounded,scripts/docs-check,scripts/docs-check)

clean:
	rm -rf .build .build-tsan Checks/.build .build-asan .build-docs Examples/.build Benchmarks/.build Fuzz/.build Fuzz/.build-fuzz Soak/.build
