#!/usr/bin/env bash
# Where one live frame's server CPU goes, beside the floor: motion-server's own WebSocket echo (`--ws-echo`: the
# same server, loops, timers and metrics, no analysis) driven at the same rate with frames of the same size. Per run
# a fresh release server and database: the echo with `ws-bench-client rate`, then live sessions with `motion-load`
# sending JSON poses, binary pose frames (docs/protocol.md §3.2), and JSON poses with the phone's samples (§3.3); µs of
# server CPU per pose frame = server CPU / frames
# over the measured phase, median of RUNS. A last pass of each records a `perf` profile (not counted in the medians),
# which bench/frame-cost/classify.py splits into the parts of the path (kernel receive and send, WebSocket core,
# pose decoding, engine, encoding, the session's glue, the store, the Swift runtime); each part's µs per frame is its
# share of the profile times the median. Prints a Markdown block for bench/RESULTS.md on stdout.
#
# Usage: bench/frame-cost.sh
# Environment (defaults): RUNS=3 FRAME_SESSIONS=1500 RATE=30 FRAME_SECONDS=20 RAMP=4 PERF_SECONDS=8
#   SIZE=<the JSON pose bytes motion-load sends>  PERF_DIR=<dir> keeps the profiles there (for `perf report -i`)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=frame-cost.sh
source bench/lib.sh

RUNS=${RUNS:-3}
SESSIONS=${FRAME_SESSIONS:-1500}
RATE=${RATE:-30}
DURATION=${FRAME_SECONDS:-20}
RAMP=${RAMP:-4}
PERF_SECONDS=${PERF_SECONDS:-8}
command -v perf >/dev/null || die "perf is missing (apt install linux-perf)"
ulimit -n 65536 2>/dev/null || true

log "building motion-server, motion-load and ws-bench-client (release)"
for product in motion-server motion-load ws-bench-client; do
    swift build -c release --product "$product" >&2 || die "swift build $product failed"
done
SERVER=.build/release/motion-server
LOAD=.build/release/motion-load
CLIENT=.build/release/ws-bench-client
MACHINE=$(machine_line)

# The JSON pose size motion-load sends, for the echo's frames.
start_server size "$SERVER" --host 127.0.0.1 --port 0 --log-level warning --database "$TMP/size.sqlite"
"$LOAD" --url "ws://${SERVER_URL#*://}/v1/stream" --sessions 1 --seconds 1 --json --quiet >"$TMP/size.json"
stop_server
SIZE=${SIZE:-$(jfield "$TMP/size.json" message_bytes)}
[[ $SIZE =~ ^[0-9]+$ ]] || SIZE=900

declare -A COST
# measure KIND RUN PROFILE : one run of KIND (echo, json, binary, motion: JSON poses with the phone's samples, 60/s);
# with PROFILE=1 records perf instead of measuring.
measure() {
    local kind=$1 run=$2 profile=$3 out=$TMP/$1-$2.json perf_pid=""
    if [[ $kind == echo ]]; then
        start_server echo "$SERVER" --host 127.0.0.1 --port 0 --log-level warning --ws-echo --database "$TMP/$kind-$run.sqlite"
        "$CLIENT" rate --url "ws://${SERVER_URL#*://}/v1/echo" --connections "$SESSIONS" --rate "$RATE" --size "$SIZE" \
            --seconds "$DURATION" --ramp-seconds "$RAMP" --poll --tick-us 1000 --server-pid "$SERVER_PID" >"$out" &
    else
        start_server "$kind" "$SERVER" --host 127.0.0.1 --port 0 --log-level warning --database "$TMP/$kind-$run.sqlite"
        local flags=()
        [[ $kind == binary ]] && flags=(--binary)
        [[ $kind == motion ]] && flags=(--motion)
        "$LOAD" --url "ws://${SERVER_URL#*://}/v1/stream" --sessions "$SESSIONS" --rate "$RATE" --seconds "$DURATION" \
            "${flags[@]}" --poll --tick-us 1000 --server-pid "$SERVER_PID" --json --quiet >"$out" &
    fi
    local client=$!
    if ((profile)); then
        sleep $((RAMP + SESSIONS / 500 + 4))
        perf record -F 999 -g -p "$SERVER_PID" -o "$TMP/$kind.perf" -- sleep "$PERF_SECONDS" >/dev/null 2>&1 || true
    fi
    wait "$client" || log "$kind run $run: the client reported problems"
    stop_server
    ((profile)) && return 0
    local cpu frames
    if [[ $kind == echo ]]; then
        cpu=$("$PYTHON" -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d["server_cpu_percent"])' "$out")
        frames=$("$PYTHON" -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d["received"] / d["seconds"])' "$out")
    else
        cpu=$(jfield "$out" measurement.server_cpu_percent)
        frames=$(jfield "$out" measurement.frames_per_second)
    fi
    local us
    us=$(awk -v c="$cpu" -v f="$frames" 'BEGIN { printf "%.2f", c * 10000 / f }')
    COST[$kind]+="$us "
    log "$kind run $run: server CPU $cpu % at $frames frames/s: $us µs per frame"
}

