#!/usr/bin/env bash
# This build against a base build, CPU time in one go: a live frame (bench/live-ab.sh, JSON and binary poses at
# 1,000 sessions) and an HTTP request (bench/http-ab.sh, `/healthz` and `/v1/exercises`), each under a header; the
# base's binary is given, this tree's release motion-server is built. Prints a Markdown block for bench/RESULTS.md.
#
# Usage: bench/ab.sh BASE_SERVER   (e.g. a copy of .build/release/motion-server built at the commit before)
# Environment: as bench/live-ab.sh (ROUNDS, AB_SESSIONS, RATE, AB_SECONDS) and bench/http-ab.sh (DURATION, …)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=ab.sh
source bench/lib.sh

BASE=${1:?base server binary}
[[ -x $BASE ]] || die "$BASE is not an executable"
log "building motion-server and motion-load (release)"
for product in motion-server motion-load; do
    swift build -c release --product "$product" >&2 || die "swift build $product failed"
done
HEAD=$TMP/motion-server-$(commit_id)
cp .build/release/motion-server "$HEAD"

echo "### This build against a base: live frames and HTTP requests ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(machine_line). Base: \`$BASE\`."
echo
echo "Live frames, \`bench/live-ab.sh\` (server CPU per pose frame, builds alternating, median of the rounds):"
echo
bench/live-ab.sh "$BASE" "$HEAD" | sed -n '/^|/p'
echo
echo "HTTP, \`bench/http-ab.sh\` (server CPU per request, one thread, builds alternating, median of the rounds):"
echo
bench/http-ab.sh "$BASE" "$HEAD"
