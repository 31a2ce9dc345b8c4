#!/usr/bin/env bash
# A/B of a live frame's server CPU between two motion-server builds, in one go on one machine: per round and build a
# fresh release server and database, `motion-load` sending JSON poses, then binary pose frames (docs/protocol.md §3.2),
# at SESSIONS × RATE frames per second; µs of server CPU per pose frame = server CPU / frames over the measured phase.
# Builds alternate within each round, so a machine that slows down slows both. Prints one line per run and the medians.
#
# Usage: bench/live-ab.sh BASE_SERVER HEAD_SERVER [LOAD]   (binaries; LOAD defaults to .build/release/motion-load)
# Environment (defaults): ROUNDS=5 AB_SESSIONS=1000 RATE=30 AB_SECONDS=15
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=live-ab.sh
source bench/lib.sh

BASE=${1:?base server binary}
HEAD=${2:?head server binary}
LOAD=${3:-.build/release/motion-load}
ROUNDS=${ROUNDS:-5}
SESSIONS=${AB_SESSIONS:-1000}
RATE=${RATE:-30}
DURATION=${AB_SECONDS:-15}
ulimit -n 65536 2>/dev/null || true
declare -A COST

for ((round = 1; round <= ROUNDS; round++)); do
    for build in base head; do
        server=$BASE
        [[ $build == head ]] && server=$HEAD
        for kind in json binary; do
            start_server "$build-$kind" "$server" --host 127.0.0.1 --port 0 --log-level warning \
                --database "$TMP/$build-$kind-$round.sqlite"
            flags=()
            [[ $kind == binary ]] && flags=(--binary)
            out=$TMP/$build-$kind-$round.json
            "$LOAD" --url "ws://${SERVER_URL#*://}/v1/stream" --sessions "$SESSIONS" --rate "$RATE" \
                --seconds "$DURATION" "${flags[@]}" --poll --tick-us 1000 --server-pid "$SERVER_PID" --json --quiet \
                >"$out" || log "$build $kind round $round: the client reported problems"
            stop_server
            cpu=$(jfield "$out" measurement.server_cpu_percent)
            frames=$(jfield "$out" measurement.frames_per_second)
            us=$(awk -v c="$cpu" -v f="$frames" 'BEGIN { printf "%.2f", c * 10000 / f }')
            COST[$build-$kind]+="$us "
            echo "round $round $build $kind: server CPU $cpu % at $frames frames/s: $us µs per frame"
        done
    done
done

echo
echo "| | base (µs per frame) | head (µs per frame) | head / base |"
echo "|---|---|---|---|"
for kind in json binary; do
    base=$(median_to 2 ${COST[base-$kind]})
    head=$(median_to 2 ${COST[head-$kind]})
    echo "| $kind | $base (${COST[base-$kind]% }) | $head (${COST[head-$kind]% }) | $(ratio "$head" "$base") |"
done
