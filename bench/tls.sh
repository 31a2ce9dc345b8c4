#!/usr/bin/env bash
# TLS benchmark, side by side in one go with Debian's nginx serving the same tiny response ("hello") with the same
# ECDSA P-256 certificate (blackbox/tls/make-certs.sh). Servers are rotated round by round, a fresh process per
# measurement; the release http-bench-server runs with LOOPS loops and nginx with as many workers.
#   keep-alive  wrk -tTHREADS -cCONNECTIONS -dDURATION on `/` over HTTPS: ours, nginx, and ours over plain HTTP
#               (the TLS/plain ratio); req/s and p99, median of RUNS;
#   resumed     the same with `Connection: close`: every request a new connection, which wrk resumes (tickets);
#   handshakes  full handshakes/s: HANDSHAKE_CLIENTS parallel `openssl s_time -new` for HANDSHAKE_SECONDS each (no
#               resumption), median of RUNS;
#   idle        IDLE_CONNECTIONS idle keep-alive connections (handshake and one request done, then silent) held by
#               bench/tls/idle_clients.py: server RSS after minus before, per connection; ours over TLS and plain,
#               nginx over TLS (its workers' RSS summed).
# Prints a Markdown block for bench/RESULTS.md on stdout; progress and build output go to stderr.
#
# Usage: bench/tls.sh
# Environment (defaults): DURATION=10s RUNS=3 CONNECTIONS=64 THREADS=2 WARMUP=2s LOOPS=2 HANDSHAKE_CLIENTS=4
#   HANDSHAKE_SECONDS=10 IDLE_CONNECTIONS=2000 MAX_LOAD=1.5 (empty: no wait) RAW_DIR=<dir>
# Smoke run: DURATION=2s RUNS=1 WARMUP=1s HANDSHAKE_SECONDS=2 IDLE_CONNECTIONS=200 MAX_LOAD= bench/tls.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
RUNS=${RUNS:-3}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-2s}
LOOPS=${LOOPS:-2}
HANDSHAKE_CLIENTS=${HANDSHAKE_CLIENTS:-4}
HANDSHAKE_SECONDS=${HANDSHAKE_SECONDS:-10}
IDLE_CONNECTIONS=${IDLE_CONNECTIONS:-2000}
MAX_LOAD=${MAX_LOAD-1.5}

