#!/usr/bin/env bash
# Our servers beside independent peers, in one go, one table. Contenders, each with one event loop, thread or worker:
#   http-bench-server  our release http-bench-server --loops 1 (HTTPServer alone: `/` → "hello", `/v1/echo` echo)
#   motion-server      our release motion-server --threads 1 (embedded SQLite; `/healthz` → "ok" through its router
#                      and middleware; with --ws-echo for the WebSocket runs, its echo at `/v1/echo`)
#   nginx              Debian's nginx, one worker, `return 200 "hello"` (bench/peers/nginx.conf.in): HTTP only
#   aiohttp            bench/peers/aiohttp_server.py (HTTP) and bench/peers/aiohttp_ws_server.py (WebSocket)
#   websockets         bench/peers/websockets_server.py, the Python `websockets` library's echo: WebSocket only
#   uwebsockets        only where Debian packages a build; where it does not (bookworm), the output says so
# RUNS rounds; every round runs each contender in turn, in another order each round (round r starts r-1 places on,
# even rounds backwards), a fresh server process for every measurement:
#   HTTP   wrk -tTHREADS -cCONNECTIONS: a WARMUP warm-up, then DURATION with --latency: req/s, p99, and the
#          server's CPU per request (utime+stime from /proc/PID/stat over the measured run, nginx's master and
#          worker summed, ÷ requests);
#   rate   ws-bench-client rate, RATE_CONNECTIONS connections × RATE messages/s of SIZE bytes for RATE_DURATION s
#          (as bench/websocket.sh): p50/p99/p99.9/max latency from the intended send time, server CPU %;
#   idle   ws-bench-client idle, IDLE_CONNECTIONS idle WebSocket connections: server RSS after minus before,
#          KiB per connection.
# Medians of the rounds. Prints a Markdown block for bench/RESULTS.md on stdout; progress, installs and build output
# go to stderr. Needs wrk, curl, nginx (and pgrep), and .venv with aiohttp and websockets (`make deps`); as root it
# installs wrk, curl and nginx with apt-get when missing. Any user can run it: nginx runs from a temp dir.
#
# Usage: bench/peers.sh   (about 15 minutes with the defaults)
# Environment (defaults): DURATION=10s RUNS=3 WARMUP=2s CONNECTIONS=64 THREADS=2
#   RATE_CONNECTIONS=1000 RATE=30 RATE_DURATION=30 RAMP=5 DRAIN=10 SIZE=1024 CLIENT_LOOPS=1 TICK_US=100
#   IDLE_CONNECTIONS=10000 HOLD=3   (the open-files limit is raised to 65536, else to the hard limit, and must
#                                    hold them; motion-server admits 10,000 connections at most)
#   PEERS="nginx aiohttp websockets uwebsockets"   the peers, a subset (empty: ours only)
#   MAX_LOAD=<x>   first waits (up to 30 min) until the 1-minute load average is below x (a shared machine)
#   RAW_DIR=<dir>  keeps every raw wrk and client output there (default: a temp dir, removed at exit)
# Smoke run: DURATION=2s RUNS=1 WARMUP=1s RATE_DURATION=3 RAMP=1 DRAIN=2 IDLE_CONNECTIONS=500 bench/peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
RATE_CONNECTIONS=${RATE_CONNECTIONS:-1000}
RATE=${RATE:-30}
RATE_DURATION=${RATE_DURATION:-30}
RAMP=${RAMP:-5}
DRAIN=${DRAIN:-10}
SIZE=${SIZE:-1024}
CLIENT_LOOPS=${CLIENT_LOOPS:-1}
TICK_US=${TICK_US:-100}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-10000}
HOLD=${HOLD:-3}
PEERS=${PEERS-nginx aiohttp websockets uwebsockets}
MAX_LOAD=${MAX_LOAD:-}

BENCH_NAME=peers.sh
source bench/lib.sh

# motion-server also reads every flag from a MOTION_* variable: only the flags written below count here.
for variable in "${!MOTION_@}"; do unset "$variable"; done

