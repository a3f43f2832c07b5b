#!/usr/bin/env bash
# Several `engram serve` nodes on one PostgreSQL database (issue 22). Starts
# a private PostgreSQL 15 (initdb in a temporary directory, Unix socket only,
# as the `postgres` user when run as root; durable settings: fsync and
# synchronous_commit on, the defaults), and prints Markdown tables on stdout
# (progress on stderr):
#
#  1. search: N synthetic agent memories (bench/common/memories.h, text and
#     metadata, no vectors) ingested with `engram ingest --store`; then 1, 2
#     and 3 nodes serve them, each driven by its own `wrk -t1` with
#     bench/server/search.lua (the same text searches, a quarter filtered by
#     kind, a quarter by agent), 12 connections in all; QPS summed over the
#     nodes, CPU per request from the nodes' /proc/PID/stat utime + stime;
#  2. lag: with the 3 nodes up, `cluster_bench lag` writes one record at a
#     time to node 1 at steady rates and reads each from node 2 with its
#     Engram-Token (see cluster_bench.cc for what the figure includes);
#  3. catch-up: a fresh database, a node started once on the empty
#     collection and stopped (its checkpoint), CATCHUP records ingested
#     through `engram ingest --store` while a follower node runs; then nodes
#     started on that database: (a) as it is (the ingest's checkpoints are in
#     the store), (b) with engram_snapshots emptied (the indexes rebuilt from
#     the records), (c) with the snapshots taken before the ingest put back
#     (the node's last checkpoint precedes the records: replay). For each:
#     from the process start to the first /readyz 200, and to the first 200
#     of a GET of the last record carrying the last sequence as its token.
#
#   bench/cluster/run.sh                       defaults below
#   bench/cluster/run.sh --records 20000 --catchup 100000 --duration 20 --lag-seconds 15
#   BUILD_DIR=build/x   an already configured build directory
#   PG_BINDIR=dir       PostgreSQL's binaries (/usr/lib/postgresql/15/bin)
#   options: --records N (30000) --catchup N (100000) --duration S (20)
#            --lag-seconds S (15) --rates LIST (20,100,300) --connections N (12)
#            --skip LIST (search,lag,catchup)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh

records=30000 catchup=100000 duration=20 lag_seconds=15 rates=20,100,300 connections=12 skip=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --records) records=$2; shift 2 ;;
    --catchup) catchup=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --lag-seconds) lag_seconds=$2; shift 2 ;;
    --rates) rates=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1 (see the usage at the top)" >&2; exit 2 ;;
  esac
done
skipped() { [[ ",$skip," == *",$1,"* ]]; }

bench_build cluster_bench
cmake --build "$BUILD_DIR" --target engram >&2
bench=$BUILD_DIR/bench/cluster/cluster_bench
engram=$BUILD_DIR/app/engram
work=$BUILD_DIR/cluster-bench
rm -rf "$work"
mkdir -p "$work"
tck=$(getconf CLK_TCK)
collection=memories

# ---- PostgreSQL ----
pg_bindir=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
pg_dir=$(mktemp -d /tmp/engram-cluster-bench-XXXXXX)
as_pg=()
if [[ $(id -u) == 0 ]]; then
  chown postgres: "$pg_dir"
  as_pg=(runuser -u postgres --)
fi
pids=() ports=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  "${as_pg[@]}" "$pg_bindir/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$pg_dir"
}
trap cleanup EXIT
"${as_pg[@]}" "$pg_bindir/initdb" -D "$pg_dir/data" -U engram --auth=trust -E UTF8 \
  --locale=C.UTF-8 >"$work/initdb.log" 2>&1
"${as_pg[@]}" "$pg_bindir/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 \
  -o "-k $pg_dir -c listen_addresses=''" start >/dev/null
