#!/usr/bin/env bash
# Load test of `engram serve` (issue 7): filtered hybrid searches on the
# Debian corpus over HTTP with wrk (loopback only, bounded in time), next to
# the same searches made in-process through Engine::Search; prints Markdown
# tables on stdout (progress on stderr).
#
#  1. `server_bench prep` builds the store (63,666 packages, fastText vectors)
#     in <build>/server-bench/store and writes requests.jsonl: 2,000 search
#     bodies, the filters cycling through ~50 %, ~5 % and ~0.5 % selectivity;
#  2. `server_bench inprocess`: the same bodies through Engine::Search from N
#     threads, closed loop, for the duration but at most 60 s (and once more
#     decoding each body and writing the reply with the server's own code:
#     "in-process + JSON");
#  3. `engram serve --db <store> --listen 127.0.0.1:0`; the first answers are
#     checked against the in-process hits; a 5 s warm-up; then
#     `wrk -t1 -cN -d<duration> --latency -s bench/server/search.lua` while
#     the server's VmRSS is sampled every 10 s; then the same at 1 connection,
#     and a bodiless GET /livez at 1 connection: the floor of any request.
#
#   bench/server/run.sh                           20 s per measured run
#   bench/server/run.sh --duration 300            the 5-minute run
#   BUILD_DIR=build/h5 bench/server/run.sh        an already configured build directory
#   VECTORS=path/fasttext-debian.tsv bench/server/run.sh   reuse prepared vectors
#   DATA_DIR=path (holding debian/packages.jsonl.gz) instead of ../shared/data
#   options: --duration S  --connections N (16)  --wrk-threads T (1)  --requests N (2000)
#            --reuse (keep an existing store and requests)  --no-single (skip 1 connection)
#            --no-json (skip the in-process + JSON rows)
#   SERVER_ARGS="..." are appended to the `engram serve` command line;
#   ENGRAM_BIN=path/engram uses that binary instead of building <build>/app/engram,
#   SERVER_BENCH=path/server_bench that one instead of building server_bench
#   (both: nothing is built, e.g. an older engram measured beside this one);
#   SERVER_CPUS=LIST CLIENT_CPUS=LIST (taskset lists, e.g. 0-3 and 8): on a
#   machine with cores to spare, the server and the in-process searches run
#   on SERVER_CPUS and wrk on cores of its own, so that the client takes
#   nothing from the server.
#
# wrk, the server and (in step 2) the searching threads share the machine's
# cores: on 2 cores wrk's own CPU is taken from the server, which is why wrk
# runs one thread by default (-t1 drives 16 connections easily; -t2 only
# adds a competitor). The tables report wrk's CPU per request beside it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source bench/common/run_common.sh

duration=20 connections=16 wrk_threads=1 requests=2000 reuse=0 single=1 json=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --wrk-threads) wrk_threads=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --reuse) reuse=1; shift ;;
    --no-single) single=0; shift ;;
    --no-json) json=0; shift ;;
    *) echo "run.sh: unknown argument $1 (see the usage at the top)" >&2; exit 2 ;;
  esac
done
short=$(( duration < 20 ? duration : 20 ))       # the 1-connection runs
inprocess_duration=$(( duration < 60 ? duration : 60 ))  # the in-process runs at N connections

if [[ -n "${SERVER_BENCH:-}" ]]; then
  bench=$SERVER_BENCH
  BUILD_DIR=$(mkdir -p "${BUILD_DIR:-build/bench}" && cd "${BUILD_DIR:-build/bench}" && pwd)
else
  bench_build server_bench
  bench=$BUILD_DIR/bench/server/server_bench
fi
if [[ -n "${ENGRAM_BIN:-}" ]]; then
  engram=$ENGRAM_BIN
else
  cmake --build "$BUILD_DIR" --target engram >&2
  engram=$BUILD_DIR/app/engram
fi
server_pin=() client_pin=()
if [[ -n "${SERVER_CPUS:-}" ]]; then server_pin=(taskset -c "$SERVER_CPUS"); fi
if [[ -n "${CLIENT_CPUS:-}" ]]; then client_pin=(taskset -c "$CLIENT_CPUS"); fi
if [[ -z "${VECTORS:-}" ]]; then
  bench/vector/prepare_fasttext.sh "$BUILD_DIR/vector-data"
  VECTORS=$BUILD_DIR/vector-data/fasttext-debian.tsv
