#!/usr/bin/env bash
# The server's overhead at one connection (issue 17's acceptance, issue 7's
# aim: < 15 % at p50), measured side by side: in each round the in-process
# searches (`server_bench inprocess`, 1 thread) and `wrk -t1 -c1` against
# `engram serve` run over the same DURATION seconds on cores of their own, so
# that whatever slows the host slows both; then each runs alone for
# DURATION seconds. Rounds alternate the server's and the in-process cores.
# Per round: the in-process p50 and the HTTP p50 (both summarised as wrk
# summarises, see WrkCorrected), the overhead, and the server's CPU per
# request. One line per row on stdout; a summary (median overhead) last.
#
#   SERVER_BENCH=build/bench/bench/server/server_bench ENGRAM=build/bench/app/engram \
#   CPUS_A=0,1 CPUS_B=2,3 CLIENT_CPUS=5,6 WORK=build/bench/server-bench \
#   bench/server/side_by_side.sh [rounds] [duration]
#
# WORK holds the store and requests.jsonl of `server_bench prep` (as
# bench/server/run.sh makes them). The server opens its own copy of the store.
# Needs wrk and taskset; the three CPU sets should be distinct physical cores.
set -uo pipefail
rounds=${1:-4} duration=${2:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:?WORK: the server_bench prep directory}
bench=${SERVER_BENCH:?SERVER_BENCH: the server_bench binary}
engram=${ENGRAM:?ENGRAM: the engram binary}
cpus_a=${CPUS_A:?} cpus_b=${CPUS_B:?} client_cpus=${CLIENT_CPUS:?}
lua=$root/bench/server/search.lua
url_path=/v1/collections/debian/search
tck=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$2"; }

pid="" port=""
start_server() {  # cpus
  rm -rf "$work/store-http"
  cp -r "$work/store" "$work/store-http"
  taskset -c "$1" "$engram" serve --db "$work/store-http" --listen 127.0.0.1:0 >"$work/serve.log" 2>&1 &
  pid=$! port=""
  for _ in $(seq 600); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$work/serve.log" | head -1)
    [[ -n $port ]] && break
    sleep 0.1
  done
  [[ -n $port ]] || { echo "engram serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
  local prev now waited=0  # background work after the open must be over
  prev=$(ticks "$pid")
  while ((waited < 240)); do
    sleep 0.5
    waited=$((waited + 1))
    now=$(ticks "$pid")
    ((now - prev <= 3)) && break
    prev=$now
  done
  taskset -c "$client_cpus" wrk -t1 -c1 -d3s -s "$lua" "http://127.0.0.1:$port$url_path" \
    -- "$work/requests.jsonl" >/dev/null
}

http() {  # -> "RESULT ... cpu_us_per_request=N"
  local c0 c1 out
  c0=$(ticks "$pid")
  out=$(taskset -c "$client_cpus" wrk -t1 -c1 -d"${duration}s" --latency -s "$lua" \
    "http://127.0.0.1:$port$url_path" -- "$work/requests.jsonl" | grep '^RESULT')
  c1=$(ticks "$pid")
  echo "$out cpu_us_per_request=$(awk -v a=$((c1 - c0)) -v b="$(field requests "$out")" -v t="$tck" \
    'BEGIN {printf "%.0f", a * 1e6 / t / b}')"
}

inprocess() {  # cpus [ready-file]
  taskset -c "$1" "$bench" inprocess --db "$work/store" --requests "$work/requests.jsonl" \
    --connections 1 --duration "$duration" ${2:+--ready "$2"} | grep '^RESULT'
}

overhead() { awk -v h="$1" -v i="$2" 'BEGIN {printf "%+.1f%%", (h / i - 1) * 100}'; }

echo "# $(date -u +%FT%TZ) $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# CPU sets A=$cpus_a B=$cpus_b (server and in-process swap each round), wrk on $client_cpus, ${duration} s per row"
start_server "$cpus_a"
floor=$(taskset -c "$client_cpus" wrk -t1 -c1 -d3s --latency -s "$lua" "http://127.0.0.1:$port/livez" -- GET | grep '^RESULT')
echo "floor GET /livez p50_us=$(field p50_us "$floor") p99_us=$(field p99_us "$floor")"
kill -TERM "$pid"
wait "$pid"
ratios=()
for round in $(seq "$rounds"); do
  server_cpus=$cpus_a inprocess_cpus=$cpus_b
  ((round % 2 == 0)) && server_cpus=$cpus_b inprocess_cpus=$cpus_a
  start_server "$server_cpus"
  ready=$work/inprocess.ready
  rm -f "$ready"
  inprocess "$inprocess_cpus" "$ready" >"$work/inprocess.out" &
  ipid=$!
  for _ in $(seq 600); do [[ -e $ready ]] && break; sleep 0.05; done
  h=$(http)
  wait "$ipid"
  i=$(cat "$work/inprocess.out")
  hp=$(field p50_us "$h") ip=$(field p50_us "$i")
  ratios+=("$(awk -v h="$hp" -v i="$ip" 'BEGIN {print h / i}')")
  echo "round $round together server=$server_cpus inprocess=$inprocess_cpus: inprocess p50_us=$ip" \
    "p99_us=$(field p99_us "$i") raw_mean_us=$(field raw_mean_us "$i") | http p50_us=$hp" \
    "p99_us=$(field p99_us "$h") mean_us=$(field mean_us "$h")" \
    "server_cpu_us_per_request=$(field cpu_us_per_request "$h") errors=$(field status_errors "$h")" \
    "| overhead $(overhead "$hp" "$ip")"
  h=$(http)
  kill -TERM "$pid"
  wait "$pid"
  i=$(inprocess "$inprocess_cpus")
  echo "round $round alone: inprocess p50_us=$(field p50_us "$i") | http p50_us=$(field p50_us "$h")" \
    "server_cpu_us_per_request=$(field cpu_us_per_request "$h")" \
    "| overhead $(overhead "$(field p50_us "$h")" "$(field p50_us "$i")")"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%+.1f%%", (m - 1) * 100}')
echo "# median overhead of the side-by-side rounds: $median"
echo "# done $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
