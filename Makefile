# motion-server — the two commands: `make run` and `make test`. Both work on a fresh Debian machine with Swift.
SWIFT ?= swift
LINT_PATHS = Package.swift Sources Tests bench

.PHONY: run test lint build-tests unit-tests tsan bench clean

## Runs the product. Until the network server lands this is the engine demo on simulated sessions.
run:
	$(SWIFT) run -c release motion-demo $(EXERCISE)

## Runs every check: lint, a warnings-as-errors build, all tests, and the concurrency tests under TSan.
test: lint build-tests unit-tests tsan

lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)

build-tests:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

unit-tests: build-tests
	$(SWIFT) test --skip-build --disable-xctest

tsan:
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --disable-xctest --filter MotionSessionTests

## Benchmarks are separate from tests; results go to bench/RESULTS.md by hand.
bench:
	bench/engine.sh 5

clean:
	rm -rf .build .build-tsan
