#!/usr/bin/env bash
# Store benchmark over HTTP: how fast the release motion-server stores sessions through POST /v1/analyze, then
# GET /v1/sessions/{id} and list queries at SESSIONS stored sessions (req/s, p99, and the CPU per request of the
# server and, with PostgreSQL, of PostgreSQL's processes), the database's size and the server's RSS; then the in-process store micro-benchmark (bench/store, no HTTP): creates, checkpoints one by one
# and batched as live sessions write them, list latency. Prints a Markdown block for bench/RESULTS.md on stdout;
# progress, installs and build output go to stderr.
#
# Issue aims: list and get p99 under 5 ms at 100,000 stored sessions (issue 5 on SQLite, issue 20 on PostgreSQL).
#
# Usage: bench/store.sh
# Environment (defaults): SESSIONS=100000 SUBJECTS=1000 STORE_THREADS=2 STORE_CONNECTIONS=32
#   DURATION=10s RUNS=3 THREADS=2 CONNECTIONS=16 WARMUP=2s STORE_BENCH_SESSIONS=2000 STORE_BENCH_RUNS=3
#   DATABASE=sqlite   the server's store: `sqlite` (embedded, a file in the temp dir) or `postgres`: a PostgreSQL
#       server this script starts (Debian's `postgresql` package, installed with apt when missing; `initdb` into a
#       temp dir, Unix socket only, no TCP; as root it runs as the `postgres` user, since PostgreSQL refuses root).
#       With `postgres` the in-process benchmark runs on both stores, alternating within each run, with
#       PostgreSQL/SQLite ratios.
#   PG_OPTIONS=""   extra server settings for `postgres` (e.g. "-c synchronous_commit=off"); by default PostgreSQL's
#       own (fsync and synchronous_commit on), as a production server has them
#   MAX_LOAD=2 LOAD_WAIT=300   wait up to LOAD_WAIT s for the 1-min load average to drop below MAX_LOAD
#   RAW_DIR=<dir>  keeps every raw wrk output there (default: a temp dir, removed at exit)
# Smoke run: SESSIONS=2000 DURATION=2s RUNS=1 STORE_BENCH_SESSIONS=200 STORE_BENCH_RUNS=1 LOAD_WAIT=0 bench/store.sh
#   (and the same with DATABASE=postgres)
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
DATABASE=${DATABASE:-sqlite}
PG_OPTIONS=${PG_OPTIONS:-}
MAX_LOAD=${MAX_LOAD:-2}
LOAD_WAIT=${LOAD_WAIT:-300}
HERE=bench/store-http

BENCH_NAME=store.sh
source bench/lib.sh
[[ $DATABASE == sqlite || $DATABASE == postgres ]] || die "DATABASE must be sqlite or postgres, not $DATABASE"

# ---- tools (idempotent) ----------------------------------------------------------------------------------------
if ! command -v wrk >/dev/null; then
    log "installing wrk (apt)"
    { apt-get update -qq && apt-get install -y -qq wrk; } >&2 || die "apt-get install wrk failed"
fi
pg_bin() { find /usr/lib/postgresql -path '*/bin/pg_ctl' 2>/dev/null | sort -V | tail -1 | xargs -r dirname; }
if [[ $DATABASE == postgres && -z $(pg_bin) ]]; then
    log "installing postgresql (apt)"
    { apt-get update -qq && apt-get install -y -qq postgresql; } >&2 || die "apt-get install postgresql failed"
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
# ---- PostgreSQL (DATABASE=postgres) ------------------------------------------------------------------------------
# A throwaway server as blackbox/support/cluster.py and Tests/PostgresSupport start one: initdb into a directory of
# its own (outside $TMP, which only root may enter), listening on a Unix socket there.
PG_DIR=""
PG_AS=()
pg() { "${PG_AS[@]}" "$@" >>"$TMP/postgres-commands.log" 2>&1; }
pg_start() {
    PG_BIN=$(pg_bin)
    PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/$BENCH_NAME-pg.XXXXXX")
    if ((EUID == 0)); then
        chown postgres: "$PG_DIR"
        PG_AS=(runuser -u postgres --)
    fi
    log "starting PostgreSQL ($("$PG_BIN/postgres" --version)) in $PG_DIR${PG_OPTIONS:+ with $PG_OPTIONS}"
    pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust --encoding=UTF8 --locale=C --no-sync ||
        die "initdb failed: $(cat "$TMP/postgres-commands.log")"
    pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
        -o "-k $PG_DIR -c listen_addresses='' $PG_OPTIONS" start || die "pg_ctl start failed: $(cat "$PG_DIR/server.log")"
    pg "$PG_BIN/createdb" -h "$PG_DIR" -U postgres motion || die "createdb failed"
}
pg_url() { echo "postgres://postgres@/$1?host=$PG_DIR"; }
pg_sql() { "$PG_BIN/psql" -h "$PG_DIR" -U postgres -d "$1" -Atqc "$2"; }
pg_stop() {
    [[ -n $PG_DIR ]] || return 0
    pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop || true
    rm -rf "$PG_DIR"
    PG_DIR=""
}
bench_before_cleanup() {
    stop_server # before its database goes
    pg_stop
}

