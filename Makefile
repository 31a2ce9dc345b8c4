# motion-server — the two commands: `make run` and `make test`. Both work on a fresh Debian machine with Swift.
SWIFT ?= swift
LINT_PATHS = Package.swift Sources Tests bench Plugins

APT_PACKAGES = zlib1g-dev libsqlite3-dev curl python3

.PHONY: run demo test browser autobahn deps lint build-tests unit-tests integration fuzz tsan bench clean

## Installs the Debian packages the build and the tests need, when missing (CI runs as root).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$( [ "$$(id -u)" = 0 ] || echo sudo ) apt-get install -y -qq $$missing; \
	fi
	@python3 -c 'import websockets' 2>/dev/null || python3 -m pip install -q websockets
	@python3 -c 'import kosoku' 2>/dev/null || python3 -m pip install -q kosoku==0.1.0

## Runs the server: embedded SQLite in ./data, Public/ on http://127.0.0.1:8080 (flags: ARGS="--port 9000 …").
run: deps
	$(SWIFT) run -c release motion-server $(ARGS)

## The engine alone on simulated sessions of every exercise (EXERCISE=squat for one).
demo:
	$(SWIFT) run -c release motion-demo $(EXERCISE)

## Runs every check: lint, a warnings-as-errors build, all tests, and the concurrency tests under TSan.
test: deps lint build-tests unit-tests integration fuzz browser tsan

lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)

build-tests: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

unit-tests: build-tests
	$(SWIFT) test --skip-build --disable-xctest

## Black-box tests with independent clients (Python http.client, curl, raw sockets) against a real server.
integration: build-tests
	$(SWIFT) build --product http-bench-server
	$(SWIFT) build --product motion-server
	python3 -m unittest tests/http/test_http.py
	python3 tests/websocket/test_websocket.py
	AUTOBAHN_CASES="1.* 2.* 3.* 4.* 5.* 6.* 7.* 9.* 10.* 12.1.* 13.1.*" tests/websocket/autobahn.sh
	AUTOBAHN_MOTION_SERVER=1 AUTOBAHN_CASES="9.*" tests/websocket/autobahn.sh
	$(SWIFT) build --product motion-load
	python3 -m unittest tests/server/test_server.py
	python3 -m unittest tests/security/test_security.py
	cd tests/server && python3 -m unittest test_motion_load

## Property-based fuzzing of the REST API from its own /openapi.json (schemathesis): no 5xx, responses match it.
fuzz: build-tests
	tests/fuzz/schemathesis.sh

## Real-browser tests of Public/ (headless Debian chromium + Selenium) against the real server.
browser: deps
	$(SWIFT) build --product motion-server
	tests/browser/setup.sh
	python3 -m unittest tests/browser/test_browser.py

## Every Autobahn|Testsuite case (about 9 minutes with a debug build; make test runs a subset of each category).
autobahn: deps
	$(SWIFT) build --product http-bench-server
	tests/websocket/autobahn.sh

tsan:
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --scratch-path .build-tsan --sanitize=thread --disable-xctest --filter "MotionSessionTests|EventLoopTests|HTTPServerTests|WebSocketTests|SessionStoreTests"

## Benchmarks are separate from tests; results go to bench/RESULTS.md by hand.
bench:
	bench/engine.sh 5

clean:
	rm -rf .build .build-tsan