psql_do() {  # DATABASE SQL -> unaligned output
  psql -X -q -At -h "$pg_dir" -U engram -d "$1" -c "$2"
}
pg_url() {  # DATABASE
  echo "postgresql://engram@${pg_dir//\//%2F}/$1"
}
pg_settings=$(psql_do postgres "SELECT string_agg(name || '=' || current_setting(name), ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync','synchronous_commit','shared_buffers','wal_level','full_page_writes','max_connections')")
pg_version=$(psql_do postgres "SHOW server_version")

# ---- nodes ----
node_ready_s="" node_applied_s=""
start_node() {  # DATABASE NAME -> appends to pids/ports; waits until it listens
  local log=$work/$2.log port
  : >"$log"
  "$engram" serve --store "$(pg_url "$1")" --listen 127.0.0.1:0 >"$log" 2>&1 &
  local pid=$!
  port=$(bench_listening "$log" "$pid")
  pids+=("$pid")
  ports+=("$port")
}
stop_node() {  # INDEX: SIGTERM (the node checkpoints as it closes), then forget it
  kill -TERM "${pids[$1]}"
  wait "${pids[$1]}" || { echo "node $1 exited with $?" >&2; exit 1; }
  unset "pids[$1]" "ports[$1]"
  pids=("${pids[@]}") ports=("${ports[@]}")
}
now() { date +%s.%N; }
http_code() {  # URL [curl args...]
  local url=$1
  shift
  curl -s -o /dev/null -w '%{http_code}' "$@" "$url" || true
}
# Starts a node on DATABASE and times it: node_ready_s from the start to the
# first /readyz 200, node_applied_s to the first 200 of GET of record ID
# with Engram-Token TOKEN (each request waits, bounded, for the token).
time_node() {  # DATABASE NAME ID TOKEN
  local t0 t_ready t_applied port
  t0=$(now)
  start_node "$1" "$2"
  port=${ports[-1]}
  until [[ $(http_code "http://127.0.0.1:$port/readyz") == 200 ]]; do sleep 0.01; done
  t_ready=$(now)
  until [[ $(http_code "http://127.0.0.1:$port/v1/collections/$collection/records/$3" \
    -H "Engram-Token: $4") == 200 ]]; do sleep 0.01; done
  t_applied=$(now)
  node_ready_s=$(awk -v a="$t0" -v b="$t_ready" 'BEGIN {printf "%.2f", b - a}')
  node_applied_s=$(awk -v a="$t0" -v b="$t_applied" 'BEGIN {printf "%.2f", b - a}')
}
cpu_ticks() {  # PID...: utime + stime, summed
  local sum=0 p
  for p in "$@"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo "$sum"
}
# PostgreSQL's processes (the postmaster and its children: the nodes'
# backends, the checkpointer, ...) as "PID TICKS" lines, utime + stime.
# Fields are counted after the command name, which may hold spaces; a process
# that ends during the scan is skipped (awk then exits 2).
pg_cpu_snapshot() {
  local postmaster
  postmaster=$(head -1 "$pg_dir/data/postmaster.pid")
  awk -v pm="$postmaster" '
    FNR == 1 {
      split(FILENAME, path, "/"); sub(/^.*\) /, "")
      if (path[3] == pm || $2 == pm) print path[3], $12 + $13
    }' /proc/[0-9]*/stat 2>/dev/null || true
}
# The CPU ticks between two snapshots of the processes alive in both (those
# that started or ended between them are left out: none of the searches').
pg_cpu_delta() {  # BEFORE AFTER
  awk 'NR == FNR {t[$1] = $2; next} ($1 in t) {s += $2 - t[$1]} END {print s + 0}' "$1" "$2"
}
last_seq() { psql_do "$1" "SELECT value FROM engram_meta WHERE key = 'last_seq'"; }
create_and_ingest() {  # DATABASE FILE
  "$engram" collection create --store "$(pg_url "$1")" --name "$collection" \
    --schema "$work/schema.json" --text text >&2
  local t0 t1
  t0=$(now)
  "$engram" ingest --store "$(pg_url "$1")" --collection "$collection" --batch 1000 "$2" >&2
  t1=$(now)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}'
}