# ---- helpers ---------------------------------------------------------------------------------------------------
load1() { cut -d' ' -f1 /proc/loadavg; }
wait_for_quiet() {
    wait_quiet "$MAX_LOAD" "$LOAD_WAIT"
    log "load average now $(load1)"
}
median() { median_to 2 "$@"; }
mib() { awk -v kb="$1" 'BEGIN { printf "%.1f", kb / 1024 }'; }
db_bytes() { # the database and its WAL and shared-memory files; PostgreSQL: pg_database_size
    if [[ $DATABASE == postgres ]]; then
        pg_sql motion "SELECT pg_database_size('motion')"
        return
    fi
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
# The CPU each query costs: the server's, and with PostgreSQL its server's (the postmaster and every backend).
CPU_GROUPS=(server)
[[ $DATABASE == postgres ]] && CPU_GROUPS+=(database)
cpu_pids() {
    if [[ $1 == server ]]; then
        echo "$SERVER_PID"
    else
        local postmaster
        postmaster=$(head -1 "$PG_DIR/data/postmaster.pid")
        echo "$postmaster" $(pgrep -P "$postmaster")
    fi
}
# bench_query LABEL WRK_ARGS... : warm-up, then RUNS measured runs; appends a Markdown row.
bench_query() {
    local label=$1 group per_run
    shift
    wrk_runs "$label" "$@"
    local rps=("${WRK_RPS[@]}") p99=("${WRK_P99[@]}")
    local mrps mp99 runs_list p99_list row
    mrps=$(median "${rps[@]}")
    mp99=$(median "${p99[@]}")
    P99[$label]=$mp99
    runs_list=$(printf '%.0f, ' "${rps[@]}")
    p99_list=$(printf '%s, ' "${p99[@]}")
    row="| $label | $(printf '%.0f' "$mrps") (${runs_list%, }) | $mp99 ms (${p99_list%, }) |"
    for group in "${CPU_GROUPS[@]}"; do
        read -ra per_run <<<"${WRK_CPU[$group]}"
        row+=" $(median_to 0 "${per_run[@]}") ($(printf "%s, " "${per_run[@]}" | sed "s/, $//")) |"
    done
    ROWS+=("$row")
}

# ---- data ------------------------------------------------------------------------------------------------------
TEMPLATE_STATS=$("$PYTHON" "$HERE/gen.py" "$TMP/templates.txt") || die "gen.py failed"
log "templates: $TEMPLATE_STATS"

LOAD_START=$(load1)
wait_for_quiet
LOAD_BEFORE=$(load1)

# ---- store -----------------------------------------------------------------------------------------------------
if [[ $DATABASE == postgres ]]; then
    pg_start
    SERVER_DATABASE=$(pg_url motion)
else
    SERVER_DATABASE=$TMP/db.sqlite
fi
start_server motion-server "$BIN" --host 127.0.0.1 --port 0 --database "$SERVER_DATABASE" --public "$PWD/Public" \
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
# Statistics, as autovacuum gathers them within a minute of a table's growth: a bulk load faster than that leaves
# PostgreSQL planning on guesses (a list at 2,000 sessions ran 5-7x slower before its first ANALYZE).
[[ $DATABASE == postgres ]] && { pg_sql motion "ANALYZE" || die "ANALYZE failed"; }
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
if [[ $DATABASE == postgres ]]; then
    PG_DATA_BYTES=$(du -sb "$PG_DIR/data" | cut -f1)
    PG_WAL_BYTES=$(du -sb "$PG_DIR/data/pg_wal" | cut -f1)
    pg "$PG_BIN/dropdb" -h "$PG_DIR" -U postgres motion || die "dropdb failed"
fi
LOAD_AFTER_HTTP=$(load1)

# ---- in-process store micro-benchmark --------------------------------------------------------------------------
wait_for_quiet
LOAD_BEFORE_STORE_BENCH=$(load1)
# With PostgreSQL: both stores in every run, alternating which goes first; each PostgreSQL run on a new database.
STORES=(sqlite)
[[ $DATABASE == postgres ]] && STORES=(sqlite postgres)
declare -A STORE_BENCH_OUT
for ((run = 1; run <= STORE_BENCH_RUNS; run++)); do
    order=("${STORES[@]}")
    ((run % 2 == 0 && ${#STORES[@]} == 2)) && order=(postgres sqlite)
    for store in "${order[@]}"; do
        args=("$STORE_BENCH_SESSIONS")
        if [[ $store == postgres ]]; then
            pg "$PG_BIN/createdb" -h "$PG_DIR" -U postgres "store_bench_$run" || die "createdb failed"
            args+=(--database "$(pg_url "store_bench_$run")")
        fi
        log "store-bench ${args[*]}, run $run"
        out=$(.build/release/store-bench "${args[@]}" 2>&1) || die "store-bench failed: $out"
        STORE_BENCH_OUT[$store.$run]=$out
        [[ $store == postgres ]] && { pg "$PG_BIN/dropdb" -h "$PG_DIR" -U postgres "store_bench_$run" || true; }
    done
done
LOAD_AFTER=$(load1)

# ---- report ----------------------------------------------------------------------------------------------------
verdict() { awk "BEGIN { exit !($1) }" && echo "met" || echo "**not met**"; }
json_field() { "$PYTHON" -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

cpu=$(cpu_model)
n_fmt=$(printf "%'d" "$SESSIONS" 2>/dev/null || echo "$SESSIONS")
if [[ $DATABASE == postgres ]]; then
    store_name="PostgreSQL"
    pg_settings="PostgreSQL's defaults, fsync and synchronous_commit on"
    [[ -n $PG_OPTIONS ]] && pg_settings="the defaults and $PG_OPTIONS"
    store_line="$("$PG_BIN/postgres" --version | sed 's/^postgres (PostgreSQL) /PostgreSQL /')"
    store_line+=" (a server of the script's own on a Unix socket; settings: $pg_settings)"
    server_database="'postgres://postgres@/motion?host=\$PGDIR'"
else
    store_name="SQLite"
    store_line="SQLite (embedded store, WAL)"
    server_database="\$TMP/db.sqlite"
fi
echo "### Store over HTTP on $store_name ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $(nproc) cores, $cpu, $(free -g | awk '/^Mem:/ { print $2 }') GiB;" \
    "$(swift --version 2>&1 | head -1); $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2); $store_line"
echo
echo "Command: \`DATABASE=$DATABASE bench/store.sh\` (SESSIONS=$SESSIONS SUBJECTS=$SUBJECTS DURATION=$DURATION RUNS=$RUNS" \
    "STORE_BENCH_SESSIONS=$STORE_BENCH_SESSIONS STORE_BENCH_RUNS=$STORE_BENCH_RUNS${PG_OPTIONS:+ PG_OPTIONS=\"$PG_OPTIONS\"}), which runs:"
echo
echo '```'
echo "swift build -c release --product motion-server && swift build -c release --product store-bench"
if [[ $DATABASE == postgres ]]; then
    echo "initdb -D \$PGDIR/data --auth=trust && pg_ctl -D \$PGDIR/data -o \"-k \$PGDIR -c listen_addresses=''${PG_OPTIONS:+ $PG_OPTIONS}\" start && createdb motion   # as the postgres user"
fi
echo ".build/release/motion-server --port 0 --database $server_database --public Public --log-level warning   # fresh database"
echo "wrk -t$STORE_THREADS -c$STORE_CONNECTIONS -d$STORE_LIMIT -s bench/store-http/store-post.lua \$URL -- templates.txt $SESSIONS $SUBJECTS $STORE_THREADS   # stops after $SESSIONS POST /v1/analyze"
echo "python3 bench/store-http/collect.py \$URL \$TMP $SESSIONS $SUBJECTS   # pages all ids (limit 500), checks the count"
echo "wrk -t$THREADS -c$CONNECTIONS -d$WARMUP …   # warm-up per target, not counted"
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency [-s bench/store-http/get-random.lua] \$URL/…   # $RUNS times per target"
if [[ $DATABASE == postgres ]]; then
    echo ".build/release/store-bench $STORE_BENCH_SESSIONS; .build/release/store-bench $STORE_BENCH_SESSIONS --database 'postgres://postgres@/store_bench_N?host=\$PGDIR'   # $STORE_BENCH_RUNS times, alternating which goes first; a new database each time"
else
    echo ".build/release/store-bench $STORE_BENCH_SESSIONS   # $STORE_BENCH_RUNS times"
fi
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
if [[ $DATABASE == postgres ]]; then
    echo "| target | req/s, median (runs) | p99, median (runs) | server CPU µs per request | PostgreSQL CPU µs per request |"
    echo "| --- | --- | --- | --- | --- |"
else
    echo "| target | req/s, median (runs) | p99, median (runs) | server CPU µs per request |"
    echo "| --- | --- | --- | --- |"
fi
printf '%s\n' "${ROWS[@]}"
echo
if [[ $DATABASE == postgres ]]; then
    echo "Database: $(awk -v b="$DB_AFTER_STORE" 'BEGIN { printf "%.1f", b / 1048576 }') MiB after storing (pg_database_size);" \
        "$(awk -v b="$DB_FINAL" 'BEGIN { printf "%.1f", b / 1048576 }') MiB after the queries" \
        "= $(awk -v b="$DB_FINAL" -v n="$SESSIONS" 'BEGIN { printf "%.1f", b / n / 1024 }') KiB per session;" \
        "the whole data directory $(awk -v b="$PG_DATA_BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB" \
        "(WAL $(awk -v b="$PG_WAL_BYTES" 'BEGIN { printf "%.1f", b / 1048576 }') MiB)."
else
    echo "Database: $(awk -v b="$DB_AFTER_STORE" 'BEGIN { printf "%.1f", b / 1048576 }') MiB after storing (db + WAL + shm);" \
        "after shutdown $(awk -v b="$DB_FINAL" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (db.sqlite $DB_MAIN MiB, WAL $DB_WAL MiB)" \
        "= $(awk -v b="$DB_FINAL" -v n="$SESSIONS" 'BEGIN { printf "%.1f", b / n / 1024 }') KiB per session."
fi
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
store_label() { [[ $1 == postgres ]] && echo PostgreSQL || echo SQLite; }
# bench_field STORE SED_EXPRESSION : that figure of every run of STORE, one per line.
bench_field() {
    local run
    for ((run = 1; run <= STORE_BENCH_RUNS; run++)); do sed -n "$2" <<<"${STORE_BENCH_OUT[$1.$run]}"; done
}
FIELDS=(
    's/^create: \([0-9]*\)\/s.*/\1/p'
    's/.*checkpoint: \([0-9]*\)\/s$/\1/p'
    's/^batched checkpoint: \([0-9]*\)\/s.*/\1/p'
    's/.*batch p50 \([0-9.]*\) ms,.*/\1/p'
    's/^list (limit 50): .*p99 \([0-9.]*\) ms$/\1/p'
    's/^get (.*p99 \([0-9.]*\) ms$/\1/p'
    's/^[0-9]* clients reading at once.*p99 \([0-9.]*\) ms$/\1/p'
)
declare -A MEDIANS
echo
echo "**In-process store** (\`.build/release/store-bench $STORE_BENCH_SESSIONS\`, bench/store/main.swift: the store" \
    "directly, no HTTP, $STORE_BENCH_SESSIONS sessions with 10 reps and a 600-sample series each; checkpoint = one" \
    "transaction per session; batched = the live path, 2,500 live sessions checkpointing with an 808-byte engine state" \
    "and 5 s more of series and a rep, 25 a transaction as \`CheckpointBatcher\` gathers them, 3 rounds; list = limit" \
    "50, half of them by subject; get = one session with its reps and series; 16 readers = 16 tasks at once, each" \
    "reading 50 times in turn a page, a page by subject and a session; median of $STORE_BENCH_RUNS (runs)):"
echo
echo "| store | create/s | checkpoint/s, one by one | checkpoint/s, batched | batch of 25, p50 | list p99 | get p99 | 16 readers p99 |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for store in "${STORES[@]}"; do
    row="| $(store_label "$store") |"
    for ((f = 0; f < ${#FIELDS[@]}; f++)); do
        mapfile -t values < <(bench_field "$store" "${FIELDS[f]}")
        ((${#values[@]} == STORE_BENCH_RUNS)) || die "could not parse store-bench output: ${STORE_BENCH_OUT[$store.1]}"
        if ((f <= 2)); then median=$(median_to 0 "${values[@]}"); else median=$(median_to 3 "${values[@]}"); fi
        MEDIANS[$store.$f]=$median
        unit=""
        ((f >= 3)) && unit=" ms"
        list=$(printf '%s, ' "${values[@]}")
        row+=" **$median$unit** (${list%, }) |"
    done
    echo "$row"
done
if ((${#STORES[@]} == 2)); then
    row="| PostgreSQL ÷ SQLite |"
    for ((f = 0; f < ${#FIELDS[@]}; f++)); do
        row+=" $(awk -v a="${MEDIANS[postgres.$f]}" -v b="${MEDIANS[sqlite.$f]}" 'BEGIN { printf "%.2f×", a / b }') |"
    done
    echo "$row"
fi
for store in "${STORES[@]}"; do
    echo
    echo "Raw output of the last run, $(store_label "$store"):"
    echo
    echo '```'
    echo "${STORE_BENCH_OUT[$store.$STORE_BENCH_RUNS]}"
    echo '```'
done
