#!/usr/bin/env bash
# WebSocket benchmark: our release http-bench-server (`GET /v1/echo`, a WebSocket echo on HTTPServer, with
# --loops 1 and with --loops 2, the default on this 2-core machine) and, in the same go, a single-process aiohttp
# echo peer (bench/peers/aiohttp_ws_server.py), driven by bench/ws-client (ws-bench-client, a load client on our
# own event loops). Per server:
#   echo   CONNECTIONS connections, each with PIPELINE message(s) in flight, SIZE-byte JSON text, DURATION s:
#          messages/s, median of RUNS (after a 1 s warm-up inside each run);
#   rate   RATE_CONNECTIONS connections x RATE messages/s for RATE_DURATION s: latency from the *intended* send
#          time (no coordinated omission) p50/p90/p99/p99.9/max, and the server's CPU over the sending window;
#   idle   IDLE_CONNECTIONS idle WebSocket connections on a fresh server process: RSS after minus RSS before,
#          per connection.
# Prints a Markdown block for bench/RESULTS.md on stdout; progress, installs and build output go to stderr.
#
# Usage: bench/websocket.sh
# Environment (defaults): DURATION=10 RUNS=3 CONNECTIONS=64 PIPELINE=1 SIZE=1024
#   RATE_CONNECTIONS=1000 RATE=30 RATE_DURATION=30 RAMP=5 DRAIN=10 IDLE_CONNECTIONS=10000 HOLD=3
#   CLIENT_LOOPS=1 TICK_US=100 OURS_LOOPS="1 2" PEERS=aiohttp (empty: ours only)
#   MAX_LOAD=<x>  first waits (up to 30 min) until the 1-minute load average is below x (a shared machine)
#   SCRATCH_PATH=<dir>  builds there (swift build --scratch-path) instead of .build, e.g. while another build
#                       holds the .build lock
#   RAW_DIR=<dir>  keeps every raw client output there (default: a temp dir, removed at exit)
#   TLS=1          our server over TLS (wss://, the test certificate Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem,
#                  which the client verifies); needs PEERS= (the peers speak plain WebSocket only)
# Smoke run: DURATION=2 RUNS=1 RATE_DURATION=5 RAMP=1 IDLE_CONNECTIONS=1000 bench/websocket.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}
DURATION=${DURATION%s}   # seconds; wrk's "10s" (bench/all.sh shares DURATION with http.sh) is read as 10
RUNS=${RUNS:-3}
CONNECTIONS=${CONNECTIONS:-64}
PIPELINE=${PIPELINE:-1}
SIZE=${SIZE:-1024}
RATE_CONNECTIONS=${RATE_CONNECTIONS:-1000}
RATE=${RATE:-30}
RATE_DURATION=${RATE_DURATION:-30}
RAMP=${RAMP:-5}
DRAIN=${DRAIN:-10}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-10000}
HOLD=${HOLD:-3}
CLIENT_LOOPS=${CLIENT_LOOPS:-1}
TICK_US=${TICK_US:-100}
SCRATCH_PATH=${SCRATCH_PATH:-}
MAX_LOAD=${MAX_LOAD:-}
OURS_LOOPS=${OURS_LOOPS:-1 2}
PEERS=${PEERS-aiohttp}
TLS=${TLS:-0}

BENCH_NAME=websocket.sh
source bench/lib.sh

TLS_SERVER=()
TLS_CLIENT=()
if [[ $TLS == 1 ]]; then
    [[ -z $PEERS ]] || die "TLS=1 measures our server only: set PEERS="
    TLS_SERVER=(--tls-cert "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem"
        --tls-key "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.key")
    TLS_CLIENT=(--ca "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem")
fi

# ---- limits ----------------------------------------------------------------------------------------------------
# 10,000 connections need 10,000 descriptors in the server and as many in the client (both inherit this limit).
raise_nofile "$IDLE_CONNECTIONS"

# ---- tools (idempotent) ----------------------------------------------------------------------------------------
if [[ -n $PEERS ]] && ! "$PYTHON" -c 'import aiohttp' 2>/dev/null; then
    die "$PYTHON cannot import aiohttp; \`make deps\` installs it into .venv"
fi
AIOHTTP_VERSION=$("$PYTHON" -c 'import aiohttp; print(aiohttp.__version__)' 2>/dev/null || echo none)

