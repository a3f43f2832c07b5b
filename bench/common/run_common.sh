# Sourced by bench/*/run.sh: builds one benchmark target and prints the
# machine header every results table starts with.
#   bench_build TARGET   build TARGET with the `bench` preset, or in $BUILD_DIR
#                        when set; sets BUILD_DIR (absolute) to the directory used
#   bench_machine        CPU, caches, memory and load, as Markdown-friendly lines

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