fi
work=$BUILD_DIR/server-bench
mkdir -p "$work"
results=$work/results.txt
: >"$results"
lua=$root/bench/server/search.lua

bench_machine
echo
echo "# engram server load test"
echo
echo "build: $BUILD_DIR ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null)); engram: $engram; server_bench: $bench"
echo "cores: server and in-process searches ${SERVER_CPUS:-any}, wrk ${CLIENT_CPUS:-any}"
if [[ $reuse == 1 && -d $work/store && -s $work/requests.jsonl ]]; then
  echo "store and requests reused from $work"
else
  data_args=()
  if [[ -n "${DATA_DIR:-}" ]]; then data_args=(--data "$DATA_DIR"); fi
  echo "command: $bench prep ${data_args[*]} --vectors $VECTORS --work $work --requests $requests"
  "$bench" prep "${data_args[@]}" --vectors "$VECTORS" --work "$work" --requests "$requests"
fi

# ---- in-process ----
inprocess() {  # connections duration [--json] [--expect FILE]
  local c=$1 d=$2
  shift 2
  echo "in-process: $c connections, $d s $*" >&2
  "${server_pin[@]}" "$bench" inprocess --db "$work/store" --requests "$work/requests.jsonl" \
    --connections "$c" --duration "$d" "$@" | grep '^RESULT' |
    sed "s/^RESULT /RESULT c=$c /; s/\$/ load=$(cut -d' ' -f1 /proc/loadavg)/" >>"$results"
}
inprocess "$connections" "$inprocess_duration" --expect "$work/expect.txt" --expect-count 30
if [[ $json == 1 ]]; then inprocess "$connections" "$inprocess_duration" --json; fi
if [[ $single == 1 ]]; then
  inprocess 1 "$short"
  if [[ $json == 1 ]]; then inprocess 1 "$short" --json; fi
fi

# ---- the server ----
log=$work/server.log
: >"$log"  # there before the loop below reads it: the job opens it in its own time
# shellcheck disable=SC2086  # SERVER_ARGS is a word list
"${server_pin[@]}" "$engram" serve --db "$work/store" --listen 127.0.0.1:0 ${SERVER_ARGS:-} >"$log" 2>&1 &
server=$!
sampler=""
cleanup() {
  if [[ -n $sampler ]]; then kill "$sampler" 2>/dev/null || true; fi
  kill -TERM "$server" 2>/dev/null || true
}
trap cleanup EXIT
port=$(bench_listening "$log" "$server")
url=http://127.0.0.1:$port/v1/collections/debian/search
echo "server: $engram serve --db $work/store --listen 127.0.0.1:0 ${SERVER_ARGS:-} (pid $server, port $port)" >&2

# The first answers must be the in-process hits (same ids, same order).
checked=0 same=0
while IFS= read -r expected && IFS= read -r body <&3; do
  got=$(curl -sS --fail-with-body -H 'Content-Type: application/json' --data-binary "$body" "$url" \
    | jq -r '[.hits[].id] | join(" ")') || got="(request failed)"
  checked=$((checked + 1))
  [[ $got == "$expected" ]] && same=$((same + 1))
done <"$work/expect.txt" 3<"$work/requests.jsonl"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$server/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
threads_of() { awk '/^Threads:/ {print $2}' "/proc/$server/status"; }
tck=$(getconf CLK_TCK)

