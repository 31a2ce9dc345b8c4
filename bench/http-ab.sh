#!/usr/bin/env bash
# Usage: bench/http-ab.sh BASE_BINARY HEAD_BINARY OUT (run from the repository root; servers serve ./Public)
# A/B: tiny GET (/healthz) and a REST GET (/v1/exercises) against two motion-server builds, alternating, 3 rounds.
set -u
BASE=$1; HEAD=$2; OUT=$3
: > $OUT
start() { # bin -> sets PID PORT
  local dir=$(mktemp -d)
  $1 --host 127.0.0.1 --port 0 --database $dir/db.sqlite --public "$PWD/Public" --log-level warning > $dir/out 2>$dir/err &
  PID=$!
  for i in $(seq 100); do grep -q listening $dir/out 2>/dev/null && break; sleep 0.05; done
  PORT=$(sed -n 's/.*:\([0-9]*\)$/\1/p' $dir/out | head -1)
}
for round in 1 2 3; do
  for name in base head; do
    bin=$BASE; [ $name = head ] && bin=$HEAD
    for path in /healthz /v1/exercises; do
      start $bin
      wrk -t2 -c64 -d2s http://127.0.0.1:$PORT$path > /dev/null
      cpu0=$(awk '{print $14+$15}' /proc/$PID/stat)
      res=$(wrk -t2 -c64 -d10s --latency http://127.0.0.1:$PORT$path)
      cpu1=$(awk '{print $14+$15}' /proc/$PID/stat)
      rps=$(echo "$res" | awk '/Requests\/sec/ {print $2}')
      p99=$(echo "$res" | awk '$1=="99%" {print $2}')
      reqs=$(echo "$res" | awk '/requests in/ {print $1}')
      echo "$round $name $path rps=$rps p99=$p99 cpu_us_per_req=$(echo "($cpu1-$cpu0)*10000/$reqs" | bc -l | cut -c1-5)" >> $OUT
      kill $PID; wait $PID 2>/dev/null
    done
  done
done
