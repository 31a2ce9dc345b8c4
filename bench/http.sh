#!/usr/bin/env bash
# HTTP benchmark: wrk against our release http-bench-server and, in the same go, a single-process aiohttp peer,
# on a tiny GET (`/` → "hello") and a 10 KiB static file. Reports req/s (median of RUNS), p99 latency and RSS,
# and the ratio ours/aiohttp per target, as a Markdown block on stdout for bench/RESULTS.md.
# Progress, installs and build output go to stderr.
#
# Usage: bench/http.sh
# Environment (defaults): DURATION=10s RUNS=3 CONNECTIONS=64 THREADS=2 WARMUP=2s LOOPS=2
#   RAW_DIR=<dir>  keeps every raw wrk output there (default: a temp dir, removed at exit)
# Smoke run: DURATION=2s RUNS=1 bench/http.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
RUNS=${RUNS:-3}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-2s}
LOOPS=${LOOPS:-2}

BENCH_NAME=http.sh
source bench/lib.sh

# ---- tools (idempotent) ----------------------------------------------------------------------------------------
need_tool wrk >/dev/null
"$PYTHON" -c 'import aiohttp' 2>/dev/null || die "$PYTHON cannot import aiohttp; \`make deps\` installs it into .venv"
AIOHTTP_VERSION=$("$PYTHON" -c 'import aiohttp; print(aiohttp.__version__)')

# ---- build -----------------------------------------------------------------------------------------------------
log "building http-bench-server (release)"
swift build -c release --product http-bench-server >&2 || die "swift build failed"
BIN=.build/release/http-bench-server
[[ -x $BIN ]] || die "$BIN missing after build"

# ---- scratch, cleanup ------------------------------------------------------------------------------------------
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$TMP/public" "$RAW"
# 10 KiB of plain text (compressibility does not matter: neither server compresses without Accept-Encoding,
# which wrk never sends; there is no file10k.txt.gz beside it either).
"$PYTHON" -c 'import sys; open(sys.argv[1], "wb").write(b"motion-server static file, 32 B\n" * 320)' \
    "$TMP/public/file10k.txt"
[[ $(stat -c %s "$TMP/public/file10k.txt") -eq 10240 ]] || die "file10k.txt is not 10240 bytes"

# ---- helpers ---------------------------------------------------------------------------------------------------
median() { median_to 2 "$@"; }

# check_response URL EXPECTED_BYTES : 200, the exact body length, no Content-Encoding.
check_response() {
    local headers body
    headers=$(curl -s -o "$TMP/body" -D - "$1") || die "curl $1 failed"
    body=$(stat -c %s "$TMP/body")
    grep -q '^HTTP/1.1 200' <<<"$headers" || die "$1 did not answer 200: $(head -1 <<<"$headers")"
    [[ $body -eq $2 ]] || die "$1 answered $body bytes, expected $2"
    ! grep -qi '^content-encoding:' <<<"$headers" || die "$1 answered with a Content-Encoding"
}

mib() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }

ROWS=()    # Markdown table rows
NOTES=()   # anything odd in wrk output
declare -A RPS P99 HWM # "server target" → median req/s, median p99 (ms), VmHWM (kB)

# bench_target SERVER_NAME TARGET_PATH
bench_target() {
    local name=$1 path=$2 url=$URL$2
    wrk_runs "$name \`$path\`" "$url"
    local rps=("${WRK_RPS[@]}") p99=("${WRK_P99[@]}")
    local rss hwm mrps mp99
    rss=$(proc_kb "$SERVER_PID" VmRSS)
    hwm=$(proc_kb "$SERVER_PID" VmHWM)
    mrps=$(median "${rps[@]}")
    mp99=$(median "${p99[@]}")
    RPS["$name $path"]=$mrps
    P99["$name $path"]=$mp99
    HWM["$name $path"]=$hwm
    local runs_list
    runs_list=$(printf '%.0f, ' "${rps[@]}")
    runs_list=${runs_list%, }
    local p99_list
    p99_list=$(printf '%s, ' "${p99[@]}")
    p99_list=${p99_list%, }
    ROWS+=("| $name | \`$path\` | $(printf '%.0f' "$mrps") ($runs_list) | $mp99 ms ($p99_list) | $(mib "$rss") / $(mib "$hwm") MiB |")
}