KNOWN_PEERS="nginx aiohttp websockets uwebsockets"
for peer in $PEERS; do
    [[ " $KNOWN_PEERS " == *" $peer "* ]] || die "unknown peer in PEERS: $peer (known: $KNOWN_PEERS)"
done
wants() { [[ " $PEERS " == *" $1 "* ]]; }

# ---- limits ----------------------------------------------------------------------------------------------------
# The idle runs need IDLE_CONNECTIONS descriptors in the server and as many in the client (both inherit this limit).
raise_nofile "$IDLE_CONNECTIONS"

# ---- tools (idempotent) ----------------------------------------------------------------------------------------
need_tool wrk >/dev/null
need_tool curl >/dev/null
NGINX=""
if wants nginx; then
    NGINX=$(need_tool nginx)
    need_tool pgrep procps >/dev/null
fi
python_version() { "$PYTHON" -c "import $1; print($1.__version__)" 2>/dev/null; }
for module in aiohttp websockets; do
    if wants "$module" && ! python_version "$module" >/dev/null; then
        die "$PYTHON cannot import $module; \`make deps\` installs it into .venv (blackbox/requirements.txt)"
    fi
done

# uws_verdict : why uWebSockets is not in the table. Debian (bookworm) packages no build of it, neither the library
# (uWebSockets, uSockets) nor an echo server on it; this script fetches no source.
uws_verdict() {
    local found
    if ! command -v apt-cache >/dev/null; then
        echo "not measured: no apt-cache here to ask whether Debian packages a build"
        return
    fi
    if [[ -z $(apt-cache search --names-only '^nginx$' 2>/dev/null) ]]; then
        echo "not measured: apt's package lists are empty or stale (\`apt-get update\`), so whether Debian packages a build was not checked"
        return
    fi
    found=$({ apt-cache search --names-only uwebsockets; apt-cache search --names-only usockets; } 2>/dev/null |
        cut -d' ' -f1 | sort -u | xargs)
    if [[ -z $found ]]; then
        echo "not measured: no packaged uWebSockets exists here (\`apt-cache search --names-only uwebsockets\`, and" \
            "\`usockets\`, find nothing), and this benchmark builds no peer from source"
    else
        echo "not measured: Debian now packages $found, which this script does not run yet (an echo server on it is" \
            "still to be written)"
    fi
}
UWS_VERDICT=""
if wants uwebsockets; then
    UWS_VERDICT=$(uws_verdict)
    log "uWebSockets: $UWS_VERDICT"
fi

# ---- build -----------------------------------------------------------------------------------------------------
log "building http-bench-server, motion-server and ws-bench-client (release)"
for product in http-bench-server motion-server ws-bench-client; do
    swift build -c release --product "$product" >&2 || die "swift build $product failed"
done
BENCH_BIN=.build/release/http-bench-server
MOTION_BIN=.build/release/motion-server
CLIENT=.build/release/ws-bench-client
[[ -x $BENCH_BIN && -x $MOTION_BIN && -x $CLIENT ]] || die "binaries missing after build"

# ---- scratch ---------------------------------------------------------------------------------------------------
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW" "$TMP/public" # aiohttp_server.py wants a static directory; `/` is all it is asked for here
HZ=$(getconf CLK_TCK)
NOTES=()

# ---- contenders ------------------------------------------------------------------------------------------------
CONTENDERS=(http-bench-server motion-server)
for peer in $PEERS; do [[ $peer == uwebsockets ]] || CONTENDERS+=("$peer"); done

# takes_part NAME PHASE : whether the contender is measured in that phase (http, rate, idle).
takes_part() {
    case $1:$2 in
        nginx:rate | nginx:idle | websockets:http) return 1 ;;
        *) return 0 ;;
    esac
}

declare -A HTTP_PATH=([http-bench-server]=/ [motion-server]=/healthz [nginx]=/ [aiohttp]=/)
declare -A HTTP_BODY=([http-bench-server]=hello [motion-server]=ok [nginx]=hello [aiohttp]=hello)

SERVER_PIDS=()    # the processes whose CPU counts: the server's, nginx's master and worker
NGINX_WORKERS=""
DATABASES=0

