# Shared by scripts/run and scripts/test (sourced, not run): installs the pinned SecantusDB
# server (a MongoDB wire-protocol server, GPL-2.0, run as a separate process and never linked)
# and starts it.

SECANTUS_VERSION="0.5.3-beta.196"
SECANTUS_ROOT="${BOXOFFICE_TOOLS_DIR:-$HOME/.cache/boxoffice}/secantus-$SECANTUS_VERSION"
SECANTUSD="$SECANTUS_ROOT/bin/secantusd-rs"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Installs secantusd-rs (and cmake, which its build needs) unless the pinned version is there.
ensure_secantus() {
  if [ -x "$SECANTUSD" ]; then
    return
  fi
  if ! command -v cmake >/dev/null 2>&1; then
    echo "==> installing cmake (needed to build SecantusDB)" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null
  fi
  echo "==> building SecantusDB $SECANTUS_VERSION (once; about 5 minutes on 2 cores)" >&2
  cargo install secantus-mdb --version "=$SECANTUS_VERSION" --locked --ignore-rust-version \
    --root "$SECANTUS_ROOT"
}

# An eighth of the machine's memory, in megabytes, between 256M and 2G.
secantus_cache_size() {
  local total_kb
  total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
  local mb=$(( ${total_kb:-0} / 1024 / 8 ))
  (( mb < 256 )) && mb=256
  (( mb > 2048 )) && mb=2048
  echo "${mb}M"
}

# start_secantus STORAGE_DIR LOG_FILE: starts the server on a free port, waits until it listens,
# and sets SECANTUS_PID and MONGODB_URI. SECANTUS_LOG_LEVEL sets its log level (WARNING; INFO logs
# every slow command, which is how the benchmarks' slow queries were found). SECANTUS_CACHE_SIZE
# sets its WiredTiger cache (default: an eighth of the machine's memory, between 256M and 2G;
# the server's own default, 4G, let it grow past the memory of a 24 GiB machine in an hour of
# benchmarks with the national demo, until the kernel killed it).
start_secantus() {
  local storage="$1" log="$2"
  mkdir -p "$storage"
  local cache="${SECANTUS_CACHE_SIZE:-$(secantus_cache_size)}"
  "$SECANTUSD" --port 0 --storage-path "$storage" --cache-size "$cache" \
    --log-level "${SECANTUS_LOG_LEVEL:-WARNING}" >"$log" 2>&1 &
  SECANTUS_PID=$!
  local address=""
  for _ in $(seq 1 300); do
    address=$(sed -n 's/.*listening on \([0-9.]*:[0-9]*\).*/\1/p' "$log" | head -n 1)
    [ -n "$address" ] && break
    if ! kill -0 "$SECANTUS_PID" 2>/dev/null; then
      echo "SecantusDB failed to start:" >&2
      cat "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  if [ -z "$address" ]; then
    echo "SecantusDB did not report its address within 30 s; see $log" >&2
    return 1
  fi
  # The server advertises a one-node replica set; connect to it directly.
  MONGODB_URI="mongodb://$address/?directConnection=true"
  export MONGODB_URI
}