"$bench" prep --work "$work" --records "$(( records > catchup ? records : catchup ))" --queries 2000
head -n "$records" "$work/records.jsonl" >"$work/search-records.jsonl"
head -n "$catchup" "$work/records.jsonl" >"$work/catchup-records.jsonl"
last_search_id=m$((records - 1)) last_catchup_id=m$((catchup - 1))

bench_machine
echo
echo "# Several nodes on one PostgreSQL"
echo
echo "engram: $engram ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt") build, $(git -C "$root" rev-parse --short HEAD));" \
  "PostgreSQL $pg_version ($pg_bindir), private socket, $pg_settings; $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "command: bench/cluster/run.sh --records $records --catchup $catchup --duration $duration --lag-seconds $lag_seconds --rates $rates --connections $connections${skip:+ --skip $skip}"

# ---- 1. search QPS and CPU per request, 1-3 nodes ----
if ! skipped search || ! skipped lag; then
  psql_do postgres "CREATE DATABASE search" >/dev/null
  ingest_s=$(create_and_ingest search "$work/search-records.jsonl")
  echo "search data: $records records ingested in $ingest_s s (engram ingest --batch 1000)" >&2
fi
results=$work/search.txt
: >"$results"
lua=$root/bench/server/search.lua
search_round() {  # NODES -> appends one line to $results
  local n=$1 per=$(( connections / $1 )) i cpu0 cpu1 wrk_pids=()
  for i in $(seq 0 $((n - 1))); do  # warm-up
    wrk -t1 -c"$per" -d3s -s "$lua" "http://127.0.0.1:${ports[$i]}/v1/collections/$collection/search" \
      -- "$work/requests.jsonl" >/dev/null &
    wrk_pids+=($!)
  done
  for p in "${wrk_pids[@]}"; do wait "$p"; done
  wrk_pids=()
  cpu0=$(cpu_ticks "${pids[@]:0:n}")
  pg_cpu_snapshot >"$work/pg-cpu-0"
  for i in $(seq 0 $((n - 1))); do
    /usr/bin/time -f 'WRKCPU %U %S' -o "$work/wrk-$n-$i.time" \
      wrk -t1 -c"$per" -d"${duration}s" --timeout 10s --latency -s "$lua" \
      "http://127.0.0.1:${ports[$i]}/v1/collections/$collection/search" -- "$work/requests.jsonl" \
      >"$work/wrk-$n-$i.txt" &
    wrk_pids+=($!)
  done
  for p in "${wrk_pids[@]}"; do wait "$p"; done
  cpu1=$(cpu_ticks "${pids[@]:0:n}")
  pg_cpu_snapshot >"$work/pg-cpu-1"
  cat "$work"/wrk-"$n"-*.txt | grep '^RESULT' | awk -v n="$n" -v c="$connections" \
    -v cpu="$(( cpu1 - cpu0 ))" -v pg="$(pg_cpu_delta "$work/pg-cpu-0" "$work/pg-cpu-1")" -v tck="$tck" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
    -v wcpu="$(cat "$work"/wrk-"$n"-*.time | awk '/^WRKCPU/ {s += $2 + $3} END {print s}')" '
    function f(line, key) { match(line, " " key "=[^ ]*"); return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) }
    { req += f($0, "requests"); sec = f($0, "seconds") > sec ? f($0, "seconds") : sec; qps += f($0, "requests") / f($0, "seconds")
      err += f($0, "status_errors") + f($0, "connect_errors") + f($0, "read_errors") + f($0, "timeouts")
      p50 = p50 (p50 ? " / " : "") sprintf("%.2f", f($0, "p50_us") / 1000); p99 = p99 (p99 ? " / " : "") sprintf("%.2f", f($0, "p99_us") / 1000) }
    END { printf "| %d | %d | %.0f | %d | %.0f | %s | %s | %d | %.0f | %.1f | %.0f | %s |\n", n, c, sec, req, qps, p50, p99, err, 1e6 * cpu / tck / req, 1e6 * pg / tck / req, 1e6 * wcpu / req, load }' \
    >>"$results"
}
if ! skipped search || ! skipped lag; then
  for n in 1 2 3; do
    start_node search "search-node$n"
    until [[ $(http_code "http://127.0.0.1:${ports[-1]}/v1/collections/$collection/records/$last_search_id") == 200 ]]; do sleep 0.05; done
    if ! skipped search; then
      echo "search: $n node(s)" >&2
      search_round "$n"
    fi
  done
