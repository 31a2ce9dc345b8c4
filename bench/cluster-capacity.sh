#!/usr/bin/env bash
# Live-session capacity through nginx: NODES motion-server nodes on one PostgreSQL behind nginx, all on this machine
# (blackbox/support/cluster.py, what `make cluster` runs), driven by motion-load through nginx's one port; and how
# the machine's CPU splits between the nodes, nginx, PostgreSQL and the load tool at a fixed number of sessions.
#   capacity  motion-load --find-capacity (as bench/capacity.sh: levels from START by STEP, STEP_SECONDS each, the
#             largest with p99 pose→snapshot ≤ LIMIT ms and no errors), RUNS times, a fresh cluster each time;
#   split     SPLIT_SESSIONS sessions for SPLIT_SECONDS on a fresh cluster: CPU time of every process by kind
#             (utime+stime from /proc over the measured phase), as % of one core and µs per pose frame.
# Prints a Markdown block for bench/RESULTS.md on stdout; progress, installs and build output go to stderr.
#
# Usage: bench/cluster-capacity.sh
# Environment (defaults): NODES=2 RUNS=3 RATE=30 LIMIT=20 START=250 STEP=250 STEP_SECONDS=10 MAX_SESSIONS=4000
#   SPLIT_SESSIONS=750 SPLIT_SECONDS=20 TICK_US=1000 POLL=1 RAMP_RATE=500 CLIENT_LOOPS=1
#   MAX_LOAD=1.5 LOAD_WAIT=600  first waits (up to LOAD_WAIT s) until the 1-minute load average is below MAX_LOAD
#   RAW_DIR=<dir>  keeps every raw motion-load report there
# Needs PostgreSQL and nginx (`make deps` installs both) and .venv (`make deps`).
# Smoke run: RUNS=1 START=50 STEP=50 MAX_SESSIONS=100 STEP_SECONDS=2 SPLIT_SESSIONS=50 SPLIT_SECONDS=3 MAX_LOAD= bench/cluster-capacity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=cluster-capacity.sh
source bench/lib.sh

NODES=${NODES:-2}
RUNS=${RUNS:-3}
RATE=${RATE:-30}
LIMIT=${LIMIT:-20}
START=${START:-250}
STEP=${STEP:-250}
STEP_SECONDS=${STEP_SECONDS:-10}
MAX_SESSIONS=${MAX_SESSIONS:-4000}
SPLIT_SESSIONS=${SPLIT_SESSIONS:-750}
SPLIT_SECONDS=${SPLIT_SECONDS:-20}
TICK_US=${TICK_US:-1000}
POLL=${POLL:-1}
RAMP_RATE=${RAMP_RATE:-500}
CLIENT_LOOPS=${CLIENT_LOOPS:-1}
MAX_LOAD=${MAX_LOAD-1.5}
LOAD_WAIT=${LOAD_WAIT:-600}

# motion-server also reads every flag from a MOTION_* variable: only the flags cluster.py passes count here.
for variable in "${!MOTION_@}"; do unset "$variable"; done

RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW"
raise_nofile $((2 * MAX_SESSIONS + 256))
need_tool nginx >/dev/null
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || die "PostgreSQL's server is missing: \`make deps\` installs it"

log "building motion-server and motion-load (release)"
swift build -c release --product motion-server >&2 || die "swift build motion-server failed"
swift build -c release --product motion-load >&2 || die "swift build motion-load failed"
LOAD=.build/release/motion-load
export MOTION_SERVER=$PWD/.build/release/motion-server

wait_quiet "$MAX_LOAD" "$LOAD_WAIT"
MACHINE=$(machine_line)
LOAD_ARGS=(--rate "$RATE" --ramp-rate "$RAMP_RATE" --loops "$CLIENT_LOOPS" --tick-us "$TICK_US")
[[ $POLL == 1 ]] && LOAD_ARGS+=(--poll)
CAPACITY_ARGS=(--find-capacity --p99-limit-ms "$LIMIT" --start-sessions "$START" --step "$STEP"
    --step-seconds "$STEP_SECONDS" --max-sessions "$MAX_SESSIONS")

start_cluster() {
    start_server cluster "$PYTHON" blackbox/support/cluster.py --nodes "$NODES" --port "$(free_port)"
    URL="ws://${SERVER_URL#*://}/v1/stream"
}

# kind_ticks : "KIND TICKS" per line, CPU ticks (utime+stime) of every live process by kind: the nodes
# (motion-server), nginx, postgres, the load tool (motion-load).
kind_ticks() {
    local stat
    for stat in /proc/[0-9]*/stat; do
        cat "$stat" 2>/dev/null || true
        echo
    done | awk '{
        comm = $0; sub(/^[^(]*\(/, "", comm); sub(/\).*$/, "", comm)
        rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
        if (comm == "motion-server") kind = "nodes"
        else if (comm ~ /^nginx/) kind = "nginx"
        else if (comm ~ /^postgres/) kind = "postgres"
        else if (comm == "motion-load") kind = "motion-load"
        else next
        ticks[kind] += f[12] + f[13]
    } END { for (k in ticks) print k, ticks[k] }'
}

