# Shared plumbing of the bench/*.sh scripts (sourced, not run): logging, waiting for a quiet machine, starting and
# stopping a server that prints `listening on http://HOST:PORT`, medians and number formatting.
# The sourcing script sets BENCH_NAME first (and may define bench_before_cleanup, run at exit before the server
# stops); it gets TMP (a scratch dir removed at exit), PYTHON (from the environment, else the project's
# .venv/bin/python, made by `make deps` with aiohttp for the peers; a real interpreter, not a pyenv shim, so sampled
# PIDs are the processes' own) and the functions below.

log() { echo "[$BENCH_NAME $(date +%T)] $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

PYTHON=${PYTHON:-$PWD/.venv/bin/python}
[[ -x $PYTHON ]] || die "$PYTHON is missing: \`make deps\` makes .venv from blackbox/requirements.txt"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/$BENCH_NAME.XXXXXX")

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
    model=$(cpu_model)
    swift=$(swift --version 2>/dev/null | grep -o 'Swift version [0-9.]*' | head -1 | cut -d' ' -f3)
    echo "$(nproc) cores, ${model:-unknown CPU}, Swift ${swift:-?}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# commit_id : the short commit of the work tree, read from .git directly (no git process): HEAD → ref → loose or
# packed; `none` outside a checkout.
commit_id() {
    local dir=.git head ref common
    [[ -f $dir ]] && dir=$(sed -n 's/^gitdir: //p' "$dir")
    head=$(cat "$dir/HEAD" 2>/dev/null) || {
        echo none
        return
    }
    if [[ $head == ref:* ]]; then
        ref=${head#ref: }
        common=$dir
        [[ -f $dir/commondir ]] && common=$dir/$(cat "$dir/commondir")
        head=$(cat "$dir/$ref" 2>/dev/null || cat "$common/$ref" 2>/dev/null ||
            awk -v r="$ref" '$2 == r { print $1 }' "$common/packed-refs" 2>/dev/null || true)
    fi
    [[ -n $head ]] && echo "${head:0:7}" || echo none
}

# proc_kb PID FIELD : a kB field of /proc/PID/status (VmRSS, VmHWM), 0 when unreadable.
proc_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

# to_ms VALUE_WITH_UNIT : wrk's durations (us, ms, s, m) in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
        printf "%.2f", n }'
}

# wrk_runs LABEL WRK_ARGS... : a WARMUP-long warm-up, then RUNS runs of DURATION with --latency (THREADS threads,
# CONNECTIONS connections; raw output kept in $RAW). Sets WRK_RPS and WRK_P99 (ms) to the runs' figures, appends
# non-2xx answers, socket errors and maxima of 100 ms or more to NOTES, and dies if the server dies.
wrk_runs() {
    local label=$1 tag f r l max run
    shift
    tag=$(tr -c 'A-Za-z0-9' '_' <<<"$label")
    log "$label: warm-up $WARMUP"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$@" >"$RAW/$tag.warmup.txt" 2>&1 || die "wrk warm-up failed"
    WRK_RPS=()
    WRK_P99=()
    for ((run = 1; run <= RUNS; run++)); do
        f=$RAW/$tag.run$run.txt
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" >"$f" 2>&1 || die "wrk failed: $(cat "$f")"
        kill -0 "$SERVER_PID" 2>/dev/null || die "the server died during $label run $run"
        r=$(awk '/^Requests\/sec:/ { print $2 }' "$f")
        l=$(awk '$1 == "99%" { print $2 }' "$f")
        [[ -n $r && -n $l ]] || die "could not parse wrk output: $(cat "$f")"
        WRK_RPS+=("$r")
        WRK_P99+=("$(to_ms "$l")")
        log "$label run $run: $r req/s, p99 $l"
        if grep -q 'Non-2xx' "$f"; then NOTES+=("$label run $run: $(grep 'Non-2xx' "$f" | sed 's/^ *//')"); fi
        if grep -q 'Socket errors' "$f"; then NOTES+=("$label run $run: $(grep 'Socket errors' "$f" | sed 's/^ *//')"); fi
        max=$(awk '$1 == "Latency" { print $4 }' "$f")
        if [[ -n $max ]] && awk -v m="$(to_ms "$max")" 'BEGIN { exit !(m >= 100) }'; then
            NOTES+=("$label run $run: max latency $max (p99 $l)")
        fi
    done
}

# start_server / stop_server: blackbox/support/server.sh (shared with blackbox/fuzz/schemathesis.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../blackbox/support/server.sh"

bench_cleanup() {
    if declare -F bench_before_cleanup >/dev/null; then bench_before_cleanup; fi
    stop_server
    rm -rf "$TMP"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# median_to DECIMALS NUMBERS... : the median with that many decimals; median NUMBERS... : with one.
median_to() {
    local decimals=$1
    shift
    printf '%s\n' "$@" | sort -g | awk -v d="$decimals" '{ a[NR] = $1 } END {
        f = "%." d "f"; if (NR % 2) printf f, a[(NR + 1) / 2]; else printf f, (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
median() { median_to 1 "$@"; }

# jfield FILE PATH : a field of a JSON file, by a dotted path (`capacity.sessions`); `null` when missing.
jfield() {
    "$PYTHON" -c 'import json, sys
value = json.load(open(sys.argv[1]))
for key in sys.argv[2].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print("null" if value is None else (json.dumps(value) if isinstance(value, (dict, list)) else value))' "$1" "$2"
}

# report_notes HEADING CLEAN : the NOTES array as a Markdown list under HEADING, or the sentence CLEAN when empty.
report_notes() {
    echo
    if ((${#NOTES[@]})); then
        echo "$1"
        echo
        printf -- '- %s\n' "${NOTES[@]}"
    else
        echo "$2"
    fi
}

# cpu_model : the processor's name from /proc/cpuinfo.
cpu_model() { grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'; }
