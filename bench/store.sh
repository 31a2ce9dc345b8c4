#!/usr/bin/env bash
# Store benchmark over HTTP: how fast the release motion-server stores sessions through POST /v1/analyze, then
# GET /v1/sessions/{id} and list queries at SESSIONS stored sessions (req/s, p99), the database's size and the
# server's RSS; then the in-process store micro-benchmark (bench/store, no HTTP). Prints a Markdown block for
# bench/RESULTS.md on stdout; progress, installs and build output go to stderr.
#
# Issue aim: list and get p99 under 5 ms at 100,000 stored sessions.
#
# Usage: bench/store.sh
# Environment (defaults): SESSIONS=100000 SUBJECTS=1000 STORE_THREADS=2 STORE_CONNECTIONS=32
#   DURATION=10s RUNS=3 THREADS=2 CONNECTIONS=16 WARMUP=2s STORE_BENCH_SESSIONS=2000 STORE_BENCH_RUNS=3
#   MAX_LOAD=2 LOAD_WAIT=300   wait up to LOAD_WAIT s for the 1-min load average to drop below MAX_LOAD
#   RAW_DIR=<dir>  keeps every raw wrk output there (default: a temp dir, removed at exit)
# Smoke run: SESSIONS=2000 DURATION=2s RUNS=1 LOAD_WAIT=0 bench/store.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SESSIONS=${SESSIONS:-100000}
SUBJECTS=${SUBJECTS:-1000}
STORE_THREADS=${STORE_THREADS:-2}
STORE_CONNECTIONS=${STORE_CONNECTIONS:-32}
STORE_LIMIT=${STORE_LIMIT:-1200s} # an upper bound for the store phase, not its expected length
DURATION=${DURATION:-10s}
RUNS=${RUNS:-3}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-16}
WARMUP=${WARMUP:-2s}
STORE_BENCH_SESSIONS=${STORE_BENCH_SESSIONS:-2000}
STORE_BENCH_RUNS=${STORE_BENCH_RUNS:-3}
MAX_LOAD=${MAX_LOAD:-2}
LOAD_WAIT=${LOAD_WAIT:-300}
HERE=bench/store-http

BENCH_NAME=store.sh
source bench/lib.sh

# ---- tools (idempotent) ----------------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
    log "installing wrk (apt)"
    { apt-get update -qq && apt-get install -y -qq wrk; } >&2 || die "apt-get install wrk failed"
fi

# ---- build -----------------------------------------------------------------------------------------------------
log "building motion-server and store-bench (release)"
swift build -c release --product motion-server >&2 || die "swift build motion-server failed"
swift build -c release --product store-bench >&2 || die "swift build store-bench failed"
BIN=.build/release/motion-server
[[ -x $BIN && -x .build/release/store-bench ]] || die "release binaries missing after build"

# ---- scratch, cleanup ------------------------------------------------------------------------------------------
RAW=${RAW_DIR:-$TMP/raw}
mkdir -p "$RAW"
# ---- helpers ---------------------------------------------------------------------------------------------------
load1() { cut -d' ' -f1 /proc/loadavg; }
wait_for_quiet() {
    wait_quiet "$MAX_LOAD" "$LOAD_WAIT"
    log "load average now $(load1)"
}
median() { median_to 2 "$@"; }
mib() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
db_bytes() { # the database and its WAL and shared-memory files
    local total=0 f
    for f in "$TMP/db.sqlite" "$TMP/db.sqlite-wal" "$TMP/db.sqlite-shm"; do
        [[ -f $f ]] && total=$((total + $(stat -c %s "$f")))
    done
    echo "$total"
}
file_mib() { [[ -f $1 ]] && awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }' || echo 0; }

ROWS=()
NOTES=()
declare -A P99
# bench_query LABEL WRK_ARGS... : warm-up, then RUNS measured runs; appends a Markdown row.
bench_query() {
    local label=$1
    shift
    wrk_runs "$label" "$@"
    local rps=("${WRK_RPS[@]}") p99=("${WRK_P99[@]}")
    local mrps mp99 runs_list p99_list
    mrps=$(median "${rps[@]}")
    mp99=$(median "${p99[@]}")
    P99[$label]=$mp99
    runs_list=$(printf '%.0f, ' "${rps[@]}")
    p99_list=$(printf '%s, ' "${p99[@]}")
    ROWS+=("| $label | $(printf '%.0f' "$mrps") (${runs_list%, }) | $mp99 ms (${p99_list%, }) |")
}

