#!/usr/bin/env bash
# MotionWire decoding and encoding against Foundation's JSON coders on the same frames (release build).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=wire.sh
source bench/lib.sh
runs=${1:-5}
swift build -c release --product wire-bench >/dev/null
echo "### MotionWire ($(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo none))"
echo
echo "Machine: $(nproc) cores, $(cpu_model); load $(cut -d' ' -f1 /proc/loadavg)"
echo
echo "Command: \`bench/wire.sh $runs\` (\`.build/release/wire-bench --runs $runs\`)"
echo
.build/release/wire-bench --runs "$runs"
