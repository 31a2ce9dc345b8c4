#!/usr/bin/env bash
# User-space instructions per unit of work of this build, counted under callgrind (bench/instructions.sh): per
# `GET /healthz` (one keep-alive connection), and per live pose frame — JSON, binary (docs/protocol.md §3.2) and JSON
# with the phone's samples (§3.3), 20 `motion-load` sessions × 10 poses/s. The counts hardly move with the machine's
# load (under 0.1 % for HTTP, about 2 % for live frames), so they compare builds where CPU time cannot; they leave
# out the kernel and cache misses, which the CPU-time A/Bs (bench/live-ab.sh, bench/http-ab.sh) and bench/frame-cost.sh
# measure on a quiet machine. Prints a Markdown block for bench/RESULTS.md on stdout.
#
# Usage: bench/instruction-counts.sh [BASE_BINARY]   with a base build (e.g. /tmp/bin-base), each row gives both and
#                                                    their ratio
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=instruction-counts.sh
source bench/lib.sh

command -v valgrind >/dev/null || die "valgrind is missing (apt install valgrind)"
command -v wrk >/dev/null || die "wrk is missing (apt install wrk)"
log "building motion-server and motion-load (release)"
for product in motion-server motion-load; do
    swift build -c release --product "$product" >&2 || die "swift build $product failed"
done
HEAD_BIN=$TMP/motion-server-$(commit_id)
cp .build/release/motion-server "$HEAD_BIN"
BINARIES=("$HEAD_BIN")
[[ -n ${1:-} ]] && BINARIES+=("$1")

# count KIND WHAT BINARY : the instructions per unit bench/instructions.sh prints for one binary.
count() { LOAD=.build/release/motion-load bench/instructions.sh "$1" "$2" "$3" | sed -n 's/.*instructions\/[a-z]*=//p'; }

echo "### Instructions per request and per live frame ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(machine_line). \`bench/instructions.sh\`: user-space instructions under callgrind, kernel and cache"
echo "misses left out."
echo
if [[ ${#BINARIES[@]} == 2 ]]; then
    echo "| | base \`$(basename "$1")\` | $(commit_id) | ratio |"
    echo "| --- | --- | --- | --- |"
else
    echo "| | $(commit_id) |"
    echo "| --- | --- |"
fi
for measure in "http /healthz" "live json" "live binary" "live motion"; do
    read -r kind what <<<"$measure"
    log "== $kind $what"
    head=$(count "$kind" "$what" "$HEAD_BIN")
    case $what in
        /healthz) label="\`GET /healthz\`, per request" ;;
        json) label="JSON pose frame" ;;
        binary) label="binary pose frame" ;;
        motion) label="JSON pose frame with the phone's samples" ;;
    esac
    if [[ ${#BINARIES[@]} == 2 ]]; then
        base=$(count "$kind" "$what" "$1")
        echo "| $label | $base | $head | $(ratio "$head" "$base") |"
    else
        echo "| $label | $head |"
    fi
done