for ((run = 1; run <= RUNS; run++)); do
    for kind in echo json binary motion; do measure "$kind" "$run" 0; done
done
for kind in echo json binary motion; do measure "$kind" profile 1; done
if [[ -n ${PERF_DIR:-} ]]; then
    mkdir -p "$PERF_DIR"
    cp "$TMP"/*.perf "$PERF_DIR"/
fi

declare -A MEDIAN SHARES
for kind in echo json binary motion; do
    MEDIAN[$kind]=$(median_to 2 ${COST[$kind]})
    SHARES[$kind]=$("$PYTHON" bench/frame-cost/classify.py "$TMP/$kind.perf")
done

echo "### Where a live frame's CPU goes, beside the echo ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE."
echo
echo "Command: \`RUNS=$RUNS FRAME_SESSIONS=$SESSIONS bench/frame-cost.sh\`: per run a fresh release \`motion-server"
echo "--log-level warning\` (embedded SQLite); the echo is the same server with \`--ws-echo\` driven by \`ws-bench-client"
echo "rate --connections $SESSIONS --rate $RATE --size $SIZE --poll --tick-us 1000\`, the live sessions by \`motion-load"
echo "--sessions $SESSIONS --rate $RATE --poll --tick-us 1000\` (JSON poses of about $SIZE bytes; \`--binary\` for binary"
echo "frames, \`--motion\` for JSON poses with the phone's samples, 60 a second, in \`motion\` messages beside them); µs of"
echo "server CPU per pose frame over ${DURATION} s, median of $RUNS (runs: echo ${COST[echo]% }; JSON ${COST[json]% }; binary"
echo "${COST[binary]% }; with sensors ${COST[motion]% }). Parts: a \`perf record -F 999 -g\` profile of ${PERF_SECONDS} s in one more run of each, split by"
echo "\`bench/frame-cost/classify.py\` (user space by the Swift module of each symbol; inlined code counts where it was"
echo "inlined), each part's share times the median."
echo
"$PYTHON" - "${MEDIAN[echo]}" "${MEDIAN[json]}" "${MEDIAN[binary]}" "${MEDIAN[motion]}" \
    "${SHARES[echo]}" "${SHARES[json]}" "${SHARES[binary]}" "${SHARES[motion]}" <<'PY'
import json, sys
medians = [float(v) for v in sys.argv[1:5]]
shares = [json.loads(v) for v in sys.argv[5:9]]
order = [
    "kernel: receive (read)", "kernel: send (write, and loopback delivery)", "kernel: waiting (epoll, futex, sleep)",
    "kernel: other (interrupts, scheduling, timers)", "WebSocket and HTTP core", "pose decoding", "engine",
    "snapshot and event encoding", "session glue", "store", "Swift runtime (retain/release, allocation)",
    "libc (malloc, memcpy)", "Swift standard library (specialised in the binary)", "other",
]
parts = order + sorted({p for s in shares for p in s} - set(order))
print("| part | echo µs/frame | JSON µs/frame | binary µs/frame | JSON + sensors µs/frame |")
print("| --- | --- | --- | --- | --- |")
for part in parts:
    cells = [f"{m * s.get(part, 0):.2f} ({s.get(part, 0) * 100:.0f} %)" for m, s in zip(medians, shares)]
    print(f"| {part} | " + " | ".join(cells) + " |")
print("| **total** | " + " | ".join(f"**{m:.2f}**" for m in medians) + " |")
print("| ratio to the echo | 1 | " + " | ".join(f"{m / medians[0]:.2f}" for m in medians[1:]) + " |")
PY