# ---- data ------------------------------------------------------------------------------------------------------
TEMPLATE_STATS=$("$PYTHON" "$HERE/gen.py" "$TMP/templates.txt") || die "gen.py failed"
log "templates: $TEMPLATE_STATS"

LOAD_START=$(load1)
wait_for_quiet
LOAD_BEFORE=$(load1)

# ---- store -----------------------------------------------------------------------------------------------------
start_server motion-server "$BIN" --host 127.0.0.1 --port 0 --database "$TMP/db.sqlite" --public "$PWD/Public" \
    --log-level warning
URL=${SERVER_URL%/}
RSS_IDLE=$(proc_kb "$SERVER_PID" VmRSS)

log "storing $SESSIONS sessions: wrk -t$STORE_THREADS -c$STORE_CONNECTIONS (bounded by $STORE_LIMIT)"
STORE_OUT=$RAW/store.txt
STORE_START=$(date +%s.%N)
STORE_END=""
wrk -t"$STORE_THREADS" -c"$STORE_CONNECTIONS" -d"$STORE_LIMIT" --latency -s "$HERE/store-post.lua" "$URL" \
    -- "$TMP/templates.txt" "$SESSIONS" "$SUBJECTS" "$STORE_THREADS" >"$STORE_OUT" 2>&1 &
WRK_PID=$!
# wrk's main thread sleeps for the whole -d even when every thread has stopped: when only it is left, SIGINT
# makes it print its report and exit.
running=0 # wrk has started its threads (before that, too, it has only one)
while kill -0 "$WRK_PID" 2>/dev/null; do
    threads=$(awk '$1 == "Threads:" { print $2 }' "/proc/$WRK_PID/status" 2>/dev/null || echo 0)
    ((threads > 1)) && running=1
    if ((running && threads == 1)); then
        STORE_END=$(date +%s.%N)
        kill -INT "$WRK_PID" 2>/dev/null || true
        break
    fi
    sleep 0.1
done
wrk_status=0
wait "$WRK_PID" || wrk_status=$?
((wrk_status == 0)) || die "wrk exited $wrk_status (threads seen: $running): $(cat "$STORE_OUT")"
STORE_END=${STORE_END:-$(date +%s.%N)}
kill -0 "$SERVER_PID" 2>/dev/null || die "the server died while storing"
read -r SENT OK FAILED < <(sed -n 's/^store-post: sent=\([0-9]*\) ok=\([0-9]*\) failed=\([0-9]*\)$/\1 \2 \3/p' "$STORE_OUT")
[[ -n ${OK:-} ]] || die "no store-post summary in wrk's output: $(cat "$STORE_OUT")"
((SENT == SESSIONS && OK == SESSIONS && FAILED == 0)) ||
    die "stored $OK of $SESSIONS (sent $SENT, failed $FAILED): $(cat "$STORE_OUT")"
STORE_SECONDS=$(awk -v a="$STORE_START" -v b="$STORE_END" 'BEGIN { printf "%.1f", b - a }')
STORE_RATE=$(awk -v n="$SESSIONS" -v s="$STORE_SECONDS" 'BEGIN { printf "%.0f", n / s }')
# The latency distribution mixes in the /healthz fillers of the last few requests (at most a connection's worth).
STORE_P50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$STORE_OUT")")
STORE_P99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$STORE_OUT")")
log "stored $SESSIONS sessions in $STORE_SECONDS s: $STORE_RATE sessions/s (p50 $STORE_P50 ms, p99 $STORE_P99 ms)"
RSS_STORED=$(proc_kb "$SERVER_PID" VmRSS)
HWM_STORED=$(proc_kb "$SERVER_PID" VmHWM)
DB_AFTER_STORE=$(db_bytes)

COLLECT=$("$PYTHON" "$HERE/collect.py" "$URL" "$TMP" "$SESSIONS" "$SUBJECTS") || die "collect.py failed"
log "collected: $COLLECT"