# ---- build -----------------------------------------------------------------------------------------------------
BUILD_ARGS=(-c release)
[[ -n $SCRATCH_PATH ]] && BUILD_ARGS+=(--scratch-path "$SCRATCH_PATH")
log "building http-bench-server and ws-bench-client (release${SCRATCH_PATH:+, in $SCRATCH_PATH})"
swift build "${BUILD_ARGS[@]}" --product http-bench-server >&2 || die "swift build http-bench-server failed"
swift build "${BUILD_ARGS[@]}" --product ws-bench-client >&2 || die "swift build ws-bench-client failed"
BIN=${SCRATCH_PATH:-.build}/release/http-bench-server
CLIENT=${SCRATCH_PATH:-.build}/release/ws-bench-client
[[ -x $BIN && -x $CLIENT ]] || die "binaries missing after build"

# ---- scratch, cleanup ------------------------------------------------------------------------------------------
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW"

# ---- helpers ---------------------------------------------------------------------------------------------------
# start_ws_server NAME CMD... : start_server, then WS_URL is its echo endpoint.
start_ws_server() {
    start_server "$@"
    WS_URL="$([[ $TLS == 1 ]] && echo wss || echo ws)://127.0.0.1:${SERVER_URL##*:}/v1/echo"
}

ECHO_ROWS=()
RATE_ROWS=()
IDLE_ROWS=()
NOTES=()
declare -A MPS P99 SCPU KIBPC # server name → echo median msg/s, rate p99 (ms), rate server CPU %, idle KiB/conn

bench_echo() {
    local name=$1 run f
    log "$name echo: warm-up"
    "$CLIENT" echo --url "$WS_URL" "${TLS_CLIENT[@]}" --connections "$CONNECTIONS" --seconds 1 --warmup-seconds 0.5 --size "$SIZE" \
        --pipeline "$PIPELINE" --loops "$CLIENT_LOOPS" >"$RAW/$name.echo.warmup.json" 2>"$RAW/$name.echo.warmup.err" ||
        die "client failed: $(cat "$RAW/$name.echo.warmup.err")"
    local rates=() scpu=() ccpu=() errors=0
    for ((run = 1; run <= RUNS; run++)); do
        f=$RAW/$name.echo.run$run.json
        "$CLIENT" echo --url "$WS_URL" "${TLS_CLIENT[@]}" --connections "$CONNECTIONS" --seconds "$DURATION" --size "$SIZE" \
            --pipeline "$PIPELINE" --loops "$CLIENT_LOOPS" --server-pid "$SERVER_PID" >"$f" 2>"$f.err" ||
            die "client failed: $(cat "$f.err")"
        alive "$name" "echo run $run"
        rates+=("$(jget "$f" messages_per_second)")
        scpu+=("$(jget "$f" server_cpu_percent)")
        ccpu+=("$(jget "$f" client_cpu_percent)")
        errors=$((errors + $(jget "$f" connect_failures) + $(jget "$f" lost) + $(jget "$f" mismatched)))
        check_errors "$f" "$name echo run $run"
        log "$name echo run $run: ${rates[-1]} msg/s, server CPU ${scpu[-1]} %, client CPU ${ccpu[-1]} %"
    done
    local m list
    m=$(median "${ccpu[@]}")
    if awk -v c="$m" 'BEGIN { exit !(c >= 90) }'; then
        NOTES+=("$name echo: the client used $m % of a core (median): it may have been the bottleneck")
    fi
    m=$(median "${rates[@]}")
    MPS[$name]=$m
    list=$(printf '%.0f, ' "${rates[@]}")
    ECHO_ROWS+=("| $name | $(fmt0 "$m") (${list%, }) | $(median "${scpu[@]}") % | $(median "${ccpu[@]}") % | $errors |")
}

bench_rate() {
    local name=$1 f=$RAW/$1.rate.json
    ws_rate "$name" "$WS_URL" "$f" "${TLS_CLIENT[@]}"
    local sent received unanswered p99 lower=""
    sent=$(jget "$f" sent)
    received=$(jget "$f" received)
    unanswered=$(jget "$f" unanswered)
    p99=$(jget "$f" p99_ms)
    [[ $unanswered != 0 ]] && lower="≥ "
    P99[$name]=$p99
    SCPU[$name]=$(jget "$f" server_cpu_percent)
    RATE_ROWS+=("| $name | $sent / $received / $unanswered | $lower$(ms "$(jget "$f" p50_ms)") | $lower$(ms "$(jget "$f" p90_ms)") | $lower$(ms "$p99") | $lower$(ms "$(jget "$f" p999_ms)") | $lower$(ms "$(jget "$f" max_ms)") | $(fmt1 "${SCPU[$name]}") % | $(fmt1 "$(jget "$f" client_cpu_percent)") % | $(ms "$(jget "$f" send_lag_p99_ms)") / $(ms "$(jget "$f" service_p99_ms)") |")
}