fi
if ! skipped search; then
  echo
  echo "## Search QPS and CPU per request, 1-3 nodes on one PostgreSQL (loaded machine)"
  echo
  echo "$records memories (text + metadata, no vectors) in one collection; 2,000 text searches"
  echo "(k = 10; a quarter filtered by kind (two drawn, at times the same), a quarter by one agent) sent by one"
  echo "\`wrk -t1 -c$connections/N\` per node for $duration s after a 3 s warm-up, all nodes at once."
  echo "Nodes, wrk and PostgreSQL share the machine's cores: QPS cannot grow with nodes here; CPU"
  echo "per request (the nodes' utime + stime over the run / requests) is what scales."
  echo
  echo "| nodes | connections (all) | seconds | requests | QPS (sum) | p50 ms (per node) | p99 ms (per node) | errors | node CPU µs / request | PostgreSQL CPU µs / request | wrk CPU µs / request | load avg after |"
  echo "|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"
  cat "$results"
fi

# ---- 2. replication lag ----
if ! skipped lag; then
  lag_results=$work/lag.txt
  : >"$lag_results"
  first=10000000
  for rate in ${rates//,/ }; do
    echo "lag: $rate writes/s for $lag_seconds s" >&2
    "$bench" lag --write "${ports[0]}" --read "${ports[1]}" --collection "$collection" \
      --rate "$rate" --seconds "$lag_seconds" --first "$first" |
      sed "s/\$/ load=$(cut -d' ' -f1 /proc/loadavg)/" >>"$lag_results"
    first=$((first + 1000000))
  done
  echo
  echo "## Replication lag, node 1 → node 2 (3 nodes up, loaded machine)"
  echo
  echo "One writer upserts one record per request to node 1 on a steady schedule (a durable commit"
  echo "each); for each acknowledged write a reader GETs that record from node 2 with its"
  echo "Engram-Token, which node 2 answers once it has applied the write. Lag: from the writer"
  echo "reading node 1's acknowledgment to the reader reading node 2's 200 with the record; it"
  echo "includes one GET round trip on node 2 (floor: the same GET of records already applied)."
  echo "Node 3 follows too. \"late\": writes that started more than one interval behind schedule."
  echo
  echo "| writes/s asked | writes/s made | writes | late | errors | write p50 / p99 ms | lag p50 ms | lag p99 ms | lag max ms | send→visible p50 / p99 ms | floor p50 ms | load avg after |"
  echo "|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|"
  awk '
    function f(line, key) { match(line, " " key "=[^ ]*"); return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) }
    /^RESULT/ { printf "| %s | %.0f | %s | %s | %d | %s / %s | %s | %s | %s | %s / %s | %s | %s |\n", f($0, "rate"), f($0, "writes") / f($0, "seconds"), f($0, "writes"), f($0, "late"),
      f($0, "write_errors") + f($0, "read_errors"), f($0, "write_p50_ms"), f($0, "write_p99_ms"), f($0, "lag_p50_ms"), f($0, "lag_p99_ms"),
      f($0, "lag_max_ms"), f($0, "from_send_p50_ms"), f($0, "from_send_p99_ms"), f($0, "floor_p50_ms"), f($0, "load") }' "$lag_results"