# ---- queries ---------------------------------------------------------------------------------------------------
wait_for_quiet
LOAD_QUERIES=$(load1)
bench_query 'GET /v1/sessions/{id} (random id)' -s "$HERE/get-random.lua" "$URL" -- "$TMP/ids.txt" /v1/sessions/
bench_query 'GET /v1/sessions?limit=50' "$URL/v1/sessions?limit=50"
bench_query 'GET /v1/sessions?limit=50&subject={random of '"$SUBJECTS"'}' -s "$HERE/get-random.lua" "$URL" \
    -- "$TMP/subjects.txt" '/v1/sessions?limit=50&subject='
bench_query 'GET /v1/sessions?limit=50&cursor={random depth}' -s "$HERE/get-random.lua" "$URL" \
    -- "$TMP/cursors.txt" '/v1/sessions?limit=50&cursor='
RSS_END=$(proc_kb "$SERVER_PID" VmRSS)
HWM_END=$(proc_kb "$SERVER_PID" VmHWM)
stop_server
DB_FINAL=$(db_bytes)
DB_MAIN=$(file_mib "$TMP/db.sqlite")
DB_WAL=$(file_mib "$TMP/db.sqlite-wal")
LOAD_AFTER_HTTP=$(load1)

# ---- in-process store micro-benchmark --------------------------------------------------------------------------
wait_for_quiet
LOAD_BEFORE_STORE_BENCH=$(load1)
STORE_BENCH_OUT=()
for ((run = 1; run <= STORE_BENCH_RUNS; run++)); do
    log "store-bench $STORE_BENCH_SESSIONS, run $run"
    out=$(.build/release/store-bench "$STORE_BENCH_SESSIONS" 2>&1) || die "store-bench failed: $out"
    STORE_BENCH_OUT+=("$out")
done
LOAD_AFTER=$(load1)

