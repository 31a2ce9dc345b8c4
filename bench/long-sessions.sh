#!/usr/bin/env bash
# Memory of long live sessions: the server's private memory per session (RssAnon: the database's mapped pages are
# left out) after LONG_SECONDS of streaming against after SHORT_SECONDS, 30 poses/s and, with MOTION=1, the
# phone's samples at 60/s (motion-load --motion). A live session's memory should not grow with its length: its
# series are released once stored. Runs this build and, with BASELINE=<a motion-server binary>, that one too,
# alternating run by run on fresh servers and databases; reports medians of RUNS as a Markdown block on stdout for
# bench/RESULTS.md; progress goes to stderr.
#
# Usage: [BASELINE=path/to/motion-server] bench/long-sessions.sh
# Environment (defaults): RUNS=3 LONG_SESSIONS=300 LONG_SECONDS=90 SHORT_SECONDS=15 MOTION=1
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=long-sessions.sh
source bench/lib.sh

RUNS=${RUNS:-3}
SESSIONS=${LONG_SESSIONS:-300}
DURATION=${LONG_SECONDS:-90}
SHORT=${SHORT_SECONDS:-15}
MOTION=${MOTION:-1}
BASELINE=${BASELINE:-}

log "building motion-server and motion-load (release)"
swift build -c release --product motion-server >&2 || die "swift build motion-server failed"
swift build -c release --product motion-load >&2 || die "swift build motion-load failed"
LOAD=.build/release/motion-load
builds=("this=.build/release/motion-server")
[[ -n $BASELINE ]] && builds+=("baseline=$BASELINE")
motion=()
((MOTION)) && motion=(--motion)
MACHINE=$(machine_line)

declare -A rss
for ((run = 1; run <= RUNS; run++)); do
    for build in "${builds[@]}"; do
        name=${build%%=*}
        for seconds in "$SHORT" "$DURATION"; do
            start_server "$name" "${build#*=}" --host 127.0.0.1 --port 0 --log-level warning \
                --database "$TMP/$name-$run-$seconds.sqlite"
            before=$(proc_kb "$SERVER_PID" RssAnon)
            "$LOAD" --url "ws://${SERVER_URL#*://}/v1/stream" --sessions "$SESSIONS" --seconds "$seconds" "${motion[@]}" \
                --poll --tick-us 1000 --server-pid "$SERVER_PID" --json --quiet >"$TMP/$name-$run-$seconds.json" &
            load=$!
            # Read while every session is live, two seconds before the end (the ramp takes under a second).
            sleep $((seconds - 1))
            during=$(proc_kb "$SERVER_PID" RssAnon)
            wait "$load" || log "$name run $run: motion-load reported problems"
            stop_server
            kib=$(awk -v a="$during" -v b="$before" -v n="$SESSIONS" 'BEGIN { printf "%.1f", (a - b) / n }')
            rss[$name-$seconds]+="$kib "
            log "$name run $run, $seconds s: $kib KiB per session"
        done
    done
done

echo "### Long live sessions: memory per session against their length ($(date -u +%Y-%m-%d), commit $(commit_id))"
echo
echo "Machine: $MACHINE."
echo
echo "Command: \`RUNS=$RUNS LONG_SESSIONS=$SESSIONS LONG_SECONDS=$DURATION SHORT_SECONDS=$SHORT MOTION=$MOTION bench/long-sessions.sh\`:"
echo "per run a fresh release \`motion-server --log-level warning\` (embedded SQLite) and \`motion-load --sessions"
echo "$SESSIONS --seconds S ${motion[*]} --server-pid PID\` (30 poses/s), builds alternating run by run."
echo
echo "Private memory (\`RssAnon\` of /proc/PID/status, read a second before the end, less its value before the load) per"
echo "session:"
echo
echo "| build | KiB per session after $SHORT s (runs) | after $DURATION s (runs) | growth per session-minute |"
echo "| --- | --- | --- | --- |"
for build in "${builds[@]}"; do
    name=${build%%=*}
    short=$(median ${rss[$name-$SHORT]})
    long=$(median ${rss[$name-$DURATION]})
    growth=$(awk -v s="$short" -v l="$long" -v a="$SHORT" -v b="$DURATION" 'BEGIN { printf "%.1f", (l - s) / (b - a) * 60 }')
    echo "| $name | $short (${rss[$name-$SHORT]% }) | $long (${rss[$name-$DURATION]% }) | $growth KiB |"
done
