#!/usr/bin/env bash
# README's first command ends in scripts/serve: it must load the sample
# collection, print a curl search that works against the running server, and
# stop cleanly on SIGTERM. Runs scripts/serve with ENGRAM_BIN (the built
# binary) on a free loopback port, runs the curl line it printed, and checks
# the answer holds lore hits.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${ENGRAM_BIN:?ENGRAM_BIN must name the engram binary}"
tmp=$(mktemp -d)
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# A random port; one another process holds (other tests run alongside) is
# reported by the server ("cannot listen"), and another port is tried.
for attempt in 1 2 3 4 5; do
  port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  : >"$tmp/out"  # there before the loop below reads it
  ENGRAM_DB=$tmp/store ENGRAM_LISTEN=127.0.0.1:$port "$root/scripts/serve" >>"$tmp/out" 2>&1 &
  pid=$!
  clash=0
  for _ in $(seq 1 300); do
    grep -q "listening on http://127.0.0.1:$port" "$tmp/out" && break
    if ! kill -0 "$pid" 2>/dev/null; then
      if grep -q "cannot listen on 127.0.0.1:$port" "$tmp/out" && [[ $attempt -lt 5 ]]; then
        clash=1
        break
      fi
      cat "$tmp/out"
      echo "FAIL: scripts/serve exited"
      exit 1
    fi
    sleep 0.1
  done
  [[ $clash -eq 1 ]] || break
  wait "$pid" || true
  pid=""
  rm -rf "$tmp/store"
done
grep -q "listening on http://127.0.0.1:$port" "$tmp/out" || { cat "$tmp/out"; echo "FAIL: no 'listening on'"; exit 1; }
curl_line=$(grep -m1 '^  curl ' "$tmp/out")
echo "running:$curl_line"
answer=$(bash -c "$curl_line")
echo "$answer" | head -c 600; echo
echo "$answer" | grep -q '"hits"' || { echo "FAIL: no hits array"; exit 1; }
echo "$answer" | grep -q '"lore-' || { echo "FAIL: no lore record in the answer"; exit 1; }
grep -q "mcp --connect http://127.0.0.1:$port" "$tmp/out" || { echo "FAIL: no MCP attach instructions"; exit 1; }
# The store has one owner: a second scripts/serve on it stops at once, naming the first.
second=0
ENGRAM_DB=$tmp/store ENGRAM_LISTEN=127.0.0.1:$((port + 1)) "$root/scripts/serve" >"$tmp/second" 2>&1 || second=$?
[[ $second -eq 3 ]] || { cat "$tmp/second"; echo "FAIL: a second serve on the store exited $second, not 3"; exit 1; }
grep -q "is in use by engram serve (pid $pid); use engram mcp --connect http://127.0.0.1:$port" "$tmp/second" ||
  { cat "$tmp/second"; echo "FAIL: the second serve did not name the first"; exit 1; }
kill -TERM "$pid"
code=0
wait "$pid" || code=$?
pid=""
[[ $code -eq 0 ]] || { cat "$tmp/out"; echo "FAIL: exit code $code after SIGTERM"; exit 1; }
echo "PASS: scripts/serve loads lore, its curl search answers, a second one is refused, SIGTERM exits 0"