run_wrk() {  # connections duration label [url lua-argument] -> appends a RESULT line
  local c=$1 d=$2 label=$3 out=$work/wrk-$3.txt target=${4:-$url} arg=${5:-$work/requests.jsonl}
  local t=$(( wrk_threads < c ? wrk_threads : c ))
  echo "wrk: -t$t -c$c -d${d}s ($label)" >&2
  local cpu0 cpu1
  cpu0=$(cpu_ticks)
  /usr/bin/time -f 'WRKCPU %U %S' -o "$work/wrk-$label.time" \
    "${client_pin[@]}" wrk -t"$t" -c"$c" -d"${d}s" --timeout 10s --latency -s "$lua" "$target" -- "$arg" \
    >"$out"
  cpu1=$(cpu_ticks)
  local wrkcpu
  wrkcpu=$(awk '/^WRKCPU/ {print $2 + $3}' "$work/wrk-$label.time")
  if [[ $label != warmup ]]; then
    grep '^RESULT' "$out" | sed "s/^RESULT /RESULT c=$c label=$label /; s/\$/ server_cpu_s=$(awk -v a="$cpu0" -v b="$cpu1" -v t="$tck" 'BEGIN {printf "%.2f", (b - a) / t}') wrk_cpu_s=$wrkcpu wrk_threads=$t load=$(cut -d' ' -f1 /proc/loadavg)/" \
      >>"$results"
  fi
}

run_wrk "$connections" 5 warmup
rss_log=$work/rss.txt
: >"$rss_log"
t0=$(date +%s)
(
  while kill -0 "$server" 2>/dev/null; do
    echo "$(($(date +%s) - t0)) $(rss_kib)" >>"$rss_log"
    sleep 10
  done
) &
sampler=$!
run_wrk "$connections" "$duration" main
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=""
echo "$(($(date +%s) - t0)) $(rss_kib)" >>"$rss_log"
server_threads=$(threads_of)
if [[ $single == 1 ]]; then
  run_wrk 1 "$short" single
  # The floor of any request here: wrk and the server on the same cores,
  # a loopback round trip and HTTP parsing, with no engine and no JSON.
  run_wrk 1 "$short" floor "http://127.0.0.1:$port/livez" GET
fi

kill -TERM "$server"
status=0
wait "$server" || status=$?
trap - EXIT

# ---- tables ----
echo
echo "server: \`engram serve --db <store> --listen 127.0.0.1:0 ${SERVER_ARGS:-}\` ($server_threads threads" \
  "under load); exit status $status after SIGTERM; answers checked against the in-process hits:" \
  "$same of $checked identical"
if grep -qiE 'error|fatal|sanitizer' "$log"; then
  echo
  echo "server log lines with errors:"
  grep -iE 'error|fatal|sanitizer' "$log" | head -5 | sed 's/^/    /'