# bench_idle NAME : on a server started just before (fresh process): RSS before, open, RSS when all are open.
bench_idle() {
    ws_idle "$1" "$WS_URL" "$RAW/$1.idle.json" "${TLS_CLIENT[@]}"
    KIBPC[$1]=$IDLE_PER
    IDLE_ROWS+=("| $1 | $IDLE_READY | $(awk -v v="$IDLE_BEFORE" 'BEGIN { printf "%.1f", v / 1024 }') MiB | $(awk -v v="$IDLE_AFTER" 'BEGIN { printf "%.1f", v / 1024 }') MiB | $IDLE_PER KiB | $(jget "$RAW/$1.idle.json" lost_during_hold) |")
}

# ---- measure ---------------------------------------------------------------------------------------------------
wait_quiet "$MAX_LOAD" 1800
SERVERS=()
LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
for loops in $OURS_LOOPS; do
    name="ours-loops$loops"
    SERVERS+=("$name")
    cmd=("$BIN" --port 0 --loops "$loops" --max-connections $((IDLE_CONNECTIONS + 1000)) --log-level warning
        "${TLS_SERVER[@]}")
    start_ws_server "$name" "${cmd[@]}"
    bench_echo "$name"
    bench_rate "$name"
    stop_server
    start_ws_server "$name" "${cmd[@]}"
    bench_idle "$name"
    stop_server
done
if [[ $PEERS == *aiohttp* ]]; then
    SERVERS+=(aiohttp)
    cmd=("$PYTHON" bench/peers/aiohttp_ws_server.py --port 0)
    start_ws_server aiohttp "${cmd[@]}"
    bench_echo aiohttp
    bench_rate aiohttp
    stop_server
    start_ws_server aiohttp "${cmd[@]}"
    bench_idle aiohttp
    stop_server
fi
LOAD_AFTER=$(cut -d' ' -f1 /proc/loadavg)

# ---- report ----------------------------------------------------------------------------------------------------
cpu=$(cpu_model)
echo "### WebSocket ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(nproc) cores, $cpu, $(swift --version 2>&1 | head -1);" \
    "Python $("$PYTHON" -c 'import platform; print(platform.python_version())'), aiohttp $AIOHTTP_VERSION; Linux $(uname -r)"
echo
echo "Command: \`DURATION=$DURATION RUNS=$RUNS CONNECTIONS=$CONNECTIONS PIPELINE=$PIPELINE RATE_CONNECTIONS=$RATE_CONNECTIONS" \
    "RATE=$RATE RATE_DURATION=$RATE_DURATION IDLE_CONNECTIONS=$IDLE_CONNECTIONS CLIENT_LOOPS=$CLIENT_LOOPS${SCRATCH_PATH:+ SCRATCH_PATH=$SCRATCH_PATH} bench/websocket.sh\`," \
    "which runs, per server:"
echo
echo '```'
echo "swift build -c release --product http-bench-server && swift build -c release --product ws-bench-client"
echo "ulimit -n $NOFILE"
for loops in $OURS_LOOPS; do
    echo ".build/release/http-bench-server --port 0 --loops $loops --max-connections $((IDLE_CONNECTIONS + 1000)) --log-level warning"
