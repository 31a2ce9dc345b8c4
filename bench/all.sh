#!/usr/bin/env bash
# The whole benchmark suite in one go: engine, wire, HTTP, WebSocket, store, live-session capacity and our servers
# beside independent peers, each script's Markdown block one after the other under a header with the commit and the
# machine, on stdout (and in OUT when set), ready for bench/RESULTS.md. Progress, installs and build output go to
# stderr. A part that fails is reported in place and the rest still run; the exit status says whether all passed.
#
# Usage: bench/all.sh            (`make bench`; about an hour and a quarter on 2 cores)
# Environment: PARTS="engine wire http websocket store capacity frame-cost long-sessions peers instructions"
#                (a subset, in that order); with BASE_SERVER=<a base build's motion-server binary> also "ab" at the
#                end: bench/live-ab.sh and bench/http-ab.sh of the base against this build, and the instruction
#                counts beside the base
#   OUT=<file>   also write the result there
#   QUICK=1      a smoke run: short durations and one run each (figures not for RESULTS.md)
set -uo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=all.sh
source bench/lib.sh

PARTS=${PARTS:-engine wire http websocket store capacity frame-cost long-sessions peers instructions${BASE_SERVER:+ ab}}
if [[ ${QUICK:-0} == 1 ]]; then
    export DURATION=2s RUNS=1 WARMUP=1s RATE_DURATION=3 IDLE_CONNECTIONS=200 SESSIONS=2000 LOAD_WAIT=0 \
        STORE_BENCH_SESSIONS=200 STORE_BENCH_RUNS=1 START=100 STEP=100 STEP_SECONDS=3 MAX_SESSIONS=300 \
        FRAME_SESSIONS=200 FRAME_SECONDS=3 PERF_SECONDS=2 LONG_SESSIONS=50 LONG_SECONDS=6 SHORT_SECONDS=3 \
        ROUNDS=1 AB_SESSIONS=100 AB_SECONDS=3
fi

script_for() {
    case $1 in
        engine) echo "bench/engine.sh ${RUNS:-5}" ;;
        wire) echo "bench/wire.sh" ;;
        http) echo "bench/http.sh" ;;
        websocket) echo "bench/websocket.sh" ;;
        store) echo "bench/store.sh" ;;
        capacity) echo "bench/capacity.sh" ;;
        frame-cost) echo "bench/frame-cost.sh" ;;
        long-sessions) echo "bench/long-sessions.sh" ;;
        peers) echo "bench/peers.sh" ;;
        instructions) echo "bench/instruction-counts.sh ${BASE_SERVER:-}" ;;
        ab) echo "bench/ab.sh ${BASE_SERVER:?the ab part needs BASE_SERVER}" ;;
        *) return 1 ;;
    esac
}

report=$TMP/report.md
{
    echo "## Benchmark suite ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo none))"
    echo
    echo "Machine: $(nproc) cores, $(cpu_model), $(swift --version 2>&1 | head -1); load average at start:" \
        "$(cut -d' ' -f1-3 /proc/loadavg)"
    echo
} >"$report"
failed=()
for part in $PARTS; do
    command=$(script_for "$part") || die "unknown part: $part (engine wire http websocket store capacity frame-cost long-sessions peers instructions ab)"
    log "== $part: $command"
    started=$SECONDS
    if output=$($command); then
        printf '%s\n\n' "$output" >>"$report"
    else
        failed+=("$part")
        printf '%s\n\n**%s failed** (`%s`); its output above is partial.\n\n' "$output" "$part" "$command" >>"$report"
    fi
    log "== $part took $((SECONDS - started)) s"
done
cat "$report"
[[ -n ${OUT:-} ]] && cp "$report" "$OUT"
((${#failed[@]} == 0)) || die "failed: ${failed[*]}"
