#!/usr/bin/env bash
# Property-based API fuzzing of the REST API with schemathesis, driven by the server's own GET /openapi.json:
# no 5xx, and every response's status code, content type and body conform to the document.
#
# Starts a debug motion-server on port 0 with a temp database, seeds it (blackbox/fuzz/seed.py: recorded sessions
# through POST /v1/analyze and two open HTTP sessions, whose ids the `{id}` path parameter draws from half of the
# time, and custom exercises, which it draws from on the exercise paths), runs `schemathesis run` with a fixed seed and a bounded number of examples per operation, skipping the
# WebSocket-only paths, stops the server (SIGTERM, which must exit 0) and exits non-zero on any failure.
#
# Usage: blackbox/fuzz/schemathesis.sh
# Environment (defaults): EXAMPLES=250 SEED=20261129 WORKERS=1
#   PYTHON=<interpreter>    the Python with schemathesis (default: the project's .venv/bin/python, from `make deps`)
#   MOTION_SERVER=<binary>  test that binary instead of building .build/debug/motion-server
#   REPORT_DIR=<dir>        also write JUnit and NDJSON reports there
set -euo pipefail
if [[ -n ${PYTHON:-} && $PYTHON != /* ]]; then PYTHON=$PWD/$PYTHON; fi
cd "$(dirname "$0")/../.."

SCHEMATHESIS_MAJOR=4 # the version is pinned in blackbox/requirements.txt; the CLI flags and config keys below are 4's
EXAMPLES=${EXAMPLES:-250}
SEED=${SEED:-20261129}
WORKERS=${WORKERS:-1} # one worker: the server's state (deleted or stopped sessions) then evolves the same each run
CHECKS=not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance
EXCLUDE=(/v1/stream /v1/sessions/{id}/watch /v1/echo) # GET upgrades to WebSocket; blackbox/server covers them

log() { echo "[schemathesis.sh] $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

PYTHON=${PYTHON:-$PWD/.venv/bin/python}
[[ -x $PYTHON ]] || die "$PYTHON is missing: \`make deps\` makes .venv from blackbox/requirements.txt"
installed=$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null || true)
if [[ $installed != "$SCHEMATHESIS_MAJOR".* ]]; then
    die "$PYTHON has no schemathesis $SCHEMATHESIS_MAJOR.x (found: ${installed:-none}); run \`make deps\`"
fi
st() { "$PYTHON" -c 'import sys; from schemathesis.cli import schemathesis; sys.argv[0] = "schemathesis"; schemathesis()' "$@"; }

if [[ -n ${MOTION_SERVER:-} ]]; then
    BIN=$MOTION_SERVER
else
    log "building motion-server (debug)"
    swift build --product motion-server >&2 || die "swift build failed"
    BIN=.build/debug/motion-server
fi
[[ -x $BIN ]] || die "$BIN is missing or not executable"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/schemathesis.XXXXXX")
source blackbox/support/server.sh
cleanup() {
    stop_server
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- server ----------------------------------------------------------------------------------------------------
start_server motion-server "$BIN" --host 127.0.0.1 --port 0 --database "$TMP/db.sqlite" --public "$PWD/Public" \
    --log-level warning
URL=$SERVER_URL

"$PYTHON" blackbox/fuzz/seed.py "$URL" "$TMP" || die "seeding failed"

# ---- fuzz ------------------------------------------------------------------------------------------------------
args=(--config-file "$TMP/schemathesis.toml" run "$URL/openapi.json"
    --checks "$CHECKS" --max-examples "$EXAMPLES" --seed "$SEED" --workers "$WORKERS"
    --generation-database none --request-timeout 10 --no-color)
for path in "${EXCLUDE[@]}"; do args+=(--exclude-path "$path"); done
if [[ -n ${REPORT_DIR:-} ]]; then args+=(--report junit,ndjson --report-dir "$REPORT_DIR"); fi
log "schemathesis ${args[*]}"
status=0
# Run from the temp dir so nothing (cassettes, .hypothesis) lands in the work tree.
(cd "$TMP" && st "${args[@]}") || status=$?

# ---- server health after the run -------------------------------------------------------------------------------
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    log "the server died during the run; its stderr:"
    cat "$SERVER_ERR" >&2
    status=1
fi
stop_server
if [[ $SERVER_STATUS != 0 ]]; then
    log "the server exited $SERVER_STATUS after SIGTERM (expected 0); its stderr:"
    cat "$SERVER_ERR" >&2
    status=1
fi
if grep -qiE 'fatal error|panic|assertion' "$SERVER_ERR"; then
    log "the server's stderr reports a crash:"
    cat "$SERVER_ERR" >&2
    status=1
fi

if ((status == 0)); then
    echo "schemathesis: passed (seed $SEED, $EXAMPLES examples per operation)"
else
    echo "schemathesis: FAILED (exit $status; seed $SEED, $EXAMPLES examples per operation)"
fi
exit "$status"