done
[[ $PEERS == *aiohttp* ]] && echo "python3 bench/peers/aiohttp_ws_server.py --port 0   # single process, no access log"
echo "ws-bench-client echo --url \$URL --connections $CONNECTIONS --seconds 1 --pipeline $PIPELINE   # warm-up, not counted"
echo "ws-bench-client echo --url \$URL --connections $CONNECTIONS --seconds $DURATION --size $SIZE --pipeline $PIPELINE --loops $CLIENT_LOOPS --server-pid \$PID   # $RUNS times"
echo "ws-bench-client rate --url \$URL --connections $RATE_CONNECTIONS --rate $RATE --seconds $RATE_DURATION --size $SIZE --ramp-seconds $RAMP --drain-seconds $DRAIN --loops $CLIENT_LOOPS --tick-us $TICK_US --server-pid \$PID"
echo "# fresh server process, then:"
echo "ws-bench-client idle --url \$URL --connections $IDLE_CONNECTIONS --hold-seconds $HOLD --loops $CLIENT_LOOPS   # VmRSS before, and 1 s after \"ready\""
echo '```'
echo
echo "Messages are $SIZE-byte pose-like JSON text (joints with position, orientation, velocity), sent by" \
    "ws-bench-client (bench/ws-client, on our event loops, $CLIENT_LOOPS loop) with its raw engine: pre-masked frames," \
    "incoming frames parsed for their header and length only, so it costs the client less per message than the" \
    "server. permessage-deflate is not offered (both servers would accept it). Our server runs with one event loop" \
    "(like-for-like with single-threaded aiohttp) and with two (its default here, one per core); client and server" \
    "share the $(nproc) cores. Load average (1 min) was $LOAD_BEFORE before the runs and $LOAD_AFTER after them."
echo
echo "**Echo throughput**: $CONNECTIONS connections, $PIPELINE message(s) in flight each (the next is sent when the" \
    "echo arrives), ${DURATION} s per run after a 1 s warm-up; CPU is % of one core over the run (server from" \
    "/proc/PID/stat utime+stime, client from getrusage)."
echo
echo "| server | messages/s, median of $RUNS (runs) | server CPU | client CPU | errors |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${ECHO_ROWS[@]}"
echo
echo "**Fixed rate**: $RATE_CONNECTIONS connections × $RATE messages/s for $RATE_DURATION s (opened over $RAMP s first)," \
    "each connection on its own schedule, phases spread evenly. Latency is the echo's arrival minus the message's" \
    "*intended* send time, so a stalled server or a late client counts (no coordinated omission); log-linear" \
    "histogram, < 1 % error. The client sends whatever is due at most every $TICK_US µs (\`--tick-us\`, to save" \
    "timer wake-ups; the wait is part of the latency). Server CPU is over the $RATE_DURATION s sending window, % of one core. \"send lag /" \
    "service p99\": how late the client sent (its own delay, included in the latency) and latency from the actual send."
echo
echo "| server | sent / received / unanswered | p50 | p90 | p99 | p99.9 | max | server CPU | client CPU | send lag / service p99 |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${RATE_ROWS[@]}"
echo
echo "**Idle memory**: $IDLE_CONNECTIONS open WebSocket connections doing nothing, on a fresh server process; VmRSS" \
    "before the first connection and 1 s after the last one opened; KiB = 1024 bytes."
echo
echo "| server | open | RSS before | RSS with the connections | per connection | lost while held ($HOLD s) |"
echo "| --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${IDLE_ROWS[@]}"
echo
if [[ $PEERS == *aiohttp* ]]; then
    echo "Ratios ours/aiohttp:"
    echo
    for name in "${SERVERS[@]}"; do
        [[ $name == aiohttp ]] && continue
        echo "- $name: echo throughput $(ratio "${MPS[$name]}" "${MPS[aiohttp]}")×;" \
            "fixed-rate p99 $(ratio "${P99[$name]}" "${P99[aiohttp]}")× (aiohttp's p99 is $(ratio "${P99[aiohttp]}" "${P99[$name]}")× ours);" \
            "server CPU at fixed rate $(ratio "${SCPU[$name]}" "${SCPU[aiohttp]}")×;" \
            "idle memory per connection $(ratio "${KIBPC[$name]}" "${KIBPC[aiohttp]}")×"
    done
    echo
fi
verdict() { awk "BEGIN { exit !($1) }" && echo "met" || echo "**not met**"; }
for name in "${SERVERS[@]}"; do
    [[ $name == aiohttp ]] && continue
    echo "Aim ($name): p99 ≤ 3 ms at $RATE_CONNECTIONS × $RATE msg/s: $(fmt2 "${P99[$name]}") ms, $(verdict "${P99[$name]} <= 3");" \
        "CPU ≤ 1.5 × uWebSockets' third of a core (50 %): $(fmt1 "${SCPU[$name]}") %, $(verdict "${SCPU[$name]} <= 50");" \
        "≤ 2 KiB per idle connection: ${KIBPC[$name]} KiB, $(verdict "${KIBPC[$name]} <= 2")."
done
report_notes "Client reported:" "The client reported no connect failures, no lost connections and no wrong-size echoes."
