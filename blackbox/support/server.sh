# Starting and stopping a server under test, for bash scripts (bench/lib.sh, blackbox/fuzz/schemathesis.sh).
# The sourcing script defines log and die and sets TMP (a directory for the server's output).
SERVER_STARTS=0
SERVER_PID=""
SERVER_ERR=/dev/null
SERVER_URL=""
SERVER_STATUS=""

# start_server NAME CMD... : starts it in the background, waits up to 30 s for its listening line; sets
# SERVER_PID and SERVER_URL (http://HOST:PORT).
start_server() {
    local name=$1 out line="" i
    shift
    # A new file per start: a background child truncates its output file only once it runs, so reusing one could
    # let the grep below read the previous instance's port.
    SERVER_STARTS=$((SERVER_STARTS + 1))
    out=$TMP/$name.$SERVER_STARTS.out
    SERVER_ERR=$TMP/$name.$SERVER_STARTS.err
    "$@" >"$out" 2>"$SERVER_ERR" &
    SERVER_PID=$!
    for ((i = 0; i < 300; i++)); do
        line=$(grep -m1 -o 'listening on https\?://[^ ]*' "$out" 2>/dev/null || true)
        [[ -n $line ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_ERR" >&2; die "$name exited before it was ready"; }
        sleep 0.1
    done
    [[ -n $line ]] || die "$name did not print its listening line within 30 s"
    SERVER_URL=${line#listening on }
    log "$name (pid $SERVER_PID) listening on $SERVER_URL"
}

# stop_server : SIGTERM (the server drains), SIGKILL after 15 s; SERVER_STATUS is then its exit status (137 when it
# had to be killed, empty when none was running). Always returns 0.
stop_server() {
    local pid=$SERVER_PID i
    SERVER_PID=""
    SERVER_STATUS=""
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "server $pid ignored SIGTERM for 15 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    SERVER_STATUS=0
    wait "$pid" 2>/dev/null || SERVER_STATUS=$?
}