CAPACITIES=()
for ((run = 1; run <= RUNS; run++)); do
    start_cluster
    log "run $run: motion-load ${CAPACITY_ARGS[*]} ${LOAD_ARGS[*]} through $URL"
    find_capacity_run "$run" "the cluster" "$LOAD" --url "$URL" "${CAPACITY_ARGS[@]}" "${LOAD_ARGS[@]}"
done
MEDIAN=$(median_to 0 "${CAPACITIES[@]}")

# The split: CPU by kind while every session streams (motion-load's per-second line counts them all), for
# SPLIT_SECONDS inside motion-load's measured phase (the ramp and the drain not counted).
start_cluster
log "split: $SPLIT_SESSIONS sessions, $SPLIT_SECONDS s measured"
"$LOAD" --url "$URL" --sessions "$SPLIT_SESSIONS" --seconds $((SPLIT_SECONDS + 4)) "${LOAD_ARGS[@]}" --json \
    >"$RAW/split.json" 2>"$RAW/split.log" &
CLIENT_PID=$!
for ((i = 0; i < 600; i++)); do
    awk -v n="$SPLIT_SESSIONS" '$2 == "sessions" && $3 + 0 >= n { found = 1 } END { exit !found }' \
        "$RAW/split.log" 2>/dev/null && break
    kill -0 "$CLIENT_PID" 2>/dev/null || die "split: motion-load stopped before every session streamed: $(tail -3 "$RAW/split.log")"
    sleep 0.1
done
((i < 600)) || die "split: not every session streamed within 60 s"
sleep 1
before=$(kind_ticks)
started=$(date +%s.%N)
sleep "$SPLIT_SECONDS"
after=$(kind_ticks)
ended=$(date +%s.%N)
wait "$CLIENT_PID" || log "split: motion-load exited non-zero"
CLIENT_PID=""
stop_server
HZ=$(getconf CLK_TCK)
SPLIT_P99=$(jfield "$RAW/split.json" measurement.latency_ms.p99)
SPLIT_FRAMES=$(jfield "$RAW/split.json" measurement.frames_per_second)

echo "### Live-session capacity through nginx, $NODES nodes on PostgreSQL ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE (at the start)."
echo
echo "Command: \`NODES=$NODES RUNS=$RUNS bench/cluster-capacity.sh\`: per run a fresh cluster"
echo "(\`blackbox/support/cluster.py --nodes $NODES\`, what \`make cluster\` runs: PostgreSQL on a Unix socket, $NODES"
echo "release motion-server nodes, nginx in front with WebSocket proxying) and"
echo "\`motion-load --url ws://NGINX/v1/stream ${CAPACITY_ARGS[*]} ${LOAD_ARGS[*]}\`, all on this machine."
echo
echo "Capacity at $RATE poses/s with p99 ≤ $LIMIT ms: **$MEDIAN sessions** (median; runs: ${CAPACITIES[*]})."
echo
echo "Where the CPU goes at $SPLIT_SESSIONS sessions ($SPLIT_SECONDS s measured; motion-load's p99 $(ms "$SPLIT_P99"), $(fmt0 "$SPLIT_FRAMES") pose frames/s sent):"
echo
echo "| process kind | % of one core | µs per pose frame |"
echo "| --- | --- | --- |"
"$PYTHON" - "$before" "$after" "$started" "$ended" "$HZ" "$SPLIT_FRAMES" <<'PY'
import sys
before = dict((k, int(v)) for k, v in (line.split() for line in sys.argv[1].splitlines() if line.strip()))
after = dict((k, int(v)) for k, v in (line.split() for line in sys.argv[2].splitlines() if line.strip()))
seconds = float(sys.argv[4]) - float(sys.argv[3])
hz = int(sys.argv[5])
frames = float(sys.argv[6]) if sys.argv[6] not in ("null", "") else 0
total = 0.0
for kind in ("nodes", "nginx", "postgres", "motion-load"):
    cpu = (after.get(kind, 0) - before.get(kind, 0)) / hz
    total += cpu
    per_frame = f"{cpu / seconds / frames * 1e6:.1f}" if frames else "n/a"
    print(f"| {kind} | {cpu / seconds * 100:.0f} % | {per_frame} |")
per_frame = f"{total / seconds / frames * 1e6:.1f}" if frames else "n/a"
print(f"| all | {total / seconds * 100:.0f} % of 200 % | {per_frame} |")
PY
