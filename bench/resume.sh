#!/usr/bin/env bash
# Resuming sessions (docs/resume.md): resume latency from memory under load, after a restart (SIGTERM and SIGKILL,
# every session resuming at once), checkpoint bytes per session-minute, and the capacity with a share of the
# sessions dropping and resuming. Prints a Markdown block for bench/RESULTS.md; progress goes to stderr.
#
# Usage: bench/resume.sh
# Environment (defaults): SESSIONS=1000 SECONDS_=30 DROP_EVERY=10 DROP_SHARE=0.1 RESTART_SESSIONS=200
#   RESTART_SECONDS=60 RUNS=3
#   SESSIONS, SECONDS_  the steady motion-load run whose dropping sessions measure resume latency from memory
#   DROP_EVERY, DROP_SHARE  that share of the sessions abort and resume every DROP_EVERY seconds
#   RESTART_SESSIONS, RESTART_SECONDS  bench/resume.py: sessions streamed for that long, then the server restarted
# Capacity with drops: DROP_EVERY=60 bench/capacity.sh (capacity.sh passes DROP_EVERY and DROP_SHARE on).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=resume.sh
source bench/lib.sh

SESSIONS=${SESSIONS:-1000}
SECONDS_=${SECONDS_:-30}
DROP_EVERY=${DROP_EVERY:-10}
DROP_SHARE=${DROP_SHARE:-0.1}
RESTART_SESSIONS=${RESTART_SESSIONS:-200}
RESTART_SECONDS=${RESTART_SECONDS:-60}
RUNS=${RUNS:-3}

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
log "building motion-server and motion-load (release)"
swift build -c release --product motion-server >&2 || die "swift build motion-server failed"
swift build -c release --product motion-load >&2 || die "swift build motion-load failed"
SERVER=.build/release/motion-server
LOAD=.build/release/motion-load
MACHINE=$(machine_line)

memory_p50=()
memory_p99=()
for ((run = 1; run <= RUNS; run++)); do
    start_server motion-server "$SERVER" --host 127.0.0.1 --port 0 --log-level warning --database "$TMP/m$run.sqlite"
    log "memory run $run: $SESSIONS sessions, ${DROP_SHARE} of them dropping every ${DROP_EVERY} s"
    "$LOAD" --url "ws://${SERVER_URL#*://}/v1/stream" --sessions "$SESSIONS" --seconds "$SECONDS_" --poll \
        --tick-us 1000 --drop-every "$DROP_EVERY" --drop-share "$DROP_SHARE" --server-pid "$SERVER_PID" --json \
        --quiet >"$TMP/m$run.json" || log "memory run $run: motion-load reported problems"
    curl -s "$SERVER_URL/metrics" >"$TMP/m$run.metrics" || true
    stop_server
    memory_p50+=("$(jfield "$TMP/m$run.json" run.resume_ms.p50)")
    memory_p99+=("$(jfield "$TMP/m$run.json" run.resume_ms.p99)")
    log "memory run $run: resume p50 ${memory_p50[-1]} p99 ${memory_p99[-1]} ms," \
        "$(jfield "$TMP/m$run.json" run.resumes) resumes, pose p99 $(jfield "$TMP/m$run.json" measurement.latency_ms.p99)"
done

for kind in term kill; do
    for ((run = 1; run <= RUNS; run++)); do
        log "restart run $run ($kind): $RESTART_SESSIONS sessions for $RESTART_SECONDS s"
        flag=()
        [[ $kind == kill ]] && flag=(--kill)
        "$PYTHON" bench/resume.py "$SERVER" "$TMP/r-$kind-$run.sqlite" --sessions "$RESTART_SESSIONS" \
            --seconds "$RESTART_SECONDS" "${flag[@]}" >"$TMP/r-$kind-$run.json"
        log "restart run $run ($kind): $(cat "$TMP/r-$kind-$run.json")"
    done
done

echo "### Resuming sessions ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE."
echo
echo "**From memory, under load** (\`motion-load --sessions $SESSIONS --seconds $SECONDS_ --drop-every $DROP_EVERY" \
    "--drop-share $DROP_SHARE --poll --tick-us 1000\` against a fresh release server, $RUNS runs): resume latency" \
    "(new connection's first byte to \`resumed\`, handshake included) p50 $(median_to 2 "${memory_p50[@]}") ms," \
    "p99 $(median_to 2 "${memory_p99[@]}") ms (medians; runs p50 ${memory_p50[*]}, p99 ${memory_p99[*]})."
echo
"$PYTHON" - "$TMP" "$RUNS" <<'PY'
import json, sys, statistics
tmp, runs = sys.argv[1], int(sys.argv[2])
memory = [json.load(open(f"{tmp}/m{run}.json")) for run in range(1, runs + 1)]
print("| run | resumes | pose p50 ms | pose p99 ms | server CPU % | errors | unexpected closes |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for run, report in enumerate(memory, 1):
    m = report["measurement"]
    print(f"| {run} | {report['run']['resumes']} | {m['latency_ms']['p50']:.2f} | {m['latency_ms']['p99']:.2f} "
          f"| {m['server_cpu_percent']} | {report['run']['errors']} | {report['run']['unexpected_closes']} |")
print()
def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + ' '):
            return float(line.split()[1])
    return None
batches = []
for run in range(1, runs + 1):
    text = open(f"{tmp}/m{run}.metrics").read()
    total = metric(text, 'motion_store_seconds_sum{operation="checkpoint"}')
    count = metric(text, 'motion_store_seconds_count{operation="checkpoint"}')
    if total is not None and count:
        batches.append((count, total / count * 1000))
if batches:
    print("Checkpoint batches written during each run (every session checkpoints every 5 s, gathered 50 ms): "
          + "; ".join(f"{int(c)} batches, mean {ms:.2f} ms each" for c, ms in batches) + ".")
    print()
print("**After a restart**, every session resuming at once (`bench/resume.py`):")
print()
print("| restart | sessions | resume p50 ms | resume p99 ms | max ms | engine state B | checkpoint blobs B/session-min "
      "| series B/session-min | server write_bytes B/session-min |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for kind in ("term", "kill"):
    reports = [json.load(open(f"{tmp}/r-{kind}-{run}.json")) for run in range(1, runs + 1)]
    med = lambda f: statistics.median(f(r) for r in reports)
    writes = [r["server_write_bytes_per_session_minute"] for r in reports]
    write = "n/a" if None in writes else f"{statistics.median(writes):.0f}"
    print(f"| {reports[0]['restart']} | {reports[0]['sessions']} | {med(lambda r: r['resume_ms']['p50']):.2f} "
          f"| {med(lambda r: r['resume_ms']['p99']):.2f} | {med(lambda r: r['resume_ms']['max']):.2f} "
          f"| {med(lambda r: r['engine_state_bytes_mean']):.0f} "
          f"| {med(lambda r: r['checkpoint_blob_bytes_per_session_minute']):.0f} "
          f"| {med(lambda r: r['series_chunk_bytes_per_session_minute']):.0f} | {write} |")
PY
