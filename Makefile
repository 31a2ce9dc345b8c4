# motion-server — the two commands: `make run` and `make test`. Both work on a fresh Debian machine with Swift.
SWIFT ?= swift
LINT_PATHS = Package.swift Sources Tests bench Plugins

# Debian packages, installed by `make deps-run` / `make deps` when missing. The server builds against the first
# list (and reads tzdata's /usr/share/zoneinfo at run time); the tests use the second too (the Python suites, curl in blackbox/http, the browser suite's chromium,
# the PostgreSQL server the store tests start).
RUN_PACKAGES = zlib1g-dev libsqlite3-dev libssl-dev libpq-dev tzdata
TEST_PACKAGES = python3 python3-venv curl chromium chromium-driver openssl nginx postgresql

# The Python test tools live in a project virtual environment (Debian's python3-venv; Debian's Python refuses
# system-wide pip installs, PEP 668), pinned in one file. Every suite and script runs $(PYTHON).
VENV = .venv
REQUIREMENTS = blackbox/requirements.txt
SYSTEM_PYTHON = /usr/bin/python3
PYTHON = $(CURDIR)/$(VENV)/bin/python
export PYTHON

# $(call blackbox,SUITE): the unittest modules of blackbox/SUITE (test_SUITE_*.py, one per subject).
blackbox = $(PYTHON) -m unittest discover -s blackbox/$(1) -p 'test_$(1)_*.py'

.PHONY: cluster run demo test browser autobahn deps deps-run deps-packages lint build-tests unit-tests integration fuzz tsan bench \
	docker-check fresh-check dev-cert clean

# $(call apt_install,PACKAGES): installs those of PACKAGES that are not installed (with sudo unless root).
define apt_install
@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		sudo=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing; \
	fi
endef

## What `make run` needs: the Debian packages the server builds against.
deps-run:
	$(call apt_install,$(RUN_PACKAGES))

## Everything the build and the tests need: the Debian packages above, and .venv with blackbox/requirements.txt
## (made again only when that file changed).
deps: deps-packages $(VENV)/requirements.stamp

deps-packages:
	$(call apt_install,$(RUN_PACKAGES) $(TEST_PACKAGES))

$(VENV)/requirements.stamp: $(REQUIREMENTS) | deps-packages
	@echo "making $(VENV) from $(REQUIREMENTS)"
	rm -rf $(VENV)
	$(SYSTEM_PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --disable-pip-version-check -r $(REQUIREMENTS)
	cp $(REQUIREMENTS) $@

## Runs the server: embedded SQLite in ./data, Public/ on http://127.0.0.1:8080 (flags: ARGS="--port 9000 …").
run: deps-run
	$(SWIFT) run -c release motion-server $(ARGS)

## A self-signed certificate for this machine's names and addresses in ./data/tls (HTTPS/WSS in development; a phone
## on the same network trusts it once). Then: make run ARGS="--host 0.0.0.0 --tls-cert data/tls/cert.pem --tls-key …".
dev-cert:
	Docker/dev-cert.sh data/tls

## Several nodes on this machine without Docker (docs/protocol.md §8): Debian's PostgreSQL and nginx as processes in a
## temporary directory, NODES motion-server nodes (default 2), one port for clients (PORT, default 8080); Ctrl-C
## stops everything.
NODES ?= 2
PORT ?= 8080
cluster: deps
	$(SWIFT) build -c release --product motion-server
	MOTION_SERVER=$(CURDIR)/.build/release/motion-server $(PYTHON) blackbox/support/cluster.py --nodes $(NODES) \
		--port $(PORT)

## The engine alone on simulated sessions of every exercise (EXERCISE=squat for one).
demo:
	$(SWIFT) run -c release motion-demo $(EXERCISE)

## Runs every check: lint, a warnings-as-errors build, all tests, and the concurrency tests under TSan.
test: deps lint build-tests unit-tests integration fuzz browser tsan

## swift-format, the documents' links, and MotionClient's portability: neither it nor a module it depends on may
## import Glibc (outside #if), use epoll or need a system library (tools/check-portable-client.py).
lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)
	python3 tools/check-doc-links.py
	python3 tools/check-portable-client.py

build-tests: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

unit-tests: build-tests
	$(SWIFT) test --skip-build --disable-xctest

## Black-box tests with independent clients (Python http.client, curl, raw sockets) against a real server.
integration: build-tests
	$(SWIFT) build --product http-bench-server
	$(SWIFT) build --product motion-server
	$(call blackbox,http)
	$(PYTHON) blackbox/websocket/run.py
	AUTOBAHN_CASES="1.* 2.* 3.* 4.* 5.* 6.* 7.* 9.* 10.* 12.1.* 13.1.*" blackbox/websocket/autobahn.sh
	AUTOBAHN_MOTION_SERVER=1 AUTOBAHN_CASES="9.*" blackbox/websocket/autobahn.sh
	$(SWIFT) build --product motion-load
	$(SWIFT) build --product motion-demo
	$(call blackbox,server)
	$(call blackbox,security)
	$(call blackbox,cluster)
	$(call blackbox,faults)
	$(call blackbox,tls)
	MOTION_TEST_TLS=1 $(call blackbox,http)
	MOTION_TEST_TLS=1 $(PYTHON) blackbox/websocket/run.py
	cd blackbox/server && $(PYTHON) -m unittest test_motion_load

## Property-based fuzzing of the REST API from its own /openapi.json (schemathesis): no 5xx, responses match it.
fuzz: build-tests
	blackbox/fuzz/schemathesis.sh

## Real-browser tests of Public/ (headless Debian chromium + Selenium) against the real server.
browser: deps
	$(SWIFT) build --product motion-server
	$(PYTHON) -m unittest blackbox/browser/test_browser.py

## Every Autobahn|Testsuite case (about 9 minutes with a debug build; make test runs a subset of each category).
autobahn: deps
	$(SWIFT) build --product http-bench-server
	blackbox/websocket/autobahn.sh

tsan:
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --scratch-path .build-tsan --sanitize=thread --disable-xctest --filter "(^|\.)(MotionSessionTests|EventLoopTests|HTTPServerTests|WebSocketTests|SessionStoreTests|ResumeTests)\b"

## The newcomer's proof: `make test` in a new Debian 12 minbase root (debootstrap) with only the Swift toolchain and
## its documented prerequisites (about 25 minutes on 2 cores; as root).
fresh-check:
	blackbox/fresh/check.sh

## The Docker runtime stage without a Docker daemon: a debootstrap root with Docker/runtime-packages.txt, the static
## binary and Public/, the server as the container runs it: health check, a live session, SIGTERM (as root).
docker-check: deps-run
	Docker/check.sh

## Benchmarks are separate from tests: the whole suite (bench/all.sh; PARTS=… for some, QUICK=1 for a smoke run),
## printed with the commit and the machine; results go to bench/RESULTS.md by hand.
bench:
	bench/all.sh

clean:
	rm -rf .build .build-tsan