# start_nginx : nginx from $TMP/nginx on a free port, in the foreground of its own background job; SERVER_PID is
# its master (what stop_server signals), SERVER_URL as start_server sets it.
start_nginx() {
    local dir=$TMP/nginx port i
    rm -rf "$dir"
    mkdir -p "$dir"
    port=$(free_port)
    sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" bench/peers/nginx.conf.in >"$dir/nginx.conf"
    SERVER_ERR=$dir/error.log
    "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' >"$dir/out" 2>&1 &
    SERVER_PID=$!
    for ((i = 0; i < 100; i++)); do
        [[ $(curl -s "http://127.0.0.1:$port/" 2>/dev/null || true) == hello ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || die "nginx exited before it was ready: $(cat "$dir/out" "$dir/error.log" 2>/dev/null)"
        sleep 0.1
    done
    ((i < 100)) || die "nginx did not answer on port $port within 10 s: $(cat "$dir/error.log" 2>/dev/null)"
    SERVER_URL=http://127.0.0.1:$port
    NGINX_WORKERS=$(pgrep -P "$SERVER_PID" | xargs)
    log "nginx (master $SERVER_PID, worker $NGINX_WORKERS) listening on $SERVER_URL"
}

# start NAME PHASE : a fresh server for one measurement; URL is then what the phase drives (http://…/PATH or
# ws://…/v1/echo), SERVER_PIDS the processes to charge its CPU to.
start() {
    local name=$1 phase=$2 port echo=()
    case $name in
        http-bench-server)
            start_server "$name" "$BENCH_BIN" --port 0 --loops 1 --max-connections $((IDLE_CONNECTIONS + 1000)) \
                --log-level warning
            ;;
        motion-server)
            [[ $phase == http ]] || echo=(--ws-echo)
            DATABASES=$((DATABASES + 1))
            # Every client here connects from 127.0.0.1: no per-address bound.
            start_server "$name" "$MOTION_BIN" --host 127.0.0.1 --port 0 --threads 1 --log-level warning \
                --max-connections-per-address 0 --database "$TMP/motion$DATABASES.sqlite" --public Public "${echo[@]}"
            ;;
        nginx) start_nginx ;;
        aiohttp)
            if [[ $phase == http ]]; then
                start_server "$name" "$PYTHON" bench/peers/aiohttp_server.py --port 0 --public "$TMP/public"
            else
                start_server "$name" "$PYTHON" bench/peers/aiohttp_ws_server.py --port 0
            fi
            ;;
        websockets) start_server "$name" "$PYTHON" bench/peers/websockets_server.py --port 0 ;;
    esac
    port=${SERVER_URL##*:}
    SERVER_PIDS=("$SERVER_PID" $NGINX_WORKERS)
    if [[ $phase == http ]]; then
        URL=http://127.0.0.1:$port${HTTP_PATH[$name]}
        local body
        body=$(curl -s "$URL") || die "curl $URL failed"
        [[ $body == "${HTTP_BODY[$name]}" ]] || die "$name answered \`$body\` on ${HTTP_PATH[$name]}, not ${HTTP_BODY[$name]}"
    else
        URL=ws://127.0.0.1:$port/v1/echo
    fi
}

# stop : stop_server; an nginx master that had to be killed leaves its worker behind, which goes too.
stop() {
    stop_server
    local pid
    if [[ $SERVER_STATUS == 137 ]]; then
        for pid in $NGINX_WORKERS; do
            [[ $(cat "/proc/$pid/comm" 2>/dev/null) == nginx ]] && kill -KILL "$pid" 2>/dev/null || true
        done
    fi
    NGINX_WORKERS=""
    SERVER_PIDS=()
}
bench_before_cleanup() { stop; }

# Figures per contender, the rounds' values separated by spaces.
declare -A H_RPS H_P99 H_CPU W_P99 W_P999 W_MAX W_CPU W_LOWER I_KIB