fi
echo
echo "## Filtered hybrid search, k = 10: HTTP (wrk) vs in-process (Engine::Search)"
echo
echo "Closed loop: each connection (thread) sends its next request when the last one is answered;"
echo "latency is the wall time of one request (wrk: send to last byte; in-process: the call)."
echo "p50 / p99 / mean are summarised as wrk 4 summarises: it corrects for coordinated omission"
echo "(each latency >= 2x the expected interval, duration / (requests / connections), also counts"
echo "as latency - interval, latency - 2x interval, ...); the in-process samples get the same"
echo "correction, and their raw figures are in the last column (wrk gives no raw figures)."
echo "Overhead: HTTP (or in-process + JSON) vs in-process at the same connections. With more"
echo "connections than cores the kernel time-slices the in-process threads (most searches run"
echo "uninterrupted, a few wait whole slices) while a server queues connections for its workers,"
echo "so at 16 connections QPS and CPU per request compare the sides best; at 1 connection p50 is"
echo "the per-request cost. CPU µs / request: the measured process (server: /proc/PID/stat)."
echo
awk -v dur="$duration" '
  function f(line, key,   m) {
    if (match(line, " " key "=[^ ]*")) return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
    return ""
  }
  /^RESULT/ {
    n++; side[n] = f($0, "side"); c[n] = f($0, "c"); label[n] = f($0, "label"); req[n] = f($0, "requests"); sec[n] = f($0, "seconds")
    p50[n] = f($0, "p50_us"); p99[n] = f($0, "p99_us"); mean[n] = f($0, "mean_us"); load[n] = f($0, "load")
    raw[n] = side[n] == "http" ? "—" : sprintf("%.2f / %.2f / %.2f", f($0, "raw_p50_us") / 1000, f($0, "raw_p99_us") / 1000, f($0, "raw_mean_us") / 1000)
    if (side[n] == "http") {
      err[n] = f($0, "status_errors") + f($0, "connect_errors") + f($0, "read_errors") + f($0, "write_errors") + f($0, "timeouts")
      cpu[n] = f($0, "server_cpu_s"); wcpu[n] = f($0, "wrk_cpu_s"); wt[n] = f($0, "wrk_threads"); bytes[n] = f($0, "bytes")
    } else {
      err[n] = f($0, "errors"); cpu[n] = f($0, "cpu_s"); wcpu[n] = ""
    }
    if (side[n] == "inprocess") base[c[n]] = n
    if (label[n] == "single") single = n
    if (label[n] == "floor") floor = n
  }
  END {
    print "| side | connections | seconds | requests | QPS | p50 ms | p99 ms | mean ms | errors | CPU µs / request | p50 overhead | mean overhead | load avg after | raw p50 / p99 / mean ms |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
      name = side[i] == "http" ? "HTTP (wrk -t" wt[i] ")" : side[i] == "inprocess_json" ? "in-process + JSON" : "in-process"
      if (label[i] == "floor") name = "floor: GET /livez (wrk -t" wt[i] ")"
      cpus = sprintf("%.0f", 1e6 * cpu[i] / req[i])
      if (side[i] == "http") cpus = cpus " server + " sprintf("%.0f", 1e6 * wcpu[i] / req[i]) " wrk"
      over = "—"; mover = "—"
      if (side[i] != "inprocess" && label[i] != "floor" && (c[i] in base)) {
        b = base[c[i]]
        over = sprintf("%+.0f %%", 100 * (p50[i] / p50[b] - 1))
        mover = sprintf("%+.0f %%", 100 * (mean[i] / mean[b] - 1))
      }
      printf "| %s | %d | %.0f | %d | %.0f | %.2f | %.2f | %.2f | %d | %s | %s | %s | %s | %s |\n", name, c[i], sec[i], req[i], req[i] / sec[i], p50[i] / 1000, p99[i] / 1000, mean[i] / 1000, err[i], cpus, over, mover, load[i], raw[i]
    }
    if (single && floor && (1 in base)) {
      b = base[1]; extra = p50[single] - p50[b]
      printf "\nAt 1 connection the search over HTTP takes %.0f µs more at p50 than in-process (%+.0f %%); " \
        "the floor alone, a bodiless GET /livez answered with no engine and no JSON, takes %.0f µs at p50 " \
        "(%.0f %% of the in-process p50): the rest, %.0f µs (%+.0f %%), is decoding the request, writing " \
        "the reply (%.1f KB a search) and carrying it.\n", extra, 100 * extra / p50[b], p50[floor], \
        100 * p50[floor] / p50[b], extra - p50[floor], 100 * (extra - p50[floor]) / p50[b], bytes[single] / req[single] / 1000
    }
  }' "$results"
echo
echo "wrk's own count of errors (main run):"
grep -E 'Non-2xx|Socket errors' "$work/wrk-main.txt" | sed 's/^ */    /' || echo "    none reported (no non-2xx responses, no socket errors)"
echo
echo "## Server memory (VmRSS, sampled every 10 s during the main run at $connections connections)"
echo
awk '
  { t[NR] = $1; r[NR] = $2 / 1024; if (NR == 1 || r[NR] > max) max = r[NR]; if (NR == 1 || r[NR] < min) min = r[NR] }
  END {
    # drift after the first minute (allocator pools warm) when the run is long enough
    k = 1; for (i = 1; i <= NR; i++) if (t[i] >= 60) { k = i; break }
    print "| start MiB | end MiB | min MiB | max MiB | drift start→end | drift from " t[k] " s→end | samples |"
    print "|---:|---:|---:|---:|---:|---:|---:|"
    printf "| %.1f | %.1f | %.1f | %.1f | %+.1f MiB (%+.1f %%) | %+.1f MiB | %d |\n", r[1], r[NR], min, max, r[NR] - r[1], 100 * (r[NR] / r[1] - 1), r[NR] - r[k], NR
    s = ""; for (i = 1; i <= NR; i++) s = s sprintf("%s%d s: %.1f", i > 1 ? ", " : "", t[i], r[i])
    print ""; print "samples (MiB): " s
  }' "$rss_log"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
