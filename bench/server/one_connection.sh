#!/usr/bin/env bash
# The server's cost at one connection, several engram binaries side by side
# (issue 17): for each round, the in-process searches (`server_bench
# inprocess`, 1 thread), then every binary given, each started afresh on the
# same store, waited on until its background work after the open is over,
# warmed up 3 s, then `wrk -t1 -c1` for DURATION seconds. Per row: wrk's
# RESULT line, the server's context switches (voluntary and not, all
# threads) and CPU per request. Prints one line per row on stdout.
#
#   SERVER_BENCH=build/bench/bench/server/server_bench \
#   ENGRAMS="httplib=/path/engram-a loops=build/bench/app/engram" \
#   SERVER_CPUS=0,1,2,3 CLIENT_CPUS=5,6 WORK=build/bench/server-bench \
#   bench/server/one_connection.sh [rounds] [duration]
#
# WORK holds the store and requests.jsonl of `server_bench prep` (as
# bench/server/run.sh makes them); each binary gets its own copy of the store,
# so that no binary opens images another wrote. SERVER_ARGS are appended to
# every `engram serve`. Needs wrk and taskset.
set -uo pipefail
rounds=${1:-2} duration=${2:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:?WORK: the server_bench prep directory}
bench=${SERVER_BENCH:?SERVER_BENCH: the server_bench binary}
server_cpus=${SERVER_CPUS:?} client_cpus=${CLIENT_CPUS:?}
lua=$root/bench/server/search.lua
tck=$(getconf CLK_TCK)

switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s}'; }
ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }

inprocess() {
  echo "inprocess cores=$server_cpus $(taskset -c "$server_cpus" "$bench" inprocess --db "$work/store" \
    --requests "$work/requests.jsonl" --connections 1 --duration "$duration" | grep '^RESULT')"
}

http() {  # label binary
  local label=$1 bin=$2 db=$work/store-$1 log=$work/serve-$1.log
  [[ -d $db ]] || cp -r "$work/store" "$db"
  taskset -c "$server_cpus" "$bin" serve --db "$db" --listen 127.0.0.1:0 ${SERVER_ARGS:-} >"$log" 2>&1 &
  local pid=$! port=""
  for _ in $(seq 600); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$log" | head -1)
    [[ -n $port ]] && break
    sleep 0.1
  done
  [[ -n $port ]] || { echo "$label: engram serve did not start" >&2; cat "$log" >&2; kill $pid; return 1; }
  local prev now waited=0  # background work after the open (linking) must be over
  prev=$(ticks $pid)
  while ((waited < 240)); do
    sleep 0.5
    waited=$((waited + 1))
    now=$(ticks $pid)
    ((now - prev <= 3)) && break
    prev=$now
  done
  local url=http://127.0.0.1:$port/v1/collections/debian/search
  taskset -c "$client_cpus" wrk -t1 -c1 -d3s -s "$lua" "$url" -- "$work/requests.jsonl" >/dev/null
  local cs0 c0 cs1 c1 out
  cs0=$(switches $pid) c0=$(ticks $pid)
  out=$(taskset -c "$client_cpus" wrk -t1 -c1 -d"${duration}s" --latency -s "$lua" "$url" -- "$work/requests.jsonl" | grep '^RESULT')
  cs1=$(switches $pid) c1=$(ticks $pid)
  local requests
  requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out")
  echo "$label cores=$server_cpus $out" \
    "switches_per_request=$(awk -v a=$((cs1 - cs0)) -v b="$requests" 'BEGIN {printf "%.2f", a / b}')" \
    "server_cpu_us_per_request=$(awk -v a=$((c1 - c0)) -v b="$requests" -v t="$tck" 'BEGIN {printf "%.0f", a * 1e6 / t / b}')"
  kill -TERM $pid
  wait $pid
}

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# server and in-process on CPUs $server_cpus, wrk on CPUs $client_cpus, ${duration} s per row"
for round in $(seq "$rounds"); do
  echo "# round $round"
  inprocess
  for entry in $ENGRAMS; do http "${entry%%=*}" "${entry#*=}"; done
done
echo "# done $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
