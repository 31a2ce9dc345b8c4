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
# Every load here comes from 127.0.0.1: a motion-server under a benchmark keeps no per-address bound (it reads its
# flags from the environment too).
export MOTION_MAX_CONNECTIONS_PER_ADDRESS=0

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

# wrk_warmup LABEL WRK_ARGS... : a WARMUP-long wrk run that is not counted (THREADS threads, CONNECTIONS
# connections; output kept in $RAW).
wrk_warmup() {
    local label=$1 tag
    shift
    tag=$(tr -c 'A-Za-z0-9' '_' <<<"$label")
    log "$label: warm-up $WARMUP"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$@" >"$RAW/$tag.warmup.txt" 2>&1 || die "wrk warm-up failed"
}

# wrk_measure LABEL FILE WRK_ARGS... : one DURATION-long run with --latency, its output in FILE. Sets WRK_R (req/s),
# WRK_L (p99 as wrk writes it) and WRK_N (requests); appends non-2xx answers, socket errors and maxima of 100 ms or
# more to NOTES, and dies if the server (SERVER_PID) died.
wrk_measure() {
    local label=$1 f=$2 max
    shift 2
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" >"$f" 2>&1 || die "wrk failed: $(cat "$f")"
    kill -0 "$SERVER_PID" 2>/dev/null || die "the server died during $label"
    WRK_R=$(awk '/^Requests\/sec:/ { print $2 }' "$f")
    WRK_L=$(awk '$1 == "99%" { print $2 }' "$f")
    WRK_N=$(awk '/ requests in / { print $1 }' "$f")
    [[ -n $WRK_R && -n $WRK_L ]] || die "could not parse wrk output: $(cat "$f")"
    log "$label: $WRK_R req/s, p99 $WRK_L"
    if grep -q 'Non-2xx' "$f"; then NOTES+=("$label: $(grep 'Non-2xx' "$f" | sed 's/^ *//')"); fi
    if grep -q 'Socket errors' "$f"; then NOTES+=("$label: $(grep 'Socket errors' "$f" | sed 's/^ *//')"); fi
    max=$(awk '$1 == "Latency" { print $4 }' "$f")
    if [[ -n $max ]] && awk -v m="$(to_ms "$max")" 'BEGIN { exit !(m >= 100) }'; then
        NOTES+=("$label: max latency $max (p99 $WRK_L)")
    fi
}

# wrk_runs LABEL WRK_ARGS... : wrk_warmup, then RUNS wrk_measure runs (raw output kept in $RAW). Sets WRK_RPS and
# WRK_P99 (ms) to the runs' figures. With CPU_GROUPS set (names) and a function `cpu_pids GROUP` that prints a
# group's process ids, also sets WRK_CPU[GROUP] to the runs' CPU per request of that group, µs, space-separated.
wrk_runs() {
    local label=$1 tag run group
    local -A ticks=()
    shift
    tag=$(tr -c 'A-Za-z0-9' '_' <<<"$label")
    wrk_warmup "$label" "$@"
    WRK_RPS=()
    WRK_P99=()
    declare -gA WRK_CPU=()
    for ((run = 1; run <= RUNS; run++)); do
        # shellcheck disable=SC2046 # cpu_pids prints one id per word
        for group in "${CPU_GROUPS[@]}"; do ticks[$group]=$(proc_ticks $(cpu_pids "$group")); done
        wrk_measure "$label run $run" "$RAW/$tag.run$run.txt" "$@"
        for group in "${CPU_GROUPS[@]}"; do
            # shellcheck disable=SC2046
            WRK_CPU[$group]+="$(awk -v a="${ticks[$group]}" -v b="$(proc_ticks $(cpu_pids "$group"))" \
                -v hz="$(getconf CLK_TCK)" -v n="$WRK_N" 'BEGIN { printf "%.0f", (b - a) * 1e6 / hz / n }') "
        done
        WRK_RPS+=("$WRK_R")
        WRK_P99+=("$(to_ms "$WRK_L")")
    done
}

# need_tool COMMAND [PACKAGE] : prints COMMAND's path (also found in /usr/sbin, which a normal user's PATH may lack).
# When it is missing, root installs PACKAGE (default: COMMAND) with apt-get; anyone else is told to.
need_tool() {
    local tool=$1 package=${2:-$1} path
    path=$(command -v "$tool" || true)
    [[ -z $path && -x /usr/sbin/$tool ]] && path=/usr/sbin/$tool
    if [[ -z $path ]]; then
        ((EUID == 0)) && command -v apt-get >/dev/null || die "$tool is missing: apt-get install $package (as root)"
        log "installing $package (apt)"
        { apt-get update -qq && apt-get install -y -qq "$package"; } >&2 || die "apt-get install $package failed"
        path=$(command -v "$tool") || die "$tool is still missing after apt-get install $package"
    fi
    echo "$path"
}

