#!/usr/bin/env bash
# `make docker-check`: proves the runtime stage of Docker/Dockerfile without a Docker daemon.
#
# Builds the static release binary here (as the build stage does), makes a Debian bookworm root with
# `debootstrap --variant=minbase` prepared by Docker/prepare-runtime.sh (exactly the packages in
# runtime-packages.txt, the user motion, /data) and lays in what the Dockerfile copies (Docker/stage.sh, same
# paths). Then it runs that root as the container would, reading the Dockerfile's USER, WORKDIR, ENV, ENTRYPOINT and
# HEALTHCHECK: the server as PID 1 of its own PID namespace, in its own network namespace (so it listens on 0.0.0.0
# as in the container and no one else sees it), as the unprivileged user, with a clean environment. It checks:
#   - every library the binary needs resolves inside the root (ldd there);
#   - the ready line, the HEALTHCHECK command run inside the container as Docker runs it, and the web front end;
#   - a short live session: motion-load streams 4 sessions, each answered and stored (summaries, close 1000);
#   - SIGTERM with sessions streaming: exit 0 after draining, the clients closed with 1001;
#   - a restart on the same /data: the drained sessions are there, checkpointed at shutdown and waiting for their
#     clients to resume them (live, not connected, their poses kept); a second SIGTERM exits 0.
#   - TLS as compose.yaml sets it up (certificates in /certs, MOTION_TLS_CERT/KEY): the HEALTHCHECK over https, the
#     front end and 2 live sessions over wss verified against the certificate, SIGHUP serving a new certificate
#     without a restart, SIGTERM exit 0.
# Mounts, the namespace and the servers are always undone, whatever fails. The prepared root is cached (keyed by
# the package list and the scripts, remade after 7 days: blackbox/support/debian-root.sh); each run unpacks a new copy.
#
# Usage: Docker/check.sh
# Environment: DOCKER_CHECK_DIR (.build-docker: the root, the cache and the static build),
#   MOTION_LOAD (a motion-load binary; default: `swift build --product motion-load`, .build/debug/motion-load)
set -euo pipefail

