#!/usr/bin/env bash
# Usage (from the repository root; servers serve ./Public):
#   bench/instructions.sh http PATH BINARY...    user-space instructions per `GET PATH`, one keep-alive connection
#   bench/instructions.sh live KIND BINARY...    per live pose frame (KIND json, binary or motion: poses with the
#                                                phone's samples), 20 sessions × 10 poses/s from motion-load
#
# Counts each motion-server binary's user-space instructions with callgrind. Unlike CPU time, the count hardly moves
# with the machine's load, so an A/B of two builds means something while other work runs beside it. It leaves out
# the kernel's share (the same syscalls cost the same) and says nothing of cache misses: a change that only moves
# memory shows in bench/live-ab.sh and bench/http-ab.sh, not here.
#
# Valgrind 3.19 cannot follow libdispatch's `sigsuspend` on a read-only mask (the server's main thread parks in
# `dispatchMain`), so a small preload passes it a copy; and it cannot read Swift's DWARF 5, so each binary is
# stripped of debug info (its symbols stay). LOAD (default .build/release/motion-load) drives the live runs; with
# KEEP=DIR each run's callgrind dump is kept there as NAME-KIND-WHAT.callgrind, for callgrind_annotate.
set -eu
KIND=$1; WHAT=$2; shift 2
LOAD=${LOAD:-$PWD/.build/release/motion-load}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cat > "$TMP/sigsuspend.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return syscall(SYS_rt_sigsuspend, &copy, 8); }
C
cc -shared -fPIC -O2 -o "$TMP/sigsuspend.so" "$TMP/sigsuspend.c"

# measure_KIND: runs the load against the server at $port, counting from zero after a warm-up; prints the unit count.
measure_http() {
    wrk -t1 -c1 -d2s "http://127.0.0.1:$port$WHAT" > /dev/null
    callgrind_control -z $pid > /dev/null 2>&1
    wrk -t1 -c1 -d6s "http://127.0.0.1:$port$WHAT" | awk '/requests in/ {print $1}'
}
measure_live() {
    local flags=()
    [[ $WHAT == binary ]] && flags=(--binary)
    [[ $WHAT == motion ]] && flags=(--motion)
    "$LOAD" --url "ws://127.0.0.1:$port/v1/stream" --sessions 20 --rate 10 --seconds 3 --quiet > /dev/null 2>&1 || true
    callgrind_control -z $pid > /dev/null 2>&1
    "$LOAD" --url "ws://127.0.0.1:$port/v1/stream" --sessions 20 --rate 10 --seconds 20 --drain-seconds 10 \
        "${flags[@]}" --json --quiet > "$TMP/load.json" 2> /dev/null || true
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; print(int(r["frames_sent"]))' \
        "$TMP/load.json"
}

for binary in "$@"; do
    name=$(basename "$binary"); dir="$TMP/$name"; mkdir -p "$dir"
    strip --strip-debug -o "$dir/server" "$binary"
    LD_PRELOAD="$TMP/sigsuspend.so" valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$dir/callgrind.%p" \
        "$dir/server" --host 127.0.0.1 --port 0 --database "$dir/db.sqlite" --public "$PWD/Public" \
        --log-level warning > "$dir/out" 2> "$dir/err" &
    pid=$!
    for _ in $(seq 600); do grep -q listening "$dir/out" 2>/dev/null && break; sleep 0.1; done
    port=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$dir/out" | head -1)
    units=$(measure_$KIND)
    callgrind_control -d $pid > /dev/null 2>&1
    kill $pid; wait $pid 2> /dev/null || true
    dump=$(ls "$dir"/callgrind.*.* | sort -t. -k3 -n | tail -1)
    total=$(callgrind_annotate "$dump" 2> /dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    unit=request; [[ $KIND == live ]] && unit=frame
    [[ -n ${KEEP:-} ]] && mkdir -p "$KEEP" && cp "$dump" "$KEEP/$name-$KIND-${WHAT//\//_}.callgrind"
    echo "$name $KIND $WHAT ${unit}s=$units instructions/$unit=$((total / units))"
done