fi
while [[ ${#pids[@]} -gt 0 ]]; do stop_node 0; done

# ---- 3. catch-up ----
if ! skipped catchup; then
  psql_do postgres "CREATE DATABASE catchup" >/dev/null
  "$engram" collection create --store "$(pg_url catchup)" --name "$collection" \
    --schema "$work/schema.json" --text text >&2
  start_node catchup catchup-early   # opened on the empty collection,
  stop_node 0                        # and closed: its checkpoint
  psql_do catchup "CREATE TABLE bench_early_snapshots AS SELECT * FROM engram_snapshots" >/dev/null
  early_seq=$(last_seq catchup)
  start_node catchup catchup-follower  # follows the ingest as it goes
  follower=${ports[0]}
  echo "catch-up: ingesting $catchup records" >&2
  t0=$(now)
  "$engram" ingest --store "$(pg_url catchup)" --collection "$collection" --batch 1000 \
    "$work/catchup-records.jsonl" >&2
  t1=$(now)
  token=$(last_seq catchup)
  until [[ $(http_code "http://127.0.0.1:$follower/v1/collections/$collection/records/$last_catchup_id" \
    -H "Engram-Token: $token") == 200 ]]; do sleep 0.01; done
  t2=$(now)
  stop_node 0
  ingest_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
  follow_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN {printf "%.2f", b - a}')
  snapshots=$(psql_do catchup "SELECT count(*) || ' snapshot row(s), ' || pg_size_pretty(sum(length(bytes))) || ', newest at sequence ' || max(seq) FROM engram_snapshots")
  catchup_rows=()
  catchup_row() {  # LABEL
    local opened
    time_node catchup "catchup-$2" "$last_catchup_id" "$token"
    opened=$(sed -n 's/.*opened in \([0-9.e+-]*\) s (\([0-9]*\) records read, \([0-9]*\) indexed again.*/\1 \2 \3/p' \
      "$work/catchup-$2.log" | head -1 | awk '{printf "%.2f s, %d records read, %d indexed again", $1, $2, $3}')
    catchup_rows+=("| $1 | $node_ready_s | $node_applied_s | $opened | $(cut -d' ' -f1 /proc/loadavg) |")
    stop_node 0
  }
  # The restarts below checkpoint as they close: each case restores its own state.
  catchup_row "fresh node, the ingest's checkpoints in the store ($snapshots)" a
  psql_do catchup "DELETE FROM engram_snapshots" >/dev/null
  catchup_row "fresh node, no snapshot (engram_snapshots emptied): indexes rebuilt from the records" b
  psql_do catchup "DELETE FROM engram_snapshots; INSERT INTO engram_snapshots SELECT * FROM bench_early_snapshots" >/dev/null
  catchup_row "restarted node, its last checkpoint at sequence $early_seq (before the $catchup records)" c
  echo
  echo "## Node catch-up, $catchup records (loaded machine)"
  echo
  echo "$catchup memories ingested by \`engram ingest --store … --batch 1000\` in $ingest_s s while a"
  echo "follower node ran: it had applied the last batch $follow_s s after the ingest returned. Then"
  echo "nodes started on that database, one at a time, timed from the process start (polled every 10 ms)"
  echo "to the first /readyz 200 and to the first 200 of GET $last_catchup_id with Engram-Token $token"
  echo "(the last sequence). engram opens the store (snapshots, then the records) before it listens."
  echo
  echo "| node | to /readyz 200 s | to the last write applied s | engine open (log) | load avg after |"
  echo "|---|---:|---:|---|---:|"
  printf '%s\n' "${catchup_rows[@]}"
fi
echo
errors=$(cat "$work"/*node*.log "$work"/catchup-*.log 2>/dev/null | grep -ciE 'error|fatal|sanitizer' || true)
echo "node log lines naming an error, all runs: $errors (logs in $work); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