measure_http() {
    local name=$1 round=$2 label="$1 HTTP round $2" before after
    start "$name" http
    wrk_warmup "$label" "$URL"
    before=$(proc_ticks "${SERVER_PIDS[@]}")
    wrk_measure "$label" "$RAW/$name.http.round$round.txt" "$URL"
    after=$(proc_ticks "${SERVER_PIDS[@]}")
    stop
    H_RPS[$name]+="$WRK_R "
    H_P99[$name]+="$(to_ms "$WRK_L") "
    H_CPU[$name]+="$(awk -v t=$((after - before)) -v n="$WRK_N" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }') "
}

measure_rate() {
    local name=$1 round=$2 f=$RAW/$1.rate.round$2.json key
    start "$name" rate
    ws_rate "$name round $round" "$URL" "$f"
    stop
    for key in p99_ms p999_ms max_ms server_cpu_percent; do
        [[ $(jget "$f" $key) != null ]] || die "$name round $round: the client reported no $key: $(tail -1 "$f")"
    done
    W_P99[$name]+="$(jget "$f" p99_ms) "
    W_P999[$name]+="$(jget "$f" p999_ms) "
    W_MAX[$name]+="$(jget "$f" max_ms) "
    W_CPU[$name]+="$(jget "$f" server_cpu_percent) "
    [[ $(jget "$f" unanswered) == 0 ]] || W_LOWER[$name]="≥ "
    # CPU % covers the sending window: a server that fell behind works on after it, so its CPU per message is more.
    if awk -v r="$(jget "$f" receive_rate_during_run)" -v s="$(jget "$f" send_rate)" 'BEGIN { exit !(r < 0.95 * s) }'; then
        NOTES+=("$name round $round rate: fell behind, echoes arrived at $(fmt0 "$(jget "$f" receive_rate_during_run)") msg/s against $(fmt0 "$(jget "$f" send_rate)") sent; its CPU % covers the sending window only, so it understates its CPU per message")
    fi
}

measure_idle() {
    local name=$1 round=$2
    start "$name" idle
    ws_idle "$name round $round" "$URL" "$RAW/$name.idle.round$round.json"
    stop
    I_KIB[$name]+="$IDLE_PER "
}

# round_order ROUND NAMES... : the names as round ROUND runs them: starting ROUND-1 places on, backwards in even
# rounds (round 1: A B C D; 2: A D C B; 3: C D A B; 4: C B A D).
round_order() {
    local round=$1 i out=()
    shift
    local names=("$@") n=$#
    for ((i = 0; i < n; i++)); do out+=("${names[(i + round - 1) % n]}"); done
    if ((round % 2 == 0)); then
        for ((i = n - 1; i >= 0; i--)); do printf '%s ' "${out[i]}"; done
    else
        printf '%s ' "${out[@]}"
    fi
}

# ---- measure ---------------------------------------------------------------------------------------------------
wait_quiet "$MAX_LOAD" 1800
MACHINE=$(machine_line)
log "contenders: ${CONTENDERS[*]}; $RUNS round(s)"
for ((round = 1; round <= RUNS; round++)); do
    read -r -a order <<<"$(round_order "$round" "${CONTENDERS[@]}")"
    log "== round $round of $RUNS: ${order[*]}"
    for phase in http rate idle; do
        for name in "${order[@]}"; do
            if takes_part "$name" $phase; then "measure_$phase" "$name" "$round"; fi
        done
    done
done
LOAD_AFTER=$(cut -d' ' -f1 /proc/loadavg)