# raise_nofile CONNECTIONS : raises the open-files limit of this shell, and so of the servers and clients it starts
# (65536, else the hard limit); NOFILE is then the limit. Dies when CONNECTIONS (and 256 more) do not fit.
raise_nofile() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
    NOFILE=$(ulimit -n)
    ((NOFILE >= $1 + 256)) || die "ulimit -n is $NOFILE; $1 idle connections need more"
}

# proc_ticks PID... : user+system clock ticks (1/CLK_TCK s, all threads) the processes have used so far, summed; a
# process that is gone counts 0.
proc_ticks() {
    local total=0 pid ticks
    for pid in "$@"; do
        # Fields 14 and 15, counted after the command name, which may hold spaces and brackets.
        ticks=$(awk '{ sub(/^.*\) /, ""); split($0, f, " "); print f[12] + f[13] }' "/proc/$pid/stat" 2>/dev/null) || ticks=0
        total=$((total + ${ticks:-0}))
    done
    echo "$total"
}

# free_port : a TCP port on 127.0.0.1 that was free a moment ago (for servers that cannot take port 0).
free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server / stop_server: blackbox/support/server.sh (shared with blackbox/fuzz/schemathesis.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../blackbox/support/server.sh"

bench_cleanup() {
    if declare -F bench_before_cleanup >/dev/null; then bench_before_cleanup; fi
    stop_client
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

# find_capacity_run RUN WHAT COMMAND... : one `motion-load --find-capacity` run (COMMAND, without --json) against the
# server start_server started: its report in $RAW/runRUN.json and .log, the server stopped after; appends the
# capacity found (0 when no level passed) to CAPACITIES. WHAT names the server in errors.
find_capacity_run() {
    local run=$1 what=$2 capacity
    shift 2
    "$@" --json >"$RAW/run$run.json" 2> >(tee "$RAW/run$run.log" >&2) ||
        log "run $run: motion-load exited non-zero (no level passed)"
    kill -0 "$SERVER_PID" 2>/dev/null || die "$what stopped during run $run: $(tail -5 "$SERVER_ERR")"
    stop_server
    capacity=$(jfield "$RAW/run$run.json" capacity.sessions)
    [[ $capacity == null ]] && capacity=0
    CAPACITIES+=("$capacity")
    log "run $run: capacity $capacity sessions"
}

# cpu_model : the processor's name from /proc/cpuinfo.
cpu_model() { grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'; }

# ---- WebSocket load with ws-bench-client (bench/ws-client), for bench/websocket.sh and bench/peers.sh ------------
# The caller sets CLIENT (the client's binary), RAW (where its output goes), NOTES=() and the knobs it reads:
# RATE_CONNECTIONS RATE RATE_DURATION SIZE RAMP DRAIN CLIENT_LOOPS TICK_US (ws_rate), IDLE_CONNECTIONS HOLD
# CLIENT_LOOPS (ws_idle).
CLIENT_PID=""

# stop_client : ends a client still running in the background (at exit too).
stop_client() {
    local pid=$CLIENT_PID
    CLIENT_PID=""
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# alive NAME WHAT : dies with the server's exit status and stderr if it is gone.
alive() {
    kill -0 "$SERVER_PID" 2>/dev/null && return 0
    local status=0
    wait "$SERVER_PID" 2>/dev/null || status=$?
    SERVER_PID=""
    die "$1 died during $2 (exit status $status$( ((status > 128)) && echo ", signal $((status - 128))")): $(tail -5 "$SERVER_ERR")"
}

# jget FILE KEY : a field of the client's one-line JSON (last line of FILE).
jget() {
    "$PYTHON" -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
v = d.get(sys.argv[2])
print("null" if v is None else (json.dumps(v) if isinstance(v, dict) else v))' "$1" "$2"
}

fmt0() { awk -v v="$1" 'BEGIN { if (v == "null" || v == "") print "n/a"; else printf "%.0f", v }'; }
fmt1() { awk -v v="$1" 'BEGIN { if (v == "null" || v == "") print "n/a"; else printf "%.1f", v }'; }
fmt2() { awk -v v="$1" 'BEGIN { if (v == "null" || v == "") print "n/a"; else printf "%.2f", v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "null" || b == "null") print "n/a"; else printf "%.2f", a / b }'; }
# ms NUMBER : "0.42 ms", or seconds when large
ms() { awk -v v="$1" 'BEGIN { if (v >= 1000) printf "%.2f s", v / 1000; else if (v >= 10) printf "%.0f ms", v; else printf "%.2f ms", v }'; }

# check_errors FILE LABEL : notes connect failures, lost connections and wrong-size echoes.
check_errors() {
    local f=$1 label=$2 key v
    for key in connect_failures lost mismatched unexpected; do
        v=$(jget "$f" $key)
        if [[ $v != null && $v != 0 ]]; then
            local why=""
            [[ $key == connect_failures ]] && why=" $(jget "$f" connect_failure_reasons)"
            [[ $key == lost ]] && why=" $(jget "$f" lost_reasons)"
            NOTES+=("$label: $key = $v$why")
        fi
    done
}

# ws_rate NAME URL FILE [CLIENT_ARGS...] : `ws-bench-client rate` against the server (SERVER_PID, for its CPU),
# the client's JSON in FILE. Notes errors, echoes still unanswered after DRAIN s, and a client that sent late.
ws_rate() {
    local name=$1 url=$2 f=$3
    shift 3
    log "$name rate: $RATE_CONNECTIONS x $RATE msg/s for $RATE_DURATION s (ramp $RAMP s)"
    "$CLIENT" rate --url "$url" "$@" --connections "$RATE_CONNECTIONS" --rate "$RATE" --seconds "$RATE_DURATION" \
        --size "$SIZE" --ramp-seconds "$RAMP" --drain-seconds "$DRAIN" --loops "$CLIENT_LOOPS" --tick-us "$TICK_US" \
        --server-pid "$SERVER_PID" >"$f" 2>"$f.err" || die "client failed: $(cat "$f.err")"
    alive "$name" "the fixed-rate run"
    check_errors "$f" "$name rate"
    local sent unanswered
    sent=$(jget "$f" sent)
    unanswered=$(jget "$f" unanswered)
    if [[ $unanswered != 0 ]]; then
        NOTES+=("$name rate: $unanswered of $sent messages still unanswered $DRAIN s after sending stopped (counted with their age then, so percentiles are lower bounds); echoes arrived at $(fmt0 "$(jget "$f" receive_rate_during_run)") msg/s during the run against $(fmt0 "$(jget "$f" send_rate)") sent")
    fi
    if awk -v l="$(jget "$f" send_lag_p99_ms)" 'BEGIN { exit !(l > 1) }'; then
        NOTES+=("$name rate: the client sent late (send lag p99 $(ms "$(jget "$f" send_lag_p99_ms)"), max $(ms "$(jget "$f" send_lag_max_ms)")): it did not get the CPU in time, and that delay is in the latencies")
    fi
    log "$name rate: p50 $(jget "$f" p50_ms) ms, p99 $(jget "$f" p99_ms) ms, max $(jget "$f" max_ms) ms, server CPU $(jget "$f" server_cpu_percent) %"
}

# ws_idle NAME URL FILE [CLIENT_ARGS...] : on a server started just before (a fresh process), VmRSS before, then
# `ws-bench-client idle` opens IDLE_CONNECTIONS connections and VmRSS again 1 s after they are open. Sets
# IDLE_READY (connections open), IDLE_BEFORE and IDLE_AFTER (kB) and IDLE_PER (KiB per connection).
ws_idle() {
    local name=$1 url=$2 f=$3 i ready=""
    shift 3
    sleep 1
    IDLE_BEFORE=$(proc_kb "$SERVER_PID" VmRSS)
    log "$name idle: opening $IDLE_CONNECTIONS connections (server RSS before: $IDLE_BEFORE kB)"
    "$CLIENT" idle --url "$url" "$@" --connections "$IDLE_CONNECTIONS" --hold-seconds "$HOLD" --loops "$CLIENT_LOOPS" \
        >"$f" 2>"$f.err" &
    CLIENT_PID=$!
    for ((i = 0; i < 1200; i++)); do # 120 s
        ready=$(awk '$1 == "ready" { print $2 }' "$f" 2>/dev/null || true)
        [[ -n $ready ]] && break
        kill -0 "$CLIENT_PID" 2>/dev/null || die "client exited before it was ready: $(cat "$f.err")"
        sleep 0.1
    done
    [[ -n $ready ]] || die "$name: $IDLE_CONNECTIONS connections not open within 120 s"
    sleep 1 # let the last upgrades settle
    IDLE_AFTER=$(proc_kb "$SERVER_PID" VmRSS)
    wait "$CLIENT_PID" || die "client failed: $(cat "$f.err")"
    CLIENT_PID=""
    alive "$name" "the idle run"
    check_errors "$f" "$name idle"
    IDLE_READY=$ready
    IDLE_PER=$(awk -v a="$IDLE_AFTER" -v b="$IDLE_BEFORE" -v n="$ready" 'BEGIN { printf "%.2f", n ? (a - b) / n : 0 }')
    log "$name idle: $ready open, RSS $IDLE_BEFORE → $IDLE_AFTER kB, $IDLE_PER KiB per connection"
}