# ---- measure ---------------------------------------------------------------------------------------------------
OURS_CMD=("$BIN" --port 0 --loops "$LOOPS" --public "$TMP/public" --log-level warning)
PEER_CMD=("$PYTHON" bench/peers/aiohttp_server.py --port 0 --public "$TMP/public")

LOAD_BEFORE=$(cut -d' ' -f1 /proc/loadavg)
start_server ours "${OURS_CMD[@]}"
URL="http://127.0.0.1:${SERVER_URL##*:}"
check_response "$URL/" 5
check_response "$URL/file10k.txt" 10240
bench_target ours /
bench_target ours /file10k.txt
stop_server

start_server aiohttp "${PEER_CMD[@]}"
URL="http://127.0.0.1:${SERVER_URL##*:}"
check_response "$URL/" 5
check_response "$URL/file10k.txt" 10240
bench_target aiohttp /
bench_target aiohttp /file10k.txt
stop_server

LOAD_AFTER=$(cut -d' ' -f1 /proc/loadavg)

# ---- report ----------------------------------------------------------------------------------------------------
cpu=$(cpu_model)
echo "### HTTP ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(nproc) cores, $cpu, $(swift --version 2>&1 | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2);" \
    "Python $("$PYTHON" -c 'import platform; print(platform.python_version())'), aiohttp $AIOHTTP_VERSION"
echo
echo "Command: \`DURATION=$DURATION RUNS=$RUNS CONNECTIONS=$CONNECTIONS THREADS=$THREADS bench/http.sh\`, which runs, per server and target:"
echo
echo '```'
echo "swift build -c release --product http-bench-server"
echo ".build/release/http-bench-server --port 0 --loops $LOOPS --public \$PUBLIC --log-level warning"
echo "python3 bench/peers/aiohttp_server.py --port 0 --public \$PUBLIC   # single process, no access log"
echo "wrk -t$THREADS -c$CONNECTIONS -d$WARMUP \$URL   # warm-up, not counted"
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency \$URL   # $RUNS times"
echo '```'
echo
echo "Targets: \`/\` (\"hello\", 5 B text/plain) and \`/file10k.txt\` (10240 B static file, no Accept-Encoding, so no gzip)."
echo "wrk, the server and anything else on the machine share the $(nproc) cores; load average (1 min) was" \
    "$LOAD_BEFORE before the runs and $LOAD_AFTER after them (wrk and a server alone keep it near 2-3; a high" \
    "value before, or well above 3 after, means something else competed for the CPU and the numbers are noisy)."
echo
echo "| server | target | req/s, median of $RUNS (runs) | p99, median (runs) | RSS / peak RSS after the runs |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
echo
for path in / /file10k.txt; do
    echo "Ratio ours/aiohttp on \`$path\`: $(awk -v a="${RPS["ours $path"]}" -v b="${RPS["aiohttp $path"]}" \
        'BEGIN { printf "%.1f", a / b }')x"
    echo
done
verdict() { awk "BEGIN { exit !($1) }" && echo "met" || echo "**not met**"; }
echo "Aim on the tiny GET: ≥ 100,000 req/s: $(verdict "${RPS["ours /"]} >= 100000");" \
    "p99 < 5 ms: $(verdict "${P99["ours /"]} < 5"); peak RSS < 20 MB (taken as 20 MiB): $(verdict "${HWM["ours /"]} < 20480")."
echo
echo "RSS is VmRSS from /proc/PID/status sampled right after each target's runs; peak is VmHWM (the process's" \
    "high-water mark so far, so the file row includes the tiny-GET runs)."
report_notes "wrk reported:" "wrk reported no socket errors and no non-2xx responses; no run had a max latency of 100 ms or more."