BENCH_NAME=tls.sh
source bench/lib.sh

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
for tool in wrk nginx openssl; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install wrk nginx openssl; \`make deps\` has the last two)"
done

log "building http-bench-server (release)"
swift build -c release --product http-bench-server >&2 || die "swift build failed"
BIN=.build/release/http-bench-server
CERTS=Tests/HTTPServerTests/Fixtures/tls
CERT=$PWD/$CERTS/ecdsa.pem
KEY=$PWD/$CERTS/ecdsa.key
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW"
NOTES=()

# ---- servers ---------------------------------------------------------------------------------------------------
NGINX_PID=""

# start NAME : ours-tls, ours-plain or nginx; sets PORT and SERVER_PID (nginx: the master's).
start() {
    case $1 in
    ours-tls)
        start_server ours-tls "$BIN" --port 0 --loops "$LOOPS" --log-level warning --tls-cert "$CERT" --tls-key "$KEY"
        PORT=${SERVER_URL##*:}
        ;;
    ours-plain)
        start_server ours-plain "$BIN" --port 0 --loops "$LOOPS" --log-level warning
        PORT=${SERVER_URL##*:}
        ;;
    nginx)
        PORT=$(free_port)
        mkdir -p "$TMP/nginx"
        sed -e "s|@DIR@|$TMP/nginx|g" -e "s|@PORT@|$PORT|g" -e "s|@CERT@|$CERT|g" -e "s|@KEY@|$KEY|g" \
            -e "s|@WORKERS@|$LOOPS|g" bench/tls/nginx.conf.in >"$TMP/nginx/nginx.conf"
        nginx -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" >"$TMP/nginx/out" 2>&1 &
        NGINX_PID=$!
        SERVER_PID=$NGINX_PID
        local i
        for ((i = 0; i < 100; i++)); do
            curl -sk "https://127.0.0.1:$PORT/" >/dev/null 2>&1 && break
            sleep 0.1
        done
        curl -sk "https://127.0.0.1:$PORT/" | grep -q '^hello$' || die "nginx did not start: $(cat "$TMP/nginx/out" "$TMP/nginx/nginx-error.log" 2>/dev/null)"
        log "nginx (master $NGINX_PID, $LOOPS workers) on https://127.0.0.1:$PORT"
        ;;
    esac
}

stop() {
    if [[ -n $NGINX_PID ]]; then
        kill -QUIT "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
        NGINX_PID=""
    else
        stop_server
    fi
}
bench_before_cleanup() { [[ -z $NGINX_PID ]] || kill "$NGINX_PID" 2>/dev/null || true; }

url() { [[ $1 == ours-plain ]] && echo "http://127.0.0.1:$PORT/" || echo "https://127.0.0.1:$PORT/"; }

# rss NAME : the server's resident memory in kB (nginx: its workers').
rss() {
    if [[ $1 == nginx ]]; then
        local total=0 pid
        for pid in $(pgrep -P "$NGINX_PID"); do total=$((total + $(proc_kb "$pid" VmRSS))); done
        echo "$total"
    else
        proc_kb "$SERVER_PID" VmRSS
    fi
}

# cpu_ticks NAME : user+system clock ticks of the server's processes so far.
cpu_ticks() {
    local pids=$SERVER_PID
    [[ $1 == nginx ]] && pids="$NGINX_PID $(pgrep -P "$NGINX_PID" | xargs)"
    proc_ticks $pids
}

# ---- measurements ----------------------------------------------------------------------------------------------
declare -A KA_RPS KA_P99 KA_CPU RES_RPS HS IDLE
ka_list=() res_list=() hs_list=()

# keepalive NAME ROUND : one wrk run (after a warm-up in round 1); req/s, p99, server CPU µs per request.
keepalive() {
    local name=$1 f=$RAW/$1.keepalive.$2.txt before after r l
    [[ $2 == 1 ]] && wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$(url "$name")" >/dev/null 2>&1
    before=$(cpu_ticks "$name")
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$(url "$name")" >"$f" 2>&1 || die "wrk failed: $(cat "$f")"
    after=$(cpu_ticks "$name")
    r=$(awk '/^Requests\/sec:/ { print $2 }' "$f")
    l=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$f")")
    local total
    total=$(awk '/requests in/ { print $1 }' "$f")
    KA_RPS[$name]+="$r "
    KA_P99[$name]+="$l "
    KA_CPU[$name]+="$(awk -v t=$((after - before)) -v n="$total" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }') "
    grep -q 'Non-2xx\|Socket errors' "$f" && NOTES+=("$name keep-alive round $2: $(grep -h 'Non-2xx\|Socket errors' "$f" | sed 's/^ *//' | xargs)")
    log "$name keep-alive round $2: $r req/s, p99 $l ms"
}

# resumed NAME ROUND : wrk with Connection: close (a new, resumed, TLS connection per request).
resumed() {
    local name=$1 f=$RAW/$1.resumed.$2.txt r
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -H "Connection: close" "$(url "$name")" >"$f" 2>&1 ||
        die "wrk failed: $(cat "$f")"
    r=$(awk '/^Requests\/sec:/ { print $2 }' "$f")
    RES_RPS[$name]+="$r "
    log "$name resumed handshakes round $2: $r conn/s"
}

# handshakes NAME ROUND : HANDSHAKE_CLIENTS parallel `openssl s_time -new`; the sum of their connections/s.
handshakes() {
    local name=$1 i sum clients=()
    for ((i = 1; i <= HANDSHAKE_CLIENTS; i++)); do
        openssl s_time -connect "127.0.0.1:$PORT" -new -time "$HANDSHAKE_SECONDS" </dev/null \
            >"$RAW/$name.s_time.$2.$i.txt" 2>&1 &
        clients+=($!)
    done
    wait "${clients[@]}"
    # "N connections in T real seconds" per client (T whole seconds: keep HANDSHAKE_SECONDS ≥ 10).
    sum=$(cat "$RAW/$name".s_time."$2".*.txt | awk '/connections in [0-9]+ real seconds/ { r += $1 / $4 } END {
        printf "%.0f", r }')
    [[ $sum != 0 ]] || die "openssl s_time gave no figure: $(cat "$RAW/$name".s_time."$2".1.txt)"
    HS[$name]+="$sum "
    log "$name full handshakes round $2: $sum /s"
}

# idle NAME : IDLE_CONNECTIONS idle keep-alive connections on a fresh server; KiB per connection.
idle() {
    local name=$1 f=$RAW/$1.idle.txt before after tls=--tls ready="" i
    [[ $name == ours-plain ]] && tls=""
    sleep 1
    before=$(rss "$name")
    "$PYTHON" bench/tls/idle_clients.py --port "$PORT" --connections "$IDLE_CONNECTIONS" --hold 4 $tls >"$f" 2>&1 &
    local client=$!
    for ((i = 0; i < 1800; i++)); do
        ready=$(awk '$1 == "ready" { print $2 }' "$f")
        [[ -n $ready ]] && break
        kill -0 "$client" 2>/dev/null || die "idle client failed: $(cat "$f")"
        sleep 0.1
    done
    sleep 1
    after=$(rss "$name")
    wait "$client" || die "idle client failed: $(cat "$f")"
    IDLE[$name]=$(awk -v a="$after" -v b="$before" -v n="$ready" 'BEGIN { printf "%.1f", (a - b) / n }')
    log "$name idle: $ready connections, RSS $before → $after kB: ${IDLE[$name]} KiB each"
}

# ---- run -------------------------------------------------------------------------------------------------------
wait_quiet "$MAX_LOAD" 1800
MACHINE=$(machine_line)
for ((round = 1; round <= RUNS; round++)); do
    for name in ours-tls nginx ours-plain; do
        start "$name"
        keepalive "$name" "$round"
        if [[ $name != ours-plain ]]; then
            resumed "$name" "$round"
            handshakes "$name" "$round"
        fi
        stop
    done
done
for name in ours-tls nginx ours-plain; do
    start "$name"
    idle "$name"
    stop
done
LOAD_AFTER=$(cut -d' ' -f1 /proc/loadavg)

# ---- report ----------------------------------------------------------------------------------------------------
runs() { local v; v=$(printf '%.0f, ' $1); echo "${v%, }"; }
echo "### TLS beside nginx ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE (before); $LOAD_AFTER after. $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)," \
    "$(nginx -v 2>&1 | cut -d' ' -f3), $(openssl version | cut -d' ' -f1-2)."
echo
echo "Command: \`DURATION=$DURATION RUNS=$RUNS CONNECTIONS=$CONNECTIONS THREADS=$THREADS LOOPS=$LOOPS" \
    "HANDSHAKE_CLIENTS=$HANDSHAKE_CLIENTS HANDSHAKE_SECONDS=$HANDSHAKE_SECONDS IDLE_CONNECTIONS=$IDLE_CONNECTIONS bench/tls.sh\`:" \
    "release \`http-bench-server --loops $LOOPS --tls-cert ecdsa.pem --tls-key ecdsa.key\` and nginx with $LOOPS workers," \
    "\`return 200 \"hello\"\`, the same ECDSA P-256 certificate, session cache and tickets (bench/tls/nginx.conf.in);" \
    "servers rotated each round, a fresh process each time. Client and servers share the $(nproc) cores."
echo
echo "| | ours, HTTPS | nginx, HTTPS | ours, plain HTTP |"
echo "| --- | --- | --- | --- |"
echo "| keep-alive \`/\`, req/s, median (runs) | $(median_to 0 ${KA_RPS[ours-tls]}) ($(runs "${KA_RPS[ours-tls]}")) | $(median_to 0 ${KA_RPS[nginx]}) ($(runs "${KA_RPS[nginx]}")) | $(median_to 0 ${KA_RPS[ours-plain]}) ($(runs "${KA_RPS[ours-plain]}")) |"
echo "| keep-alive p99, ms, median | $(median_to 2 ${KA_P99[ours-tls]}) | $(median_to 2 ${KA_P99[nginx]}) | $(median_to 2 ${KA_P99[ours-plain]}) |"
echo "| server CPU per request, µs, median | $(median ${KA_CPU[ours-tls]}) | $(median ${KA_CPU[nginx]}) | $(median ${KA_CPU[ours-plain]}) |"
echo "| resumed handshake + request (\`Connection: close\`), per s | $(median_to 0 ${RES_RPS[ours-tls]}) ($(runs "${RES_RPS[ours-tls]}")) | $(median_to 0 ${RES_RPS[nginx]}) ($(runs "${RES_RPS[nginx]}")) | |"
echo "| full handshakes per s (ECDSA P-256, $HANDSHAKE_CLIENTS × s_time -new) | $(median_to 0 ${HS[ours-tls]}) ($(runs "${HS[ours-tls]}")) | $(median_to 0 ${HS[nginx]}) ($(runs "${HS[nginx]}")) | |"
echo "| memory per idle keep-alive connection, KiB ($IDLE_CONNECTIONS) | ${IDLE[ours-tls]} | ${IDLE[nginx]} | ${IDLE[ours-plain]} |"
echo
echo "Ratios: ours/nginx keep-alive $(awk -v a="$(median_to 0 ${KA_RPS[ours-tls]})" -v b="$(median_to 0 ${KA_RPS[nginx]})" 'BEGIN { printf "%.2f", a / b }');" \
    "ours TLS/plain keep-alive $(awk -v a="$(median_to 0 ${KA_RPS[ours-tls]})" -v b="$(median_to 0 ${KA_RPS[ours-plain]})" 'BEGIN { printf "%.2f", a / b }');" \
    "ours/nginx full handshakes $(awk -v a="$(median_to 0 ${HS[ours-tls]})" -v b="$(median_to 0 ${HS[nginx]})" 'BEGIN { printf "%.2f", a / b }')."
report_notes "Notes:" "No errors or non-2xx answers in any run."