# ---- report ----------------------------------------------------------------------------------------------------
verdict() { awk "BEGIN { exit !($1) }" && echo "met" || echo "**not met**"; }
json_field() { "$PYTHON" -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

cpu=$(cpu_model)
n_fmt=$(printf "%'d" "$SESSIONS" 2>/dev/null || echo "$SESSIONS")
echo "### Store over HTTP ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(nproc) cores, $cpu, $(free -g | awk '/^Mem:/ { print $2 }') GiB;" \
    "$(swift --version 2>&1 | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); SQLite (embedded store, WAL)"
echo
echo "Command: \`bench/store.sh\` (SESSIONS=$SESSIONS SUBJECTS=$SUBJECTS DURATION=$DURATION RUNS=$RUNS), which runs:"
echo
echo '```'
echo "swift build -c release --product motion-server && swift build -c release --product store-bench"
echo ".build/release/motion-server --port 0 --database \$TMP/db.sqlite --public Public --log-level warning   # fresh database"
echo "wrk -t$STORE_THREADS -c$STORE_CONNECTIONS -d$STORE_LIMIT -s bench/store-http/store-post.lua \$URL -- templates.txt $SESSIONS $SUBJECTS $STORE_THREADS   # stops after $SESSIONS POST /v1/analyze"
echo "python3 bench/store-http/collect.py \$URL \$TMP $SESSIONS $SUBJECTS   # pages all ids (limit 500), checks the count"
echo "wrk -t$THREADS -c$CONNECTIONS -d$WARMUP …   # warm-up per target, not counted"
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency [-s bench/store-http/get-random.lua] \$URL/…   # $RUNS times per target"
echo ".build/release/store-bench $STORE_BENCH_SESSIONS   # $STORE_BENCH_RUNS times"
echo '```'
echo
echo "Sessions: recorded elbow-flexion sessions of $(json_field "$TEMPLATE_STATS" minFrames)–$(json_field "$TEMPLATE_STATS" maxFrames) frames" \
    "(mean $(json_field "$TEMPLATE_STATS" meanFrames), ~$(( $(json_field "$TEMPLATE_STATS" meanBytes) / 1024 )) KiB of JSON each; a third without a rep, the rest with 1–2 reps;" \
    "$(json_field "$TEMPLATE_STATS" templates) templates from bench/store-http/gen.py), $SUBJECTS subjects round-robin, one tenant."
echo
echo "Load average (1 min): $LOAD_START at the start, $LOAD_BEFORE before storing, $LOAD_QUERIES before the queries," \
    "$LOAD_AFTER_HTTP after them, $LOAD_BEFORE_STORE_BENCH before store-bench, $LOAD_AFTER at the end" \
    "(wrk and the server alone keep it near 2–3 on $(nproc) cores)."
echo
echo "**Storing:** $n_fmt sessions through \`POST /v1/analyze\` in $STORE_SECONDS s = **$STORE_RATE sessions/s**" \
    "($STORE_CONNECTIONS keep-alive connections; request latency p50 $STORE_P50 ms, p99 $STORE_P99 ms; every request answered 200," \
    "and paging \`GET /v1/sessions\` found exactly $SESSIONS sessions, newest first)."
echo
echo "**Queries at $n_fmt stored sessions** (\`wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency\`, median of $RUNS):"
echo
echo "| target | req/s, median (runs) | p99, median (runs) |"
echo "| --- | --- | --- |"
printf '%s\n' "${ROWS[@]}"
echo
echo "Database: $(awk -v b="$DB_AFTER_STORE" 'BEGIN { printf "%.1f", b / 1048576 }') MiB after storing (db + WAL + shm);" \
    "after shutdown $(awk -v b="$DB_FINAL" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (db.sqlite $DB_MAIN MiB, WAL $DB_WAL MiB)" \
    "= $(awk -v b="$DB_FINAL" -v n="$SESSIONS" 'BEGIN { printf "%.1f", b / n / 1024 }') KiB per session."
echo
echo "Server RSS: $(mib "$RSS_IDLE") MiB idle; $(mib "$RSS_STORED") MiB after storing (peak $(mib "$HWM_STORED") MiB);" \
    "$(mib "$RSS_END") MiB after the queries (peak $(mib "$HWM_END") MiB)."
echo
get_ok=$(verdict "${P99['GET /v1/sessions/{id} (random id)']} < 5")
list_ok=$(verdict "${P99['GET /v1/sessions?limit=50']} < 5")
echo "Aim (p99 < 5 ms at $n_fmt sessions): get $get_ok (${P99['GET /v1/sessions/{id} (random id)']} ms);" \
    "list $list_ok (${P99['GET /v1/sessions?limit=50']} ms); filtered list" \
    "$(verdict "${P99["GET /v1/sessions?limit=50&subject={random of $SUBJECTS}"]} < 5")" \
    "(${P99["GET /v1/sessions?limit=50&subject={random of $SUBJECTS}"]} ms); cursor page" \
    "$(verdict "${P99['GET /v1/sessions?limit=50&cursor={random depth}']} < 5")" \
    "(${P99['GET /v1/sessions?limit=50&cursor={random depth}']} ms)."
report_notes "wrk reported:" "wrk reported no socket errors and no non-2xx responses."
echo
echo "**In-process store** (\`.build/release/store-bench $STORE_BENCH_SESSIONS\`, bench/store/main.swift: SQLiteSessionStore" \
    "directly, no HTTP; each session has 10 reps and a 600-sample series; list = limit 50, half of them by subject):"
echo
echo "| run | create/s | checkpoint/s | list p50 | list p99 |"
echo "| --- | --- | --- | --- | --- |"
for ((run = 1; run <= STORE_BENCH_RUNS; run++)); do
    out=${STORE_BENCH_OUT[run - 1]}
    create=$(sed -n 's/^create: \([0-9]*\)\/s.*/\1/p' <<<"$out")
    checkpoint=$(sed -n 's/.*checkpoint: \([0-9]*\)\/s.*/\1/p' <<<"$out")
    # store-bench prints Swift Durations ("0.000294694 seconds"): shown in ms
    p50=$(sed -n 's/.*p50 \([0-9.e-]*\) seconds,.*/\1/p' <<<"$out" | awk '{ printf "%.3f ms", $1 * 1000 }')
    p99=$(sed -n 's/.*p99 \([0-9.e-]*\) seconds$/\1/p' <<<"$out" | awk '{ printf "%.3f ms", $1 * 1000 }')
    echo "| $run | $create | $checkpoint | $p50 | $p99 |"
done
echo
echo "Raw output of the last run:"
echo
echo '```'
echo "${STORE_BENCH_OUT[STORE_BENCH_RUNS - 1]}"
echo '```'
