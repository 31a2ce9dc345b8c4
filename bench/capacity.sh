#!/usr/bin/env bash
# Live-session capacity: how many sessions at RATE poses/s one release motion-server holds with p99 pose→snapshot
# latency ≤ LIMIT ms, measured by motion-load --find-capacity on the same machine (the load generator shares the
# cores, as the issue asks). Levels start at START sessions and grow by STEP, each measured STEP_SECONDS after its
# sessions have started; a level passes when p99 ≤ LIMIT, nothing failed and the frames were sent on time.
# Each run uses a fresh server and database. Reports the median capacity of RUNS runs, the levels of the median run
# (frames/s, latency, server and client CPU, server RSS per session), as a Markdown block on stdout for
# bench/RESULTS.md; progress and build output go to stderr.
#
# Usage: bench/capacity.sh
# Environment (defaults): RUNS=3 RATE=30 LIMIT=20 START=500 STEP=250 STEP_SECONDS=10 MAX_SESSIONS=5000
#   RAMP_RATE=500 CLIENT_LOOPS=1 SERVER_THREADS=(server default) CLIENT_NICE=0 MAX_LOAD=1.5 LOAD_WAIT=600
#   TICK_US=1000 POLL=1
#   TICK_US=US     motion-load sends what is due at most every US microseconds (counted in latency)
#   POLL=1         motion-load's loops poll every tick instead of sleeping in epoll (--poll): answers are read up
#                  to a tick late (overstating latency), and the server's sends never wake the tool, which then
#                  leaves the server more of the machine it shares (POLL=0 TICK_US=100: the tool blocks in epoll)
#   CLIENT_NICE=N  runs motion-load at that niceness (the server keeps priority over the tool measuring it;
#                  the tool's own delays still count in the latency, measured from each pose's intended send time)
#   TLS=1          the server over TLS (wss://, the test certificate Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem,
#                  verified by motion-load)
#   RAW_DIR=<dir>  keeps every raw motion-load report there
#   DROP_EVERY=S   a share of the sessions (DROP_SHARE, default 0.1) abort their connection every S seconds and
#                  resume it (motion-load --drop-every, docs/protocol.md §3.1)
#   MOTION=1       the phone's samples too, 60 per second, a `motion` message every MOTION_EVERY poses
#                  (default 3: every 100 ms, as the Live page sends them; motion-load --motion, docs/protocol.md §3.3)
#   BINARY=1       poses as binary frames (motion-load --binary, docs/protocol.md §3.2)
#   SERVER_BIN=<path>  measures that motion-server binary (an A/B against an older build) instead of building one
# Smoke run: RUNS=1 START=50 STEP=50 MAX_SESSIONS=100 STEP_SECONDS=2 MAX_LOAD= bench/capacity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=capacity.sh
source bench/lib.sh

RUNS=${RUNS:-3}
RATE=${RATE:-30}
LIMIT=${LIMIT:-20}
START=${START:-500}
STEP=${STEP:-250}
STEP_SECONDS=${STEP_SECONDS:-10}
MAX_SESSIONS=${MAX_SESSIONS:-5000}
RAMP_RATE=${RAMP_RATE:-500}
CLIENT_LOOPS=${CLIENT_LOOPS:-1}
SERVER_THREADS=${SERVER_THREADS:-}
CLIENT_NICE=${CLIENT_NICE:-0}
MAX_LOAD=${MAX_LOAD-1.5}
LOAD_WAIT=${LOAD_WAIT:-600}
TICK_US=${TICK_US:-1000}
POLL=${POLL:-1}
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW"

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
((2 * MAX_SESSIONS + 256 <= $(ulimit -n))) || die "ulimit -n $(ulimit -n) is too low for $MAX_SESSIONS sessions"

if [[ -n ${SERVER_BIN:-} ]]; then
    SERVER=$SERVER_BIN
    [[ -x $SERVER ]] || die "SERVER_BIN $SERVER is not an executable"
    log "server $SERVER (SERVER_BIN); building motion-load (release)"
else
    log "building motion-server and motion-load (release)"
    swift build -c release --product motion-server >&2 || die "swift build motion-server failed"
    SERVER=.build/release/motion-server
fi
swift build -c release --product motion-load >&2 || die "swift build motion-load failed"
LOAD=.build/release/motion-load

wait_quiet "$MAX_LOAD" "$LOAD_WAIT"
MACHINE=$(machine_line)
SERVER_ARGS=(--host 127.0.0.1 --port 0 --log-level warning)
TLS=${TLS:-0}
SCHEME=ws
if [[ $TLS == 1 ]]; then
    SERVER_ARGS+=(--tls-cert "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem"
        --tls-key "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.key")
    SCHEME=wss
