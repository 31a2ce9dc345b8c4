# Shared plumbing of the bench/*.sh scripts (sourced, not run): logging, waiting for a quiet machine, starting and
# stopping a server that prints `listening on http://HOST:PORT`, medians and number formatting.
# The sourcing script sets BENCH_NAME first (and may define bench_before_cleanup, run at exit before the server
# stops); it gets TMP (a scratch dir removed at exit), PYTHON (the real
# interpreter, not a pyenv shim, so sampled PIDs are the processes' own) and the functions below.

log() { echo "[$BENCH_NAME $(date +%T)] $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

PYTHON=$(python3 -c 'import sys; print(sys.executable)')
TMP=$(mktemp -d "${TMPDIR:-/tmp}/$BENCH_NAME.XXXXXX")
SERVER_PID=""
SERVER_ERR=/dev/null
SERVER_URL=""
SERVER_STARTS=0

# wait_quiet MAX_LOAD WAIT_SECONDS : waits until the 1-minute load average is below MAX_LOAD (empty: no wait).
wait_quiet() {
    local max=$1 limit=${2:-1800} waited=0
    [[ -n $max ]] || return 0
    while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$max" 'BEGIN { exit !(l >= m) }' && ((waited < limit)); do
        ((waited % 30 == 0)) && log "load average $(cut -d' ' -f1 /proc/loadavg) ≥ $max; waiting (up to $limit s)"
        sleep 5
        waited=$((waited + 5))
    done
}

# machine_line : "2 cores, <cpu model>, Swift x.y; load average a b c" for the results header.
machine_line() {
    local model swift
    model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
    swift=$(swift --version 2>/dev/null | grep -o 'Swift version [0-9.]*' | head -1 | cut -d' ' -f3)
    echo "$(nproc) cores, ${model:-unknown CPU}, Swift ${swift:-?}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

commit_id() { git rev-parse --short HEAD 2>/dev/null || echo none; }

# start_server NAME CMD... : starts it in the background, waits up to 30 s for its listening line; sets
# SERVER_PID and SERVER_URL (http://HOST:PORT).
start_server() {
    local name=$1 out line="" i
    shift
    # A new file per start: a background child truncates its output file only once it runs, so reusing one could
    # let the grep below read the previous instance's port.
    SERVER_STARTS=$((SERVER_STARTS + 1))
    out=$TMP/$name.$SERVER_STARTS.out
    SERVER_ERR=$TMP/$name.$SERVER_STARTS.err
    "$@" >"$out" 2>"$SERVER_ERR" &
    SERVER_PID=$!
    for ((i = 0; i < 300; i++)); do
        line=$(grep -m1 -o 'listening on http://[^ ]*' "$out" 2>/dev/null || true)
        [[ -n $line ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_ERR" >&2; die "$name exited before it was ready"; }
        sleep 0.1
    done
    [[ -n $line ]] || die "$name did not print its listening line within 30 s"
    SERVER_URL=${line#listening on }
    log "$name (pid $SERVER_PID) listening on $SERVER_URL"
}

# stop_server : SIGTERM (the server drains), SIGKILL after 15 s.
stop_server() {
    local pid=$SERVER_PID i
    SERVER_PID=""
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 150; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "server $pid ignored SIGTERM for 15 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

bench_cleanup() {
    if declare -F bench_before_cleanup >/dev/null; then bench_before_cleanup; fi
    stop_server
    rm -rf "$TMP"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# median NUMBERS... : the median, one decimal.
median() {
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
        if (NR % 2) printf "%.1f", a[(NR + 1) / 2]; else printf "%.1f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# jfield FILE PATH : a field of a JSON file, by a dotted path (`capacity.sessions`); `null` when missing.
jfield() {
    "$PYTHON" -c 'import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print("null" if value is None else (json.dumps(value) if isinstance(value, (dict, list)) else value))' "$1" "$2"
}