log() { echo "[docker-check $(date +%T)] $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
source blackbox/support/debian-root.sh

WORK=$(realpath -m "${DOCKER_CHECK_DIR:-$REPO/.build-docker}")
ROOT=$WORK/root
NETNS=motion-docker-check-$$
SERVER_WRAPPER_PID="" # `ip netns exec … unshare …`: waits for the server (PID 1 of its namespace), exits with its status
SERVER_PID=""         # the server itself, as the host sees it
SERVER_RUNS=0
LOAD_PID="" # motion-load streaming while the server drains

cleanup() {
    local status=$?
    if [[ -n $LOAD_PID ]]; then kill "$LOAD_PID" 2>/dev/null || true; fi
    if [[ -n $SERVER_WRAPPER_PID ]]; then stop_container KILL || true; fi
    if ip netns list 2>/dev/null | grep -qw "$NETNS"; then ip netns delete "$NETNS" || true; fi
    debian_root_cleanup
    if ((status == 0)); then
        debian_root_remove "$ROOT"
    else
        log "the root stays in $ROOT for a look (the server's output: $WORK/server.*.out/err)"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

debian_root_host_tools debootstrap iproute2 procps curl python3

# ---- what the Dockerfile says ------------------------------------------------------------------------------------
# Its runtime stage (after the last FROM) as shell assignments: DF_USER, DF_WORKDIR, DF_ENV (NAME=value words),
# DF_ENTRYPOINT (exec form) and DF_HEALTHCHECK (the shell-form command). Fails on a form this reader does not know
# and when the stage no longer prepares and copies the way this check does.
eval "$(python3 - Docker/Dockerfile <<'PY'
import json, shlex, sys

lines, current = [], ""
for raw in open(sys.argv[1]):
    line = raw.rstrip("\n")
    if not current and (not line.strip() or line.lstrip().startswith("#")):
        continue
    if line.endswith("\\"):
        current += line[:-1] + " "
        continue
    lines.append((current + line).strip())
    current = ""
stage = lines[max(i for i, l in enumerate(lines) if l.upper().startswith("FROM "))]
stage_lines = lines[lines.index(stage) + 1:]

def fail(message):
    print(f"echo 'Docker/Dockerfile: {message}' >&2; exit 1")
    sys.exit(0)

required = ["COPY Docker/runtime-packages.txt Docker/prepare-runtime.sh /tmp/prepare/",
            "RUN sh /tmp/prepare/prepare-runtime.sh && rm -rf /tmp/prepare", "COPY --from=build /staging/ /"]
for line in required:
    if line not in stage_lines:
        fail(f"the runtime stage no longer has '{line}', which docker-check reproduces")
out = {"DF_USER": "root", "DF_WORKDIR": "/", "DF_ENV": [], "DF_ENTRYPOINT": None, "DF_HEALTHCHECK": None}
for line in stage_lines:
    word, _, rest = line.partition(" ")
    word = word.upper()
    if word == "USER":
        out["DF_USER"] = rest.strip()
    elif word == "WORKDIR":
        out["DF_WORKDIR"] = rest.strip()
    elif word == "ENV":
        words = shlex.split(rest)
        if not all("=" in w for w in words):
            fail("ENV must use the NAME=value form")
        out["DF_ENV"] += words
    elif word == "ENTRYPOINT":
        out["DF_ENTRYPOINT"] = json.loads(rest)
    elif word == "HEALTHCHECK":
        options, cmd, command = f" {rest}".partition(" CMD ")
        if not cmd or command.startswith("["):
            fail("HEALTHCHECK must be `HEALTHCHECK [options] CMD <shell command>`")
        out["DF_HEALTHCHECK"] = command
if not isinstance(out["DF_ENTRYPOINT"], list) or not out["DF_HEALTHCHECK"]:
    fail("the runtime stage needs an exec-form ENTRYPOINT and a HEALTHCHECK")
for name, value in out.items():
    if isinstance(value, list):
        print(f"{name}=({' '.join(shlex.quote(v) for v in value)})")
    else:
        print(f"{name}={shlex.quote(value)}")
PY
)"
log "Dockerfile: USER $DF_USER, WORKDIR $DF_WORKDIR, ENV ${DF_ENV[*]}, ENTRYPOINT ${DF_ENTRYPOINT[*]}"
CONTAINER_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOSTNAME=docker-check "${DF_ENV[@]}")
PORT="" DATABASE=""
for assignment in "${DF_ENV[@]}"; do
    case $assignment in
    MOTION_PORT=*) PORT=${assignment#*=} ;;
    MOTION_DATABASE=*) DATABASE=${assignment#*=} ;;
    esac
done
[[ -n $PORT && $DATABASE == /* ]] || die "the Dockerfile sets no MOTION_PORT or no absolute MOTION_DATABASE"

# ---- the build stage's binary, and the client ---------------------------------------------------------------------
log "swift build -c release --static-swift-stdlib --product motion-server (scratch: $WORK/swift)"
swift build -c release --static-swift-stdlib --product motion-server --scratch-path "$WORK/swift" >&2 ||
    die "the static release build failed"
BINARY=$WORK/swift/release/motion-server
if [[ -z ${MOTION_LOAD:-} ]]; then
    swift build --product motion-load >&2 || die "building motion-load failed"
    MOTION_LOAD=$REPO/.build/debug/motion-load
fi

# ---- the runtime root ---------------------------------------------------------------------------------------------
prepare_runtime() { # Dockerfile: COPY runtime-packages.txt and prepare-runtime.sh, RUN the script, remove them
    mkdir -p "$1/tmp/prepare"
    cp Docker/runtime-packages.txt Docker/prepare-runtime.sh "$1/tmp/prepare/"
    debian_root_run "$1" sh /tmp/prepare/prepare-runtime.sh >&2
    rm -rf "$1/tmp/prepare"
}
debian_root_remove "$ROOT"
debian_root_prepare "$WORK/cache" bookworm-runtime \
    "$(cat Docker/runtime-packages.txt Docker/prepare-runtime.sh)" prepare_runtime "$ROOT"
rm -rf "$WORK/staging"
Docker/stage.sh "$BINARY" "$WORK/staging" # Dockerfile: the build stage's stage.sh, then COPY --from=build /staging/ /
cp -a "$WORK/staging/." "$ROOT/"
debian_root_mount_system "$ROOT"

unresolved=$(debian_root_run "$ROOT" ldd "${DF_ENTRYPOINT[0]}" | grep 'not found' || true)
[[ -z $unresolved ]] || die "libraries the binary needs are not in the runtime packages: $unresolved"
log "the binary links: $(debian_root_run "$ROOT" ldd "${DF_ENTRYPOINT[0]}" | awk '{print $1}' | xargs)"
if [[ $DF_USER =~ ^[0-9]+:[0-9]+$ ]]; then
    USER_IDS=$DF_USER
else
    USER_IDS=$(debian_root_run "$ROOT" sh -c "echo \$(id -u $DF_USER):\$(id -g $DF_USER)") ||
        die "no user $DF_USER in the root"
fi
[[ $USER_IDS != 0:* ]] || die "the Dockerfile runs the server as root"
[[ $(debian_root_run "$ROOT" id -un "${USER_IDS%%:*}") == motion ]] ||
    die "uid ${USER_IDS%%:*} is not the user motion that prepare-runtime.sh adds"

ip netns add "$NETNS"
ip -n "$NETNS" link set lo up
in_netns() { ip netns exec "$NETNS" "$@"; }

# in_container COMMAND... : COMMAND as the container runs things: its user, environment, working folder, network.
in_container() {
    in_netns chroot --userspec="$USER_IDS" "$ROOT" /usr/bin/env -i "${CONTAINER_ENV[@]}" \
        /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$DF_WORKDIR" "$@"
}

# container_init PID : the process under PID (itself or a descendant) that is PID 1 of its own PID namespace.
container_init() {
    local pid queue=("$1")
    while ((${#queue[@]})); do
        pid=${queue[0]}
        queue=("${queue[@]:1}")
        if [[ $(awk '/^NSpid:/ {print NF, $NF}' "/proc/$pid/status" 2>/dev/null) == [3-9]" 1" ]]; then
            echo "$pid"
            return 0
        fi
        mapfile -t -O "${#queue[@]}" queue < <(pgrep -P "$pid" || true)
    done
}

# start_container : the ENTRYPOINT as PID 1 of a new PID namespace; waits for the ready line.
start_container() {
    local out line="" i
    SERVER_RUNS=$((SERVER_RUNS + 1))
    out=$WORK/server.$SERVER_RUNS.out
    in_netns unshare --pid --fork --mount-proc="$ROOT/proc" \
        chroot --userspec="$USER_IDS" "$ROOT" /usr/bin/env -i "${CONTAINER_ENV[@]}" \
        /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$DF_WORKDIR" "${DF_ENTRYPOINT[@]}" \
        >"$out" 2>"$WORK/server.$SERVER_RUNS.err" </dev/null &
    SERVER_WRAPPER_PID=$!
    for ((i = 0; i < 300; i++)); do
        [[ -n $SERVER_PID ]] || SERVER_PID=$(container_init "$SERVER_WRAPPER_PID")
        line=$(grep -m1 -o 'listening on [^ ]*' "$out" 2>/dev/null || true)
        [[ -n $line && -n $SERVER_PID ]] && break
        kill -0 "$SERVER_WRAPPER_PID" 2>/dev/null ||
            { cat "$WORK/server.$SERVER_RUNS.err" >&2; die "the server exited before it was ready"; }
        sleep 0.1
    done
    [[ -n $line ]] || die "the server printed no ready line within 30 s"
    [[ $line == "listening on $SCHEME://0.0.0.0:$PORT" ]] || die "ready line '$line', expected $SCHEME://0.0.0.0:$PORT"
    local uid nspid
    uid=$(awk '/^Uid:/ {print $2}' "/proc/$SERVER_PID/status")
    nspid=$(awk '/^NSpid:/ {print $NF}' "/proc/$SERVER_PID/status")
    [[ $uid == "${USER_IDS%%:*}" && $nspid == 1 ]] ||
        die "the server runs as uid $uid with PID $nspid in its namespace (expected ${USER_IDS%%:*}, 1)"
    log "server up (run $SERVER_RUNS): $line, uid $uid, PID 1 in its namespace (host PID $SERVER_PID)"
}

# stop_container [SIGNAL] : sends SIGNAL (TERM) to the server and waits up to 20 s; SERVER_STATUS is its status.
stop_container() {
    local signal=${1:-TERM} i
    SERVER_STATUS=""
    [[ -n $SERVER_WRAPPER_PID ]] || return 0
    [[ -n $SERVER_PID ]] && kill "-$signal" "$SERVER_PID" 2>/dev/null
    for ((i = 0; i < 200; i++)); do
        kill -0 "$SERVER_WRAPPER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$SERVER_WRAPPER_PID" 2>/dev/null && kill -KILL "$SERVER_PID" "$SERVER_WRAPPER_PID" 2>/dev/null
    SERVER_STATUS=0
    wait "$SERVER_WRAPPER_PID" 2>/dev/null || SERVER_STATUS=$?
    SERVER_WRAPPER_PID=""
    SERVER_PID=""
}

http_get() { in_netns curl --fail --silent --show-error --max-time 10 "http://127.0.0.1:$PORT$1"; }

# json_check JSON PYTHON_EXPRESSION MESSAGE : fails with MESSAGE unless the expression over `j` is true.
json_check() {
    python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2" ||
        die "$3: $1"
}

sessions_with() { http_get "/v1/sessions?subject=$1&limit=500"; }

SCHEME=http

# ---- run 1: health, front end, a live session, SIGTERM while streaming --------------------------------------------
start_container
in_container /bin/sh -c "$DF_HEALTHCHECK" || die "the HEALTHCHECK command failed: $DF_HEALTHCHECK"
log "HEALTHCHECK passes: $DF_HEALTHCHECK"
[[ $(http_get /) == *"<html"* ]] || die "GET / did not serve Public/index.html"
log "GET / serves the web front end"

report=$(in_netns "$MOTION_LOAD" --url "ws://127.0.0.1:$PORT/v1/stream" --sessions 4 --rate 30 --seconds 3 \
    --ramp-rate 0 --exercise elbowFlexion --subject docker-check --json --quiet) || die "motion-load failed: $report"
json_check "$report" 'j["run"]["summaries"] == 4 and j["run"]["closes"] == {"1000": 4} and j["run"]["errors"] == 0
    and j["run"]["unanswered"] == 0 and j["run"]["snapshots"] == j["run"]["frames_sent"] > 4 * 30' \
    "the live session was not answered in full"
json_check "$(sessions_with docker-check)" \
    'len(j["sessions"]) == 4 and all(s["status"] == "finished" for s in j["sessions"])' "the sessions were not stored"
log "live: 4 sessions streamed $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["run"]["frames_sent"])' \
    "$report") poses, every one answered, 4 summaries, stored as finished"

in_netns "$MOTION_LOAD" --url "ws://127.0.0.1:$PORT/v1/stream" --sessions 3 --rate 30 --seconds 6 --ramp-rate 0 \
    --subject docker-drain --json --quiet >"$WORK/drain.json" 2>"$WORK/drain.err" &
LOAD_PID=$!
for ((i = 0; i < 100; i++)); do
    live=$(sessions_with docker-drain | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["sessions"]))')
    ((live == 3)) && break
    sleep 0.1
done
((live == 3)) || die "the 3 streaming sessions did not start"
sleep 1
stop_container TERM
wait "$LOAD_PID" || true # motion-load counts the server's close 1001 as a failure
LOAD_PID=""
[[ $SERVER_STATUS == 0 ]] || { cat "$WORK/server.$SERVER_RUNS.err" >&2; die "SIGTERM: exit status $SERVER_STATUS"; }
json_check "$(cat "$WORK/drain.json")" 'j["run"]["closes"] == {"1001": 3}' "SIGTERM did not close the streams with 1001"
log "SIGTERM while 3 sessions streamed: exit 0, the streams closed with 1001"

# ---- run 2: the same /data after a restart ------------------------------------------------------------------------
start_container
json_check "$(sessions_with docker-drain)" \
    'len(j["sessions"]) == 3 and all(s["status"] == "live" and s["connected"] is False and s["frames"] > 0
        for s in j["sessions"])' \
    "the drained sessions are not kept resumable (live, not connected, with their poses)"
json_check "$(sessions_with docker-check)" 'len(j["sessions"]) == 4' "the first run's sessions are gone"
stop_container TERM
[[ $SERVER_STATUS == 0 ]] || die "SIGTERM after the restart: exit status $SERVER_STATUS"
log "restart on the same /data: the 3 drained sessions kept resumable, the 4 finished ones kept; SIGTERM: exit 0"
# ---- run 3: TLS from mounted certificates (compose.yaml's MOTION_TLS_CERT/KEY), SIGHUP reload --------------------
CERTS=$REPO/Tests/HTTPServerTests/Fixtures/tls
mkdir -p "$ROOT/certs"
install_certificate() { # NAME : the test pair NAME as /certs/fullchain.pem and /certs/privkey.pem, readable by the user
    cp "$CERTS/$1.pem" "$ROOT/certs/fullchain.pem.new" && mv "$ROOT/certs/fullchain.pem.new" "$ROOT/certs/fullchain.pem"
    cp "$CERTS/$1.key" "$ROOT/certs/privkey.pem.new" && mv "$ROOT/certs/privkey.pem.new" "$ROOT/certs/privkey.pem"
    chown "$USER_IDS" "$ROOT/certs/privkey.pem"
    chmod 600 "$ROOT/certs/privkey.pem"
}
install_certificate ecdsa
PLAIN_ENV=("${CONTAINER_ENV[@]}")
CONTAINER_ENV+=(MOTION_TLS_CERT=/certs/fullchain.pem MOTION_TLS_KEY=/certs/privkey.pem)
SCHEME=https
start_container
in_container /bin/sh -c "$DF_HEALTHCHECK" || die "the HEALTHCHECK command failed over TLS: $DF_HEALTHCHECK"
log "HEALTHCHECK passes over https"
https_get() { in_netns curl --fail --silent --show-error --max-time 10 --cacert "$CERTS/$1.pem" "https://localhost:$PORT$2"; }
[[ $(https_get ecdsa /) == *"<html"* ]] || die "GET / over https did not serve the front end"
report=$(in_netns "$MOTION_LOAD" --url "wss://127.0.0.1:$PORT/v1/stream" --ca "$CERTS/ecdsa.pem" --sessions 2 --rate 30 \
    --seconds 2 --ramp-rate 0 --subject docker-tls --json --quiet) || die "motion-load over wss failed: $report"
json_check "$report" 'j["run"]["summaries"] == 2 and j["run"]["closes"] == {"1000": 2} and j["run"]["errors"] == 0' \
    "the wss sessions were not answered in full"
log "wss: 2 live sessions answered in full, verified against the mounted certificate"
install_certificate ecdsa2
kill -HUP "$SERVER_PID"
for ((i = 0; i < 50; i++)); do
    https_get ecdsa2 /healthz >/dev/null 2>&1 && break
    sleep 0.1
done
https_get ecdsa2 /healthz >/dev/null || die "after SIGHUP the server does not present the new certificate"
kill -0 "$SERVER_PID" || die "SIGHUP ended the server"
log "SIGHUP: the new certificate is served, the server kept running"
stop_container TERM
[[ $SERVER_STATUS == 0 ]] || die "SIGTERM over TLS: exit status $SERVER_STATUS"
CONTAINER_ENV=("${PLAIN_ENV[@]}")
log "TLS run: SIGTERM: exit 0"

owner=$(stat -c %u:%g "$ROOT$DATABASE") || die "no database at $DATABASE"
[[ $owner == "$USER_IDS" ]] || die "$DATABASE belongs to $owner, not $DF_USER ($USER_IDS)"
echo "docker-check: passed (runtime root of $(grep -cv '^\s*\(#\|$\)' Docker/runtime-packages.txt) packages from" \
    "Docker/runtime-packages.txt, $(du -shx "$ROOT" | cut -f1); static binary $(du -h "$BINARY" | cut -f1))"
