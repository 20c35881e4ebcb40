# swift-promise: the two quick-start commands are `make demo` and `make test`.
SWIFT ?= swift
JOBS ?= 2

.PHONY: all bootstrap build demo test test-core test-tsan bench docs clean

all: build

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build -j $(JOBS)

## demo: build and run the promise-demo program in Examples/
demo: bootstrap
	cd Examples && $(SWIFT) run -j $(JOBS) promise-demo

## test: every suite, then PromiseCore and PromiseTesting again under ThreadSanitizer
test: bootstrap test-core test-tsan

test-core:
	$(SWIFT) build --build-tests -j $(JOBS) -Xswiftc -warnings-as-errors
	$(SWIFT) test -j $(JOBS) --skip-build

## test-tsan: ThreadSanitizer run; any report fails the run
test-tsan:
	TSAN_OPTIONS="halt_on_error=1 abort_on_error=1" \
	  $(SWIFT) test -j $(JOBS) --sanitize=thread --scratch-path .build-tsan \
	  --filter 'PromiseCoreTests|PromiseTestingTests'

## bench: the Benchmarks/ package (package-benchmark), candidates next to GCD and SwiftNIO
bench: bootstrap
	cd Benchmarks && ./ratios.sh

## docs: DocC catalogs of PromiseCore and PromiseTesting into .build-docs/ (swift-docc-plugin; warnings fail)
docs: bootstrap
	mkdir -p .build-docs
	$(SWIFT) package --allow-writing-to-directory .build-docs \
	  generate-documentation --target PromiseCore --output-path .build-docs/PromiseCore --warnings-as-errors
	$(SWIFT) package --allow-writing-to-directory .build-docs \
	  generate-documentation --target PromiseTesting --output-path .build-docs/PromiseTesting --warnings-as-errors

clean:
	rm -rf .build .build-tsan .build-docs Examples/.build Benchmarks/.build