# ---- report ----------------------------------------------------------------------------------------------------
# med DECIMALS VALUES : the median, or — when the contender took no part.
med() { [[ -n ${2// /} ]] && median_to "$1" $2 || echo "—"; }
# ms_cell VALUES LOWER : the median in ms (ms formats it), or —.
ms_cell() { [[ -n ${1// /} ]] && echo "$2$(ms "$(median_to 3 $1)")" || echo "—"; }
# with_unit VALUE UNIT : "VALUE UNIT", or — alone.
with_unit() { [[ $1 == — ]] && echo "—" || echo "$1 $2"; }
# join SEPARATOR WORDS... : the words with the separator between them.
join() {
    local separator=$1 joined="" word
    shift
    for word in "$@"; do joined+=${joined:+$separator}$word; done
    echo "$joined"
}

NGINX_VERSION=""
if [[ -n $NGINX ]]; then
    NGINX_VERSION=$("$NGINX" -v 2>&1 | sed -n 's|.*nginx/||p')
    debian=$(dpkg-query -W -f='${Version}' nginx 2>/dev/null || true)
    [[ -n $debian ]] && NGINX_VERSION+=" (Debian $debian)"
fi
label() {
    case $1 in
        http-bench-server) echo "**ours**: http-bench-server, 1 loop" ;;
        motion-server) echo "**ours**: motion-server, 1 thread" ;;
        nginx) echo "nginx $NGINX_VERSION, 1 worker" ;;
        aiohttp) echo "aiohttp $(python_version aiohttp)" ;;
        websockets) echo "websockets $(python_version websockets)" ;;
    esac
}

versions="$( (wrk --version 2>&1 || true) | head -1 | cut -d' ' -f1-2)" # (wrk --version exits 1)
if [[ -n $NGINX ]]; then versions+=", nginx $NGINX_VERSION"; fi
versions+=", Python $("$PYTHON" -c 'import platform; print(platform.python_version())')"
for module in aiohttp websockets; do
    if wants "$module"; then versions+=", $module $(python_version "$module")"; fi
done

echo "### Our servers beside independent peers ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE (before the runs); $LOAD_AFTER after them. Linux $(uname -r)."
echo
echo "Versions (Swift above): $versions."
echo
echo "Command: \`DURATION=$DURATION RUNS=$RUNS WARMUP=$WARMUP CONNECTIONS=$CONNECTIONS RATE_CONNECTIONS=$RATE_CONNECTIONS" \
    "RATE=$RATE RATE_DURATION=$RATE_DURATION IDLE_CONNECTIONS=$IDLE_CONNECTIONS PEERS=\"$PEERS\" bench/peers.sh\`:" \
    "$RUNS round(s), each running every contender in turn, in another order each round (round r starts r-1 places" \
    "on, even rounds backwards), a fresh server process for every measurement:"
echo
echo '```'
echo "swift build -c release --product http-bench-server   # likewise motion-server and ws-bench-client"
echo "ulimit -n $NOFILE"
echo ".build/release/http-bench-server --port 0 --loops 1 --max-connections $((IDLE_CONNECTIONS + 1000)) --log-level warning"
echo ".build/release/motion-server --host 127.0.0.1 --port 0 --threads 1 --log-level warning --max-connections-per-address 0 --database \$TMP/db.sqlite --public Public   # + --ws-echo for the WebSocket runs"
[[ -n $NGINX ]] && echo "nginx -p \$DIR -c \$DIR/nginx.conf -e \$DIR/error.log -g 'daemon off;'   # bench/peers/nginx.conf.in: 1 worker, access_log off, location = / { return 200 \"hello\"; }"
wants aiohttp && echo "python3 bench/peers/aiohttp_server.py --port 0 --public \$EMPTY_DIR; python3 bench/peers/aiohttp_ws_server.py --port 0"
wants websockets && echo "python3 bench/peers/websockets_server.py --port 0"
echo "wrk -t$THREADS -c$CONNECTIONS -d$WARMUP \$URL   # warm-up, not counted"
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency \$URL   # server CPU: utime+stime of its processes over this run"
echo "ws-bench-client rate --url \$WS_URL --connections $RATE_CONNECTIONS --rate $RATE --seconds $RATE_DURATION --size $SIZE --ramp-seconds $RAMP --drain-seconds $DRAIN --loops $CLIENT_LOOPS --tick-us $TICK_US --server-pid \$PID"
echo "ws-bench-client idle --url \$WS_URL --connections $IDLE_CONNECTIONS --hold-seconds $HOLD --loops $CLIENT_LOOPS   # VmRSS before, and 1 s after \"ready\""
echo '```'
echo
echo "HTTP is a tiny keep-alive GET: \`/\` → \"hello\" (text/plain), on motion-server \`/healthz\` → \"ok\" (through" \
    "its router and middleware). WebSocket messages are $SIZE-byte JSON text echoed at \`/v1/echo\`, no" \
    "permessage-deflate offered; latency is the echo's arrival minus the message's *intended* send time. CPU per" \
    "request is the server's user+system time over the measured wrk run ÷ its requests (nginx: master and worker);" \
    "WebSocket CPU is % of one core over the $RATE_DURATION s sending window. Idle memory is VmRSS with" \
    "$IDLE_CONNECTIONS open connections minus before, on a fresh process; KiB = 1024 bytes. Every figure is the" \
    "median of the $RUNS round(s); — where a contender does not take part; ≥ where echoes were still unanswered" \
    "at the end (lower bounds). Client and server share the $(nproc) cores."
echo
echo "| contender | HTTP req/s | HTTP p99 | HTTP µs CPU/request | WS p99 | WS p99.9 | WS max | WS server CPU | idle KiB/connection |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for name in "${CONTENDERS[@]}"; do
    lower=${W_LOWER[$name]:-}
    echo "| $(label "$name") | $(med 0 "${H_RPS[$name]:-}") | $(with_unit "$(med 2 "${H_P99[$name]:-}")" ms) |" \
        "$(med 2 "${H_CPU[$name]:-}") | $(ms_cell "${W_P99[$name]:-}" "$lower") | $(ms_cell "${W_P999[$name]:-}" "$lower") |" \
        "$(ms_cell "${W_MAX[$name]:-}" "$lower") | $(with_unit "$(med 1 "${W_CPU[$name]:-}")" %) | $(med 2 "${I_KIB[$name]:-}") |"
done
echo
# The fixed-rate runs send every server the same messages, so their CPU ratio is the ratio of CPU per message.
PEER_NAMES=()
for name in "${CONTENDERS[@]}"; do
    if [[ $name != http-bench-server && $name != motion-server ]]; then PEER_NAMES+=("$name"); fi
done
if ((${#PEER_NAMES[@]})); then
    echo "Server CPU, ours ÷ peer (below 1: ours spends less):"
    echo
    for ours in http-bench-server motion-server; do
        http=() ws=() parts=()
        for peer in "${PEER_NAMES[@]}"; do
            if [[ -n ${H_CPU[$peer]:-} ]]; then
                http+=("$(ratio "$(median_to 4 ${H_CPU[$ours]})" "$(median_to 4 ${H_CPU[$peer]})")× $peer")
            fi
            if [[ -n ${W_CPU[$peer]:-} ]]; then
                ws+=("$(ratio "$(median_to 4 ${W_CPU[$ours]})" "$(median_to 4 ${W_CPU[$peer]})")× $peer")
            fi
        done
        if ((${#http[@]})); then parts+=("per HTTP request $(join ', ' "${http[@]}")"); fi
        if ((${#ws[@]})); then parts+=("per WebSocket message at the fixed rate $(join ', ' "${ws[@]}")"); fi
        echo "- $ours: $(join '; ' "${parts[@]}")"
    done
    echo
fi
if [[ -n $UWS_VERDICT ]]; then
    echo "uWebSockets: $UWS_VERDICT."
    echo
fi
echo "Each round's figures, round 1 first (HTTP req/s and µs CPU per request, WS p99 ms and server CPU %, idle KiB per"
echo "connection):"
echo
for name in "${CONTENDERS[@]}"; do
    parts=()
    if [[ -n ${H_RPS[$name]:-} ]]; then
        parts+=("HTTP $(join ', ' $(for v in ${H_RPS[$name]}; do fmt0 "$v"; echo; done)) req/s, $(join ', ' ${H_CPU[$name]}) µs")
    fi
    if [[ -n ${W_P99[$name]:-} ]]; then
        parts+=("WS $(join ', ' $(for v in ${W_P99[$name]}; do fmt2 "$v"; echo; done)) ms, $(join ', ' ${W_CPU[$name]}) %")
    fi
    if [[ -n ${I_KIB[$name]:-} ]]; then parts+=("idle $(join ', ' ${I_KIB[$name]}) KiB"); fi
    echo "- $name: $(join '; ' "${parts[@]}")"
done
report_notes "Reported by wrk and the client:" "wrk and the client reported no errors, non-2xx answers or unanswered echoes."
