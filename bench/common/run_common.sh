# Sourced by bench/*/run.sh: builds one benchmark target and prints the
# machine header every results table starts with.
#   bench_build TARGET   build TARGET with the `bench` preset, or in $BUILD_DIR
#                        when set; sets BUILD_DIR (absolute) to the directory used
#   bench_machine        CPU, caches, memory and load, as Markdown-friendly lines
#   bench_listening LOG PID   waits (up to 60 s) until `engram serve` (PID,
#                        logging to LOG) says where it listens; prints the port,
#                        or prints its log and exits 1 when it exits or stays silent

bench_build() {
  if [[ -z "${BUILD_DIR:-}" ]]; then
    cmake --preset bench >/dev/null
    cmake --build --preset bench --target "$1" >&2
    BUILD_DIR=build/bench
  else
    cmake --build "$BUILD_DIR" --target "$1" >&2
  fi
  BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
}

bench_machine() {
  echo "# machine"
  lscpu | grep -E '^(Model name|CPU\(s\)|L2 cache|L3 cache):' | sed 's/  */ /g'
  free -g | sed -n 2p | awk '{print "Memory: " $2 " GiB"}'
  uptime
}

bench_listening() {
  local port="" _
  for _ in $(seq 6000); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$1" | head -1)
    if [[ -n $port ]]; then
      echo "$port"
      return
    fi
    kill -0 "$2" 2>/dev/null || { echo "engram serve exited:" >&2; cat "$1" >&2; exit 1; }
    sleep 0.01
  done
  echo "engram serve did not say where it listens:" >&2
  cat "$1" >&2
  exit 1
}