fi
[[ -n $SERVER_THREADS ]] && SERVER_ARGS+=(--threads "$SERVER_THREADS")
LOAD_ARGS=(--find-capacity --rate "$RATE" --p99-limit-ms "$LIMIT" --start-sessions "$START" --step "$STEP"
    --step-seconds "$STEP_SECONDS" --max-sessions "$MAX_SESSIONS" --ramp-rate "$RAMP_RATE" --loops "$CLIENT_LOOPS"
    --tick-us "$TICK_US")
[[ $POLL == 1 ]] && LOAD_ARGS+=(--poll)
[[ -n ${DROP_EVERY:-} ]] && LOAD_ARGS+=(--drop-every "$DROP_EVERY" --drop-share "${DROP_SHARE:-0.1}")
[[ ${MOTION:-0} == 1 ]] && LOAD_ARGS+=(--motion --motion-every "${MOTION_EVERY:-3}")
[[ ${BINARY:-0} == 1 ]] && LOAD_ARGS+=(--binary)
[[ $TLS == 1 ]] && LOAD_ARGS+=(--ca "$PWD/Tests/HTTPServerTests/Fixtures/tls/ecdsa.pem")

CAPACITIES=()
for ((run = 1; run <= RUNS; run++)); do
    start_server motion-server "$SERVER" "${SERVER_ARGS[@]}" --database "$TMP/run$run.sqlite"
    url="$SCHEME://${SERVER_URL#*://}/v1/stream"
    log "run $run: motion-load ${LOAD_ARGS[*]}"
    find_capacity_run "$run" "the server" nice -n "$CLIENT_NICE" "$LOAD" --url "$url" "${LOAD_ARGS[@]}" \
        --server-pid "$SERVER_PID"
done

MEDIAN=$(median "${CAPACITIES[@]}")
# The run whose capacity is the median (the first such) gives the level table.
MEDIAN_RUN=1
for ((run = 1; run <= RUNS; run++)); do
    if [[ $(median "${CAPACITIES[$((run - 1))]}") == "$MEDIAN" ]]; then
        MEDIAN_RUN=$run
        break
    fi
done

echo "### Live-session capacity ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE (at the start)."
echo
echo "Command: \`bench/capacity.sh\` (RUNS=$RUNS): per run a fresh release \`motion-server ${SERVER_ARGS[*]}\`"
CLIENT_NOTE=""
[[ $CLIENT_NICE != 0 ]] && CLIENT_NOTE=" at \`nice -n $CLIENT_NICE\`"
echo "(embedded SQLite) and \`motion-load ${LOAD_ARGS[*]} --server-pid PID\`$CLIENT_NOTE on the same machine."
echo
echo "Capacity at $RATE poses/s with p99 ≤ $LIMIT ms: **$(printf '%.0f' "$MEDIAN") sessions** (median; runs:" \
    "${CAPACITIES[*]})."
echo
echo "Levels of run $MEDIAN_RUN:"
echo
"$PYTHON" - "$RAW/run$MEDIAN_RUN.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("| sessions | frames/s | p50 ms | p99 ms | p99.9 ms | max ms | server CPU % | client CPU % | server RSS MiB "
      "| KiB/session | pass |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
def value(v, digits=1):
    return "n/a" if v is None else f"{v:.{digits}f}"
for level in report["levels"]:
    latency = level["latency_ms"]
    print(f"| {level['sessions']} | {level['frames_per_second']:.0f} | {latency['p50']:.2f} | {latency['p99']:.2f} "
          f"| {latency['p999']:.2f} | {latency['max']:.2f} | {value(level['server_cpu_percent'], 0)} "
          f"| {value(level['client_cpu_percent'], 0)} | {value(level['server_rss_mib'])} "
          f"| {value(level['server_rss_kib_per_session'])} | {'yes' if level['passed'] else 'no'} |")
run = report["run"]
print()
print(f"Whole run: {run['frames_sent']} frames sent, {run['snapshots']} snapshots ({run['coalesced']} coalesced), "
      f"{run['summaries']} summaries stored of {run['sessions_started']} sessions, errors {run['error_codes']}, "
      f"closes {run['closes']}, connect failures {run['connect_failures']}.")
if run.get("drops"):
    resume = run["resume_ms"]
    print(f"Drops: {run['drops']} connections cut, {run['resumes']} resumed; resume latency p50 {resume['p50']:.2f}, "
          f"p99 {resume['p99']:.2f}, max {resume['max']:.2f} ms.")
PY
