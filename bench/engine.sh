#!/usr/bin/env bash
# Engine benchmark: time per processed frame (median of runs) and heap allocations per frame.
# Usage: bench/engine.sh [runs]   — appends nothing; prints a Markdown block for bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=engine.sh
source bench/lib.sh
runs=${1:-5}
swift build -c release --product engine-bench >/dev/null
bin=.build/release/engine-bench

echo "### Engine ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo none))"
echo
echo "Machine: $(nproc) cores, $(cpu_model), $(swift --version 2>&1 | head -1)"
echo
echo "Command: \`bench/engine.sh $runs\` (\`$bin --runs $runs --seconds 60\`)"
echo
echo '```'
"$bin" --runs "$runs" --seconds 60
echo '```'

# Allocations: valgrind counts every malloc; the difference between 3 passes and 1 pass over the same poses
# leaves only what processing frames costs (set-up and pose generation cancel out).
if command -v valgrind >/dev/null; then
    probe() {
        valgrind --tool=memcheck "$bin" --passes "$1" --seconds 60 2>&1 |
            awk '/total heap usage/ {gsub(",", "", $5); a=$5} /^frames/ {f=$2; e=$4} END {print a, f, e}'
    }
    read -r a1 f1 e1 < <(probe 1)
    read -r a3 f3 e3 < <(probe 3)
    frames=$((f3 - f1)); allocs=$((a3 - a1)); events=$((e3 - e1))
    echo
    echo "Allocations (valgrind, 3 passes − 1 pass): $allocs allocations over $frames frames" \
        "= $(awk "BEGIN {printf \"%.4f\", $allocs / $frames}") per frame; the same frames produced $events events" \
        "($(awk "BEGIN {printf \"%.4f\", $events / $frames}") per frame), collected with process(_:into:) and a reused buffer."
fi
