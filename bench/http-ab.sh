#!/usr/bin/env bash
# A/B of HTTP's server CPU per request between two motion-server builds, in one go on one machine: a tiny keep-alive
# GET (`/healthz`) and a REST GET (`/v1/exercises`, the built-in catalog in two languages). Per round, build and path
# a fresh release server and database (`--threads 1`, `--log-level warning`), a wrk warm-up of WARMUP, then DURATION
# measured with `wrk -tTHREADS -cCONNECTIONS`; µs of server CPU per request = utime+stime over the measured run ÷ its
# requests. Builds alternate within each round, so a machine that slows down slows both. Prints one line per run on
# stderr and a Markdown table of the medians on stdout.
#
# Usage: bench/http-ab.sh BASE_SERVER HEAD_SERVER   (binaries; run from anywhere)
# Environment (defaults): ROUNDS=3 DURATION=10s WARMUP=2s CONNECTIONS=64 THREADS=2 PATHS="/healthz /v1/exercises"
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=http-ab.sh
source bench/lib.sh

BASE=${1:?base server binary}
HEAD=${2:?head server binary}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-2s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
read -r -a PATHS <<<"${PATHS:-/healthz /v1/exercises}"
need_tool wrk >/dev/null
declare -A COST

for ((round = 1; round <= ROUNDS; round++)); do
    for build in base head; do
        server=$BASE
        [[ $build == head ]] && server=$HEAD
        for path in "${PATHS[@]}"; do
            start_server "$build" "$server" --host 127.0.0.1 --port 0 --threads 1 --log-level warning \
                --database "$TMP/$build-$round${path//\//-}.sqlite" --public Public
            wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$SERVER_URL$path" >/dev/null
            before=$(proc_ticks "$SERVER_PID")
            out=$TMP/$build-$round${path//\//-}.wrk
            wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$SERVER_URL$path" >"$out"
            after=$(proc_ticks "$SERVER_PID")
            stop_server
            requests=$(awk '/ requests in / { print $1 }' "$out")
            grep -q 'Non-2xx' "$out" && die "$build $path: $(grep 'Non-2xx' "$out")"
            us=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
                'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
            COST[$build$path]+="$us "
            log "round $round $build $path: $requests requests, $us µs of server CPU each"
        done
    done
done

echo "| path | base (µs per request) | head (µs per request) | head / base |"
echo "| --- | --- | --- | --- |"
for path in "${PATHS[@]}"; do
    base=$(median_to 2 ${COST[base$path]})
    head=$(median_to 2 ${COST[head$path]})
    echo "| \`$path\` | $base (${COST[base$path]% }) | $head (${COST[head$path]% }) | $(ratio "$head" "$base") |"
done
